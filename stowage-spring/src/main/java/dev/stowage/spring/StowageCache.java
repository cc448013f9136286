package dev.stowage.spring;

import static java.util.Objects.requireNonNull;

import dev.stowage.RedisCache;
import java.time.temporal.TemporalAccessor;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.interceptor.SimpleKey;
import org.springframework.cache.support.AbstractValueAdaptingCache;

/**
 * A Spring {@link org.springframework.cache.Cache} over a Stowage {@link RedisCache}, made by
 * {@link StowageCacheManager}. Values are written in Stowage's envelope, with the cache's codec,
 * compression and learned dictionary.
 *
 * <p><b>Keys</b> from Spring's key generator become the text after the cache's key prefix: strings,
 * numbers, {@link SimpleKey}s, enums, UUIDs and {@code java.time} values as their {@code
 * toString()}, and any other key whose class declares its own {@code toString()}. A key of a class
 * that does not is refused with an {@link IllegalArgumentException}, as two equal keys could
 * otherwise land on two Redis keys.
 *
 * <p><b>Null values</b>, when the manager allows them ({@code stowage.cache-null-values}, true by
 * default), are stored as a one-byte marker with the cache's TTL, and read back as a cached {@code
 * null}: the method is not called again for the key until the marker expires. When not allowed,
 * {@link #put} of {@code null} throws {@link IllegalArgumentException} (so does a
 * {@code @Cacheable} method returning {@code null}, as with Spring's {@code RedisCacheManager}),
 * and a {@code sync = true} load returning {@code null} stores nothing.
 *
 * <p><b>{@code get(key, loader)}</b>, which {@code @Cacheable(sync = true)} calls, is {@link
 * RedisCache#getOrLoad}, and {@code retrieve(key, loader)}, which asynchronous and reactive
 * {@code @Cacheable} methods call, is {@link dev.stowage.AsyncRedisCache#getOrLoadAsync}: either
 * way, concurrent callers for one key in this process share one loader call. {@link #clear()} is
 * {@link RedisCache#clear()}: {@code SCAN} and {@code UNLINK} under the key prefix, never {@code
 * KEYS}.
 *
 * <p><b>Values without a type</b> ({@code stowage.caches.<name>.type} not set) record their type, a
 * list's or map's found in its elements; a value whose type cannot be told from it (a list of
 * elements of two classes, a class outside the allowlist) is not cached: {@code put} stores
 * nothing, and a loading call returns the loaded value uncached; why, and the {@code type} setting
 * to add, is logged once.
 *
 * <p>A value that cannot be read (corrupt, of a class outside the allowlist, of a changed shape
 * that cannot be read correctly) is a miss, counted in {@link RedisCache#stats()}. Thread-safe.
 */
public final class StowageCache extends AbstractValueAdaptingCache {
  /**
   * Where the futures of {@link #retrieve} complete: never on Lettuce's I/O thread, which completes
   * Redis's replies. Spring's cache interceptor runs its next steps where a future completes, among
   * them a blocking {@link #put} whose reply only that thread can read: it waited out the command
   * timeout there.
   */
  private static final Executor COMPLETIONS = ForkJoinPool.commonPool();

  private static final System.Logger LOG = System.getLogger(StowageCache.class.getName());

  private final RedisCache<Object, Object> cache;
  private final StowageCacheManager.Settings settings;
  private final Set<String> refusalsLogged = ConcurrentHashMap.newKeySet();

  StowageCache(
      RedisCache<Object, Object> cache,
      boolean allowNullValues,
      StowageCacheManager.Settings settings) {
    super(allowNullValues);
    this.cache = requireNonNull(cache, "cache");
    this.settings = requireNonNull(settings, "settings");
  }

  /** The settings the cache was made with. */
  StowageCacheManager.Settings settings() {
    return settings;
  }

