package dev.stowage.spring;

import dev.stowage.CacheStats;
import dev.stowage.compress.ZstdDictionary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The meters of a {@link StowageCache}, read from {@link dev.stowage.RedisCache#stats()} whenever the
 * registry publishes, each tagged with {@code cache} (the cache's name) and the tags it is bound
 * with (Spring Boot adds {@code cache.manager}).
 *
 * <p>Micrometer's cache meters: {@code cache.gets} ({@code result=hit}, {@code result=miss}),
 * {@code cache.puts} (values stored, loaded ones included) and {@code cache.evictions} (keys
 * removed by evict and clear). There is no {@code cache.size}: Redis cannot count a cache's keys
 * without scanning them.
 *
 * <p>Stowage's own: {@code stowage.cache.load} (a function timer: loader calls of
 * {@code @Cacheable(sync = true)} and the time spent in them), {@code stowage.cache.load.failures},
 * {@code stowage.cache.decode.failures} (values present that could not be read, served as misses),
 * {@code stowage.cache.redis.errors}, {@code stowage.cache.bytes.encoded} and
 * {@code stowage.cache.bytes.written} (the stored values' bytes before compression and as stored),
 * {@code stowage.cache.dictionary} (a gauge of the id of the zstd dictionary values are written
 * with, 0 while there is none) and, for a cache with a near cache, {@code stowage.cache.near.gets}
 * ({@code result=hit}, {@code result=miss}).
 */
public class StowageCacheMetrics extends CacheMeterBinder<StowageCache> {
  private final boolean nearCache;

  /** The meters of {@code cache}, with {@code tags} besides its name. */
  public StowageCacheMetrics(StowageCache cache, Iterable<Tag> tags) {
    super(cache, cache.getName(), tags);
    this.nearCache = cache.settings().nearCache() != null;
  }

  private long stat(ToLongFunction<CacheStats> counter) {
    StowageCache cache = getCache();
    return cache == null ? 0 : counter.applyAsLong(stats(cache));
  }

  private static CacheStats stats(StowageCache cache) {
    return cache.getNativeCache().stats();
  }

  @Override
  protected @Nullable Long size() {
    return null;
  }

  @Override
  protected long hitCount() {
    return stat(CacheStats::hits);
  }

  @Override
  protected Long missCount() {
    return stat(CacheStats::misses);
  }

  @Override
  protected Long evictionCount() {
    return stat(CacheStats::deletes);
  }

  @Override
  protected long putCount() {
    return stat(CacheStats::puts);
  }

  @Override
  protected void bindImplementationSpecificMetrics(MeterRegistry registry) {
    StowageCache cache = getCache();
    if (cache == null) {
      return;
    }
    FunctionTimer.builder("stowage.cache.load", cache, c -> stats(c).loads() + stats(c).loadFailures(),
            c -> stats(c).loadNanos(), TimeUnit.NANOSECONDS)
        .tags(getTagsWithCacheName())
        .description("Loader calls, and the time spent in them")
        .register(registry);
    counter(registry, cache, "stowage.cache.load.failures", "Loader calls that threw", null,
        c -> stats(c).loadFailures());
    counter(registry, cache, "stowage.cache.decode.failures",
        "Values present in Redis that could not be decoded, each served as a miss", null,
        c -> stats(c).decodeFailures());
    counter(registry, cache, "stowage.cache.redis.errors",
        "Calls that failed because Redis was unreachable, too slow or refused a command", null,
        c -> stats(c).redisErrors());
    counter(registry, cache, "stowage.cache.bytes.encoded",
        "Bytes of the values stored, as their codec encoded them, before compression", BaseUnits.BYTES,
        c -> stats(c).bytesBeforeCompression());
    counter(registry, cache, "stowage.cache.bytes.written",
        "Bytes of the values stored, as written to Redis: compressed, with the envelope's header", BaseUnits.BYTES,
        c -> stats(c).bytesWritten());
    Gauge.builder("stowage.cache.dictionary", cache,
            c -> c.getNativeCache().compression().dictionary().map(ZstdDictionary::id).orElse(0L))
        .tags(getTagsWithCacheName())
        .description("The id of the zstd dictionary values are written with, 0 while there is none")
        .register(registry);
    if (nearCache) {
      FunctionCounter.builder("stowage.cache.near.gets", cache, c -> stats(c).nearHits())
          .tags(getTagsWithCacheName()).tag("result", "hit")
          .description("Reads answered by the near cache, without Redis")
          .register(registry);
      FunctionCounter.builder("stowage.cache.near.gets", cache, c -> stats(c).nearMisses())
          .tags(getTagsWithCacheName()).tag("result", "miss")
          .description("Reads the near cache could not answer, which went to Redis")
          .register(registry);
    }
  }

  private void counter(MeterRegistry registry, StowageCache cache, String name, String description,
                       @Nullable String baseUnit, ToDoubleFunction<StowageCache> count) {
    FunctionCounter.Builder<StowageCache> builder = FunctionCounter.builder(name, cache, count)
        .tags(getTagsWithCacheName())
        .description(description);
    if (baseUnit != null) {
      builder.baseUnit(baseUnit);
    }
    builder.register(registry);
  }
}
