package dev.stowage.spring;

import static java.util.Objects.requireNonNull;

import dev.stowage.CacheStats;
import dev.stowage.Inspector;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.compress.Compression;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The actuator endpoint {@code stowage}: the Redis Stowage uses and every cache made so far, with
 * its settings and its statistics ({@code /actuator/stowage}), or one cache ({@code
 * /actuator/stowage/{name}}, 404 for a cache not made yet). Expose it with {@code
 * management.endpoints.web.exposure.include=stowage}. Reading it asks Redis nothing.
 */
@Endpoint(id = "stowage")
public class StowageEndpoint {
  private final Stowage stowage;
  private final Supplier<? extends Iterable<StowageCacheManager>> managers;

  /**
   * The endpoint of {@code stowage} and of the caches of the managers {@code managers} gives at
   * each read.
   */
  public StowageEndpoint(
      Stowage stowage, Supplier<? extends Iterable<StowageCacheManager>> managers) {
    this.stowage = requireNonNull(stowage, "stowage");
    this.managers = requireNonNull(managers, "managers");
  }

  /**
   * What the endpoint shows.
   *
   * @param redis the Redis address, as {@link Stowage#address()} names it
   * @param caches the caches made so far, by name
   */
  public record StowageDescriptor(String redis, List<CacheDescriptor> caches) {}

  /**
   * One cache.
   *
   * @param name its name
   * @param keyPrefix what its Redis keys start with
   * @param ttl the longest time an entry lives, as an ISO-8601 duration such as {@code PT10M}, or
   *     {@code null} when entries never expire
   * @param ttlJitter the share of the TTL taken off at random
   * @param codec the codec values are written with
   * @param compression the compression setting: {@code learned}, {@code standard}, {@code zstd},
   *     {@code lz4} or {@code none}
   * @param writtenWith the compression values are written with now, such as {@code zstd-dict(level
   *     2, dictionary 1a2b3c4d) from 64 bytes}
   * @param dictionary the id of the zstd dictionary values are written with, or {@code null}
   * @param nearCache the near cache's limits, or {@code null} without one
   * @param stats the cache's counters since it was made
   */
  public record CacheDescriptor(
      String name,
      String keyPrefix,
      @Nullable String ttl,
      double ttlJitter,
      String codec,
      String compression,
      String writtenWith,
      @Nullable String dictionary,
      @Nullable String nearCache,
      Counters stats) {}

  /**
   * A cache's counters as the endpoint's JSON shows them: those of {@link CacheStats}, by the same
   * names. A record of its own, so that the endpoint's shape does not follow {@code CacheStats}'
   * methods (a final class, which grows with new counters).
   */
  public record Counters(
      long hits,
      long misses,
      long decodeFailures,
      long loads,
      long loadFailures,
      long absentHits,
      long redisErrors,
      long loadNanos,
      long nearHits,
      long nearMisses,
      long puts,
      long deletes,
      long bytesBeforeCompression,
      long bytesWritten,
      long oversizedValues) {

    static Counters of(CacheStats stats) {
      return new Counters(
          stats.hits(),
          stats.misses(),
          stats.decodeFailures(),
          stats.loads(),
          stats.loadFailures(),
          stats.absentHits(),
          stats.redisErrors(),
          stats.loadNanos(),
          stats.nearHits(),
          stats.nearMisses(),
          stats.puts(),
          stats.deletes(),
          stats.bytesBeforeCompression(),
          stats.bytesWritten(),
          stats.oversizedValues());
    }
  }

  /** Every cache made so far. */
  @ReadOperation
  public StowageDescriptor caches() {
    List<CacheDescriptor> caches = new ArrayList<>();
    for (StowageCacheManager manager : managers.get()) {
      for (StowageCache cache : manager.caches()) {
        caches.add(describe(cache));
      }
    }
    return new StowageDescriptor(stowage.address(), caches);
  }

  /** The cache {@code name}, or {@code null} (a 404) if no manager has made it. */
  @ReadOperation
  public @Nullable CacheDescriptor cache(@Selector String name) {
    for (StowageCacheManager manager : managers.get()) {
      for (StowageCache cache : manager.caches()) {
        if (cache.getName().equals(name)) {
          return describe(cache);
        }
      }
    }
    return null;
  }

  private static CacheDescriptor describe(StowageCache cache) {
    StowageCacheManager.Settings settings = cache.settings();
    RedisCache<Object, Object> stowageCache = cache.getNativeCache();
    Compression writtenWith = stowageCache.compression();
    return new CacheDescriptor(
        cache.getName(),
        settings.keyPrefix(),
        settings.ttl() == null ? null : settings.ttl().toString(),
        settings.ttlJitter(),
        settings.encoding().codec().name(),
        settings.compression(),
        writtenWith.toString(),
        writtenWith.dictionaryId().stream().mapToObj(Inspector::hexId).findFirst().orElse(null),
        settings.nearCache() == null ? null : settings.nearCache().toString(),
        Counters.of(stowageCache.stats()));
  }
}