  /** The text of {@code key} in its Redis key, after the cache's prefix. */
  static String keyText(Object key) {
    if (key instanceof String
        || key instanceof Number
        || key instanceof SimpleKey
        || key instanceof Enum
        || key instanceof UUID
        || key instanceof TemporalAccessor
        || key instanceof Boolean
        || key instanceof Character) {
      return key.toString();
    }
    try {
      if (key.getClass().getMethod("toString").getDeclaringClass() != Object.class) {
        return key.toString();
      }
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
    throw new IllegalArgumentException(
        "a cache key of "
            + key.getClass().getName()
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
    Object stored;
    try {
      stored =
          cache.getOrLoad(
              key,
              k -> {
                T value;
                try {
                  value = valueLoader.call();
                } catch (Exception e) {
                  throw new ValueRetrievalException(key, valueLoader, e);
                }
                return value == null && !isAllowNullValues()
                    ? null
                    : cacheable(toStoreValue(value));
              });
    } catch (RuntimeException e) {
      Uncached uncached = uncached(e);
      if (uncached == null) {
        throw e;
      }
      stored = uncached.value;
    }
    return (T) fromStoreValue(stored);
  }

  /**
   * {@code stored} if the cache's codec can write it; otherwise logs why, once per cache and
   * reason, and throws {@link Uncached} holding it, so that the caller gets its value uncached.
   */
  private Object cacheable(Object stored) {
    String refusal = refusal(stored);
    if (refusal != null) {
      throw new Uncached(stored);
    }
    return stored;
  }

  /**
   * Why the cache's codec cannot write {@code stored}, logged once per reason; null when it can.
   */
  private @Nullable String refusal(@Nullable Object stored) {
    if (stored == null || !(settings.encoding().codec() instanceof ClassNamingCodec naming)) {
      return null;
    }
    String refusal = naming.refusal(stored);
    if (refusal != null) {
      if (refusalsLogged.size() >= 256) {
        refusalsLogged.clear();
      }
      if (refusalsLogged.add(refusal)) {
        LOG.log(
            System.Logger.Level.WARNING,
            refusal + "; the value is returned uncached (logged once)");
      }
    }
    return refusal;
  }

  private static @Nullable Uncached uncached(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof Uncached uncached) {
        return uncached;
      }
    }
    return null;
  }

  /** A loaded value the cache's codec cannot write, handed back to the caller uncached. */
  private static final class Uncached extends RuntimeException {
    private static final long serialVersionUID = 1L;

    @SuppressWarnings("serial") // never serialized: it only travels from the loader to the caller
    final transient Object value;

    Uncached(Object value) {
      super("a value that cannot be cached", null, false, false);
      this.value = value;
    }
  }

  @Override
  public @Nullable CompletableFuture<?> retrieve(Object key) {
    return cache
        .async()
        .get(key)
        .thenApplyAsync(
            stored ->
                stored == null
                    ? null
                    : isAllowNullValues() ? toValueWrapper(stored) : fromStoreValue(stored),
            COMPLETIONS);
  }

  @Override
  @SuppressWarnings("unchecked")
  public <T> CompletableFuture<T> retrieve(Object key, Supplier<CompletableFuture<T>> valueLoader) {
    return cache
        .async()
        .getOrLoadAsync(
            key,
            k ->
                valueLoader
                    .get()
                    .thenApply(
                        value ->
                            value == null && !isAllowNullValues()
                                ? null
                                : cacheable(toStoreValue(value))))
        .handleAsync(
            (stored, failure) -> {
              if (failure == null) {
                return (T) fromStoreValue(stored);
              }
              Uncached uncached = uncached(failure);
              if (uncached == null) {
                throw failure instanceof CompletionException completion
                    ? completion
                    : new CompletionException(failure);
              }
              return (T) fromStoreValue(uncached.value);
            },
            COMPLETIONS);
  }

  /**
   * Stores the value; a value the cache's codec cannot write without a type (a list of elements of
   * two classes, a class outside the allowlist) is not stored, and why is logged once.
   */
  @Override
  public void put(Object key, @Nullable Object value) {
    Object stored = toStoreValue(value);
    if (refusal(stored) == null) {
      cache.put(key, stored);
    }
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
