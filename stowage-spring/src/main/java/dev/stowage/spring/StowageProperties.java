package dev.stowage.spring;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code stowage.*} settings. Redis itself is configured by Spring's {@code
 * spring.data.redis.*}. Every per-cache setting left out takes the value under {@code
 * stowage.defaults}, and then Stowage's own default. The values are checked when the cache manager
 * is made, and a bad one fails the application's start with a message naming the property.
 */
@ConfigurationProperties("stowage")
public class StowageProperties {
  /**
   * Whether a method's null result is cached, as a marker with the cache's TTL, so that the method
   * is not called again for the key until then; when false, null results are not cached and putting
   * null fails, as with Spring's RedisCacheManager.
   */
  private boolean cacheNullValues = true;

  /**
   * Packages (with their subpackages) whose classes caches without a configured type may read back,
   * besides the application's auto-configuration packages (the package of the
   * {@code @SpringBootApplication} class) and the JDK value classes.
   */
  private List<String> allowedPackages = new ArrayList<>();

  /**
   * Whether the application starts while Redis cannot be reached, as Spring's RedisCacheManager
   * does: the connection is tried again every second, the health indicator is DOWN and cache calls
   * fail at once until Redis answers (a cache with load-when-unavailable then calls the method; a
   * CachingConfigurer's errorHandler can let the others through). When false, the start fails while
   * Redis cannot be reached. Refused credentials fail the start either way.
   */
  private boolean connectInBackground = true;

  /** The settings of every cache that its own entry under {@code stowage.caches} leaves out. */
  private Cache defaults = new Cache();

  /** Settings per cache name; caches named here are made when the application starts. */
  private Map<String, Cache> caches = new LinkedHashMap<>();

  public boolean isCacheNullValues() {
    return cacheNullValues;
  }

  public void setCacheNullValues(boolean cacheNullValues) {
    this.cacheNullValues = cacheNullValues;
  }

  public List<String> getAllowedPackages() {
    return allowedPackages;
  }

  public void setAllowedPackages(List<String> allowedPackages) {
    this.allowedPackages = allowedPackages;
  }

  public boolean isConnectInBackground() {
    return connectInBackground;
  }

  public void setConnectInBackground(boolean connectInBackground) {
    this.connectInBackground = connectInBackground;
  }

  public Cache getDefaults() {
    return defaults;
  }

  public void setDefaults(Cache defaults) {
    this.defaults = defaults;
  }

  public Map<String, Cache> getCaches() {
    return caches;
  }

  public void setCaches(Map<String, Cache> caches) {
    this.caches = caches;
  }

  /** The settings of one cache. */
  public static class Cache {
    /**
     * How long an entry lives; 0 for entries that never expire. One hour by default
     * (RedisCache.DEFAULT_TTL).
     */
    private @Nullable Duration ttl;

    /**
     * The share of the TTL taken off at random, from 0 up to but excluding 1, so that entries
     * written together do not expire together; 0.1 by default.
     */
    private @Nullable Double ttlJitter;

    /**
     * The codec: json, msgpack, msgpack-compact, kryo, fory, protobuf, avro, thrift, jdk, fastjson2
     * or string. By default, msgpack-compact for a cache with a type, msgpack for one without.
     */
    private @Nullable String codec;

    /**
     * The compression: learned (zstd with a dictionary learned from the cache's values, the
     * default), standard (zstd from 1 KiB), zstd, lz4 or none.
     */
    private @Nullable String compression;

    /**
     * What every Redis key of the cache starts with; the cache's name and "::" by default, as
     * Spring's RedisCacheManager writes them.
     */
    private @Nullable String keyPrefix;

    /**
     * The Java type of the cache's values, generics included, with every class named in full:
     * com.example.Book, java.util.List<com.example.Book>, java.util.Map<java.lang.String,
     * com.example.Book>. Values are read with the codec for that type. By default each value
     * records its type (a list or map the type its elements share), and only allowed classes are
     * read back.
     */
    private @Nullable String type;

