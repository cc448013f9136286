package dev.stowage.spring;

import dev.stowage.CacheStats;
import dev.stowage.Inspector;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.cache.CacheMeterBinder;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * The meters of a {@link StowageCache}, read from {@link dev.stowage.RedisCache#stats()} whenever
 * the registry publishes, each tagged with {@code cache} (the cache's name) and the tags it is
 * bound with (Spring Boot adds {@code cache.manager}). Named as Micrometer's cache meters and
 * Spring Boot's own Redis cache metrics name theirs, so that dashboards made for those work.
 *
 * <p>Micrometer's and Boot's: {@code cache.gets} ({@code result=hit}, {@code result=miss}), {@code
 * cache.puts} (values stored, loaded ones included), {@code cache.removals} (keys removed by evict
 * and clear, as Boot's {@code RedisCacheMetrics} counts them), {@code cache.load} ({@code
 * result=success}, {@code result=failure}: loader calls of {@code @Cacheable(sync = true)} that
 * returned and that threw) and {@code cache.load.duration} (a time gauge of the time spent in them,
 * as Micrometer's Caffeine metrics have it). There is no {@code cache.size}, as Redis cannot count
 * a cache's keys without scanning them, and no {@code cache.evictions}: Redis expires and evicts
 * keys on its own, uncounted.
 *
 * <p>Stowage's own, named so that Prometheus shows each word once: {@code
 * stowage.cache.decode.failures} (values present that could not be read, served as misses), {@code
 * stowage.cache.redis.errors}, {@code stowage.cache.encoded} and {@code stowage.cache.written}
 * (counters in bytes, {@code stowage_cache_encoded_bytes_total}: the stored values' bytes before
 * compression and as stored), {@code stowage.cache.dictionary} (an info gauge of 1, tagged {@code
 * dictionary} with the hexadecimal id of the zstd dictionary values are written with, or {@code
 * none}; re-tagged when the registry reads it after the cache learned or adopted another) and, for
 * a cache with a near cache, {@code stowage.cache.near.gets} ({@code result=hit}, {@code
 * result=miss}).
 */
public class StowageCacheMetrics extends CacheMeterBinder<StowageCache> {
  /** The {@code dictionary} tag of a cache that writes without a dictionary. */
  static final String NO_DICTIONARY = "none";

  private final boolean nearCache;

  /** The dictionary gauge registered last, and the registry it is in; guarded by this. */
  private @Nullable Gauge dictionaryGauge;

  private @Nullable MeterRegistry dictionaryRegistry;

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

  /**
   * None: Redis's own expiries and evictions are not counted; deletes are {@code cache.removals}.
   */
  @Override
  protected @Nullable Long evictionCount() {
    return null;
  }

  @Override
  protected long putCount() {
    // Read at every publish: the moment to follow a dictionary the cache learned since.
    tagDictionary();
    return stat(CacheStats::puts);
  }

  @Override
  protected void bindImplementationSpecificMetrics(MeterRegistry registry) {
    StowageCache cache = getCache();
    if (cache == null) {
      return;
    }
    counter(
        registry,
        cache,
        "cache.removals",
        "Cache removals: keys removed by evict and clear",
        null,
        c -> stats(c).deletes());
    FunctionCounter.builder("cache.load", cache, c -> stats(c).loads())
        .tags(getTagsWithCacheName())
        .tag("result", "success")
        .description("Loader calls (@Cacheable(sync = true)) that returned a value")
        .register(registry);
    FunctionCounter.builder("cache.load", cache, c -> stats(c).loadFailures())
        .tags(getTagsWithCacheName())
        .tag("result", "failure")
        .description("Loader calls (@Cacheable(sync = true)) that threw")
        .register(registry);
    TimeGauge.builder("cache.load.duration", cache, TimeUnit.NANOSECONDS, c -> stats(c).loadNanos())
        .tags(getTagsWithCacheName())
        .description("The time spent in loader calls")
        .register(registry);
    counter(
        registry,
        cache,
        "stowage.cache.decode.failures",
        "Values present in Redis that could not be decoded, each served as a miss",
        null,
        c -> stats(c).decodeFailures());
    counter(
        registry,
        cache,
        "stowage.cache.redis.errors",
        "Calls that failed because Redis was unreachable, too slow or refused a command",
        null,
        c -> stats(c).redisErrors());
    counter(
        registry,
        cache,
        "stowage.cache.encoded",
        "Bytes of the values stored, as their codec encoded them, before compression",
        BaseUnits.BYTES,
        c -> stats(c).bytesBeforeCompression());
    counter(
        registry,
        cache,
        "stowage.cache.written",
        "Bytes of the values stored, as written to Redis: compressed, with the envelope's header",
        BaseUnits.BYTES,
        c -> stats(c).bytesWritten());
    synchronized (this) {
      dictionaryRegistry = registry;
    }
    tagDictionary();
    if (nearCache) {
      FunctionCounter.builder("stowage.cache.near.gets", cache, c -> stats(c).nearHits())
          .tags(getTagsWithCacheName())
          .tag("result", "hit")
          .description("Reads answered by the near cache, without Redis")
          .register(registry);
      FunctionCounter.builder("stowage.cache.near.gets", cache, c -> stats(c).nearMisses())
          .tags(getTagsWithCacheName())
          .tag("result", "miss")
          .description("Reads the near cache could not answer, which went to Redis")
          .register(registry);
    }
  }

  /** The {@code dictionary} tag of the dictionary {@code cache} writes with now. */
  private static String dictionaryTag(StowageCache cache) {
    return cache.getNativeCache().compression().dictionaryId().stream()
        .mapToObj(Inspector::hexId)
        .findFirst()
        .orElse(NO_DICTIONARY);
  }

  /**
   * Registers the info gauge of the dictionary the cache writes with now, in place of the one of
   * the dictionary it wrote with before, if that changed.
   */
  private synchronized void tagDictionary() {
    StowageCache cache = getCache();
    MeterRegistry registry = dictionaryRegistry;
    if (cache == null || registry == null) {
      return;
    }
    String tag = dictionaryTag(cache);
    Gauge previous = dictionaryGauge;
    if (previous != null && tag.equals(previous.getId().getTag("dictionary"))) {
      return;
    }
    dictionaryGauge =
        Gauge.builder("stowage.cache.dictionary", cache, c -> tag.equals(dictionaryTag(c)) ? 1 : 0)
            .tags(getTagsWithCacheName())
            .tag("dictionary", tag)
            .description(
                "1, tagged with the id of the zstd dictionary values are written with (none before one)")
            .register(registry);
    if (previous != null) {
      registry.remove(previous);
    }
  }

  private void counter(
      MeterRegistry registry,
      StowageCache cache,
      String name,
      String description,
      @Nullable String baseUnit,
      ToDoubleFunction<StowageCache> count) {
    FunctionCounter.Builder<StowageCache> builder =
        FunctionCounter.builder(name, cache, count)
            .tags(getTagsWithCacheName())
            .description(description);
    if (baseUnit != null) {
      builder.baseUnit(baseUnit);
    }
    builder.register(registry);
  }
}
