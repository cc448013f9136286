package dev.stowage.spring;

import static java.util.Objects.requireNonNull;

import dev.stowage.RedisCache;
import java.time.temporal.TemporalAccessor;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.cache.support.AbstractValueAdaptingCache;

/**
 * A Spring {@link org.springframework.cache.Cache} over a Stowage {@link RedisCache}, made by
 * {@link StowageCacheManager}. Values are written in Stowage's envelope, with the cache's codec,
 * compression and learned dictionary.
 *
 * <p><b>Keys</b> from Spring's key generator become the text after the cache's key prefix:
 * strings, numbers, {@link SimpleKey}s, enums, UUIDs and {@code java.time} values as their
 * {@code toString()}, and any other key whose class declares its own {@code toString()}. A key of a
 * class that does not is refused with an {@link IllegalArgumentException}, as two equal keys could
 * otherwise land on two Redis keys.
 *
 * <p><b>Null values</b>, when the manager allows them ({@code stowage.cache-null-values}, true by
 * default), are stored as a one-byte marker with the cache's TTL, and read back as a cached
 * {@code null}: the method is not called again for the key until the marker expires. When not
 * allowed, {@link #put} of {@code null} throws {@link IllegalArgumentException} (so does a
 * {@code @Cacheable} method returning {@code null}, as with Spring's {@code RedisCacheManager}), and
 * a {@code sync = true} load returning {@code null} stores nothing.
 *
 * <p><b>{@code get(key, loader)}</b>, which {@code @Cacheable(sync = true)} calls, is
 * {@link RedisCache#getOrLoad}: concurrent callers for one key in this process share one loader
 * call. {@link #clear()} is {@link RedisCache#clear()}: {@code SCAN} and {@code UNLINK} under the
 * key prefix, never {@code KEYS}.
 *
 * <p>A value that cannot be read (corrupt, of a class outside the allowlist, of a changed shape
 * that cannot be read correctly) is a miss, counted in {@link RedisCache#stats()}. Thread-safe.
 */
public final class StowageCache extends AbstractValueAdaptingCache {
  private final RedisCache<Object, Object> cache;

  StowageCache(RedisCache<Object, Object> cache, boolean allowNullValues) {
    super(allowNullValues);
    this.cache = requireNonNull(cache, "cache");
  }

  /** The text of {@code key} in its Redis key, after the cache's prefix. */
  static String keyText(Object key) {
    if (key instanceof String || key instanceof Number || key instanceof SimpleKey || key instanceof Enum
        || key instanceof UUID || key instanceof TemporalAccessor || key instanceof Boolean || key instanceof Character) {
      return key.toString();
    }
    try {
      if (key.getClass().getMethod("toString").getDeclaringClass() != Object.class) {
        return key.toString();
      }
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
    throw new IllegalArgumentException("a cache key of " + key.getClass().getName()
        + " has no toString() of its own to make its Redis key from; give the class one that is consistent with"
        + " equals(), or use a key generator that returns a String");
  }

  @Override
  public String getName() {
    return cache.name();
  }

  /** The Stowage cache: its statistics, its Redis keys, its bulk operations. */
  @Override
  public RedisCache<Object, Object> getNativeCache() {
    return cache;
  }

  @Override
  protected @Nullable Object lookup(Object key) {
    return cache.get(key);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> @Nullable T get(Object key, Callable<T> valueLoader) {
    Object stored = cache.getOrLoad(key, k -> {
      T value;
      try {
        value = valueLoader.call();
      } catch (Exception e) {
        throw new ValueRetrievalException(key, valueLoader, e);
      }
      return value == null && !isAllowNullValues() ? null : toStoreValue(value);
    });
    return (T) fromStoreValue(stored);
  }

  @Override
  public @Nullable CompletableFuture<?> retrieve(Object key) {
    return cache.async().get(key)
        .thenApply(stored -> stored == null ? null : isAllowNullValues() ? toValueWrapper(stored) : fromStoreValue(stored));
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> CompletableFuture<T> retrieve(Object key, Supplier<CompletableFuture<T>> valueLoader) {
    return cache.async().get(key).thenCompose(stored -> {
      if (stored != null) {
        return CompletableFuture.completedFuture((T) fromStoreValue(stored));
      }
      return valueLoader.get().thenCompose(value -> value == null && !isAllowNullValues()
          ? CompletableFuture.completedFuture(value)
          : cache.async().put(key, toStoreValue(value)).thenApply(done -> value));
    });
  }

  @Override
  public void put(Object key, @Nullable Object value) {
    cache.put(key, toStoreValue(value));
  }

  @Override
  public void evict(Object key) {
    cache.delete(key);
  }

  @Override
  public boolean evictIfPresent(Object key) {
    return cache.delete(key);
  }

  @Override
  public void clear() {
    cache.clear();
  }

  @Override
  public boolean invalidate() {
    return cache.clear() > 0;
  }

  @Override
  public String toString() {
    return "StowageCache[" + cache.name() + ", " + cache.redisKey("") + "*]";
  }
}