    /**
     * Whether a {@code @Cacheable(sync = true)} method is called when Redis is unreachable or
     * slower than the command timeout (spring.data.redis.timeout, 2 s by default), instead of the
     * call failing; nothing is stored meanwhile. False by default.
     */
    private @Nullable Boolean loadWhenUnavailable;

    /**
     * The near cache: decoded values kept in the process while Redis says they have not changed.
     */
    private NearCacheSettings nearCache = new NearCacheSettings();

    /**
     * The codec of the values stored without Stowage's envelope, such as those Spring's
     * RedisCacheManager wrote, which the cache reads besides its own: spring-json
     * (GenericJackson2JsonRedisSerializer's JSON, with "@class"; only classes the cache may read
     * back are created), jackson-json (plain JSON of the cache's type), jdk (JDK serialization,
     * behind the JDK codec's class filter and the cache's allowed classes) or string. Spring's
     * cached null reads as a cached null. None by default: such values are misses.
     */
    private @Nullable String legacyCodec;

    /**
     * Whether new values are written with the legacy codec, as Spring wrote them, without the
     * envelope, so that instances not yet running Stowage read them during a rolling deploy; false
     * by default. Turn it off once no old reader runs (docs/MIGRATION.md).
     */
    private @Nullable Boolean writeLegacy;

    public @Nullable String getLegacyCodec() {
      return legacyCodec;
    }

    public void setLegacyCodec(@Nullable String legacyCodec) {
      this.legacyCodec = legacyCodec;
    }

    public @Nullable Boolean getWriteLegacy() {
      return writeLegacy;
    }

    public void setWriteLegacy(@Nullable Boolean writeLegacy) {
      this.writeLegacy = writeLegacy;
    }

    public @Nullable Duration getTtl() {
      return ttl;
    }

    public void setTtl(@Nullable Duration ttl) {
      this.ttl = ttl;
    }

    public @Nullable Double getTtlJitter() {
      return ttlJitter;
    }

    public void setTtlJitter(@Nullable Double ttlJitter) {
      this.ttlJitter = ttlJitter;
    }

    public @Nullable String getCodec() {
      return codec;
    }

    public void setCodec(@Nullable String codec) {
      this.codec = codec;
    }

    public @Nullable String getCompression() {
      return compression;
    }

    public void setCompression(@Nullable String compression) {
      this.compression = compression;
    }

    public @Nullable String getKeyPrefix() {
      return keyPrefix;
    }

    public void setKeyPrefix(@Nullable String keyPrefix) {
      this.keyPrefix = keyPrefix;
    }

    public @Nullable String getType() {
      return type;
    }

    public void setType(@Nullable String type) {
      this.type = type;
    }

    public @Nullable Boolean getLoadWhenUnavailable() {
      return loadWhenUnavailable;
    }

    public void setLoadWhenUnavailable(@Nullable Boolean loadWhenUnavailable) {
      this.loadWhenUnavailable = loadWhenUnavailable;
    }

    public NearCacheSettings getNearCache() {
      return nearCache;
    }

    public void setNearCache(NearCacheSettings nearCache) {
      this.nearCache = nearCache;
    }
  }

  /**
   * The near cache of one cache; needs Caffeine (com.github.ben-manes.caffeine:caffeine) on the
   * class path, which the starter brings.
   */
  public static class NearCacheSettings {
    /** Whether the cache keeps decoded values in the process (with Caffeine). */
    private @Nullable Boolean enabled;

    /** The most entries kept; 10,000 by default. */
    private @Nullable Long maximumSize;

    /** How long an entry is kept at most, whatever Redis says; no limit by default. */
    private @Nullable Duration expireAfterWrite;

    public @Nullable Boolean getEnabled() {
      return enabled;
    }

    public void setEnabled(@Nullable Boolean enabled) {
      this.enabled = enabled;
    }

    public @Nullable Long getMaximumSize() {
      return maximumSize;
    }

    public void setMaximumSize(@Nullable Long maximumSize) {
      this.maximumSize = maximumSize;
    }

    public @Nullable Duration getExpireAfterWrite() {
      return expireAfterWrite;
    }

    public void setExpireAfterWrite(@Nullable Duration expireAfterWrite) {
      this.expireAfterWrite = expireAfterWrite;
    }
  }
}
