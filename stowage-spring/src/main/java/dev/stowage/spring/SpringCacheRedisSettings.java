package dev.stowage.spring;

import dev.stowage.RedisCache;
import java.lang.System.Logger.Level;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Spring's own Redis cache settings, {@code spring.cache.redis.*}, which an application moving from
 * Spring's {@code RedisCacheManager} still has, honoured where Stowage has the same notion and
 * refused, naming the {@code stowage.*} property to use, where it has not: never ignored. A {@code
 * stowage.*} setting given too wins.
 *
 * <ul>
 *   <li>{@code time-to-live}: the TTL of caches without {@code stowage.caches.<name>.ttl} or {@code
 *       stowage.defaults.ttl} (0 never expires, in both);
 *   <li>{@code key-prefix}: put before each cache's name in its default key prefix, {@code
 *       <key-prefix><name>::}, as Spring writes them; a cache's own {@code
 *       stowage.caches.<name>.key-prefix} wins;
 *   <li>{@code use-key-prefix}: true is what Stowage does; false (keys without a prefix) is
 *       refused;
 *   <li>{@code cache-null-values}: {@code stowage.cache-null-values} unless that is set;
 *   <li>{@code enable-statistics}: Stowage's caches always count ({@code RedisCache.stats()}, the
 *       {@code cache.*} meters); false is noted in the log.
 * </ul>
 *
 * @param timeToLive {@code spring.cache.redis.time-to-live}, if set
 * @param cacheNullValues {@code spring.cache.redis.cache-null-values}, if set
 * @param keyPrefix {@code spring.cache.redis.key-prefix}, if set
 * @param useKeyPrefix {@code spring.cache.redis.use-key-prefix}, if set
 * @param enableStatistics {@code spring.cache.redis.enable-statistics}, if set
 * @param stowageCacheNullValuesSet whether {@code stowage.cache-null-values} is set
 */
record SpringCacheRedisSettings(
    @Nullable Duration timeToLive,
    @Nullable Boolean cacheNullValues,
    @Nullable String keyPrefix,
    @Nullable Boolean useKeyPrefix,
    @Nullable Boolean enableStatistics,
    boolean stowageCacheNullValuesSet) {
  private static final String PREFIX = "spring.cache.redis.";
  private static final System.Logger LOG = System.getLogger("dev.stowage.spring");

  /** The settings {@code environment} has. */
  static SpringCacheRedisSettings of(Environment environment) {
    Binder binder = Binder.get(environment);
    return new SpringCacheRedisSettings(
        binder.bind(PREFIX + "time-to-live", Duration.class).orElse(null),
        binder.bind(PREFIX + "cache-null-values", Boolean.class).orElse(null),
        binder.bind(PREFIX + "key-prefix", String.class).orElse(null),
        binder.bind(PREFIX + "use-key-prefix", Boolean.class).orElse(null),
        binder.bind(PREFIX + "enable-statistics", Boolean.class).orElse(null),
        binder.bind("stowage.cache-null-values", Boolean.class).isBound());
  }

  /**
   * Applies the TTL and null values to {@code properties} where they leave them out, before the
   * cache manager is made from them.
   *
   * @throws IllegalArgumentException naming the property, for a value Stowage cannot honour
   */
  void applyTo(StowageProperties properties) {
    if (Boolean.FALSE.equals(useKeyPrefix)) {
      throw new IllegalArgumentException(
          PREFIX
              + "use-key-prefix=false is not supported: Stowage writes every"
              + " cache's keys under a prefix, so that clear() (@CacheEvict(allEntries = true)) removes that cache's"
              + " keys only; remove it, and set stowage.caches.<name>.key-prefix (or stowage.defaults.key-prefix)"
              + " for other prefixes");
    }
    if (timeToLive != null) {
      if (timeToLive.isNegative()) {
        throw new IllegalArgumentException(
            PREFIX
                + "time-to-live must not be negative, got "
                + timeToLive
                + "; 0 makes entries that never expire (or set stowage.defaults.ttl)");
      }
      if (timeToLive.compareTo(RedisCache.MAX_TTL) > 0
          || (!timeToLive.isZero() && timeToLive.toNanos() < 1_000_000)) {
        throw new IllegalArgumentException(
            PREFIX
                + "time-to-live must be 0 (never expire) or from 1 ms to "
                + RedisCache.MAX_TTL.toDays()
                + " days, got "
                + timeToLive
                + " (or set stowage.defaults.ttl)");
      }
      if (properties.getDefaults().getTtl() == null) {
        properties.getDefaults().setTtl(timeToLive);
      }
    }
    if (cacheNullValues != null && !stowageCacheNullValuesSet) {
      properties.setCacheNullValues(cacheNullValues);
    }
    if (Boolean.FALSE.equals(enableStatistics)) {
      LOG.log(
          Level.INFO,
          PREFIX
              + "enable-statistics=false: Stowage's caches always count their hits, misses and"
              + " writes (RedisCache.stats(), the cache.* meters), at the cost of a LongAdder each");
    }
  }

  /** Applies the key prefix to {@code manager}, before it makes its caches. */
  void applyTo(StowageCacheManager manager) {
    if (keyPrefix != null) {
      manager.prefixCacheNamesWith(keyPrefix);
    }
  }
}
