package dev.stowage.bench.spring;

import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.stowage.samples.BoardRecord;
import dev.stowage.spring.StowageAutoConfiguration;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.Banner;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.serializer.GenericJackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;

/**
 * The Spring Boot applications of {@code bench spring}, one per row, each with the same {@link
 * BoardLookup} bean and Spring Boot's own Redis auto-configuration (a Lettuce {@code
 * LettuceConnectionFactory} and {@code ClientResources} from {@code spring.data.redis.url}):
 *
 * <ul>
 *   <li>{@link SpringCacheBench#SPRING}: Spring's {@code RedisCacheManager} with values written by
 *       {@code GenericJackson2JsonRedisSerializer} (JSON with {@code "@class"}, Java time as
 *       applications register it), the usual setup of a Spring Boot application today;
 *   <li>{@link SpringCacheBench#STOWAGE}: Stowage's auto-configuration, its {@code
 *       StowageCacheManager} with every default (compact MessagePack with the class named, zstd
 *       with a dictionary learned from the cache's values); {@code stowage.allowed-packages} names
 *       the samples' package, which an application's own records would not need;
 *   <li>{@link SpringCacheBench#STOWAGE_NEAR}: the same with the cache's near cache on, sized to
 *       hold every record;
 *   <li>{@link SpringCacheBench#IN_PROCESS}: Spring's {@code ConcurrentMapCacheManager}, no Redis:
 *       what the cache abstraction and the bench's callers cost alone.
 * </ul>
 *
 * <p>The Redis rows keep an entry for an hour ({@code RedisCacheManager}'s TTL set to Stowage's
 * default), so all write keys with an expiry.
 */
final class CacheContexts {

  /** How long both Redis rows keep an entry: Stowage's default TTL. */
  static final Duration TTL = Duration.ofHours(1);

  private CacheContexts() {}

  /**
   * Starts the application of {@code row} against the Redis at {@code redisUri}; the caller closes
   * it.
   */
  static ConfigurableApplicationContext start(
      String row, String redisUri, List<BoardRecord> records) {
    Class<?> source =
        switch (row) {
          case SpringCacheBench.SPRING -> SpringRedisApplication.class;
          case SpringCacheBench.STOWAGE, SpringCacheBench.STOWAGE_NEAR -> StowageApplication.class;
          case SpringCacheBench.IN_PROCESS -> InProcessApplication.class;
          default -> throw new IllegalArgumentException("no application for row '" + row + "'");
        };
    // Boot would otherwise take over the JVM's logging (java.util.logging here) for every row.
    if (System.getProperty(LoggingSystem.SYSTEM_PROPERTY) == null) {
      System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
    }
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("spring.data.redis.url", redisUri);
    properties.put("stowage.allowed-packages", BoardRecord.class.getPackageName());
    if (row.equals(SpringCacheBench.STOWAGE_NEAR)) {
      String cache = "stowage.caches[" + SpringCacheBench.CACHE + "].near-cache.";
      properties.put(cache + "enabled", "true");
      properties.put(cache + "maximum-size", Long.toString(records.size()));
    }
    return new SpringApplicationBuilder(source)
        .web(WebApplicationType.NONE)
        .bannerMode(Banner.Mode.OFF)
        .logStartupInfo(false)
        .registerShutdownHook(false)
        .properties(properties)
        .initializers(
            (GenericApplicationContext context) ->
                context.registerBean(BoardLookup.class, () -> new BoardLookup(records)))
        .run();
  }

  /** The value serializer of the Spring row: Spring's default JSON with Java time registered. */
  static GenericJackson2JsonRedisSerializer springJson() {
    return new GenericJackson2JsonRedisSerializer()
        .configure(mapper -> mapper.registerModule(new JavaTimeModule()));
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(DataRedisAutoConfiguration.class)
  @EnableCaching
  static class SpringRedisApplication {
    @Bean
    RedisCacheManager cacheManager(RedisConnectionFactory connections) {
      RedisCacheConfiguration values =
          RedisCacheConfiguration.defaultCacheConfig()
              .entryTtl(TTL)
              .serializeValuesWith(SerializationPair.fromSerializer(springJson()));
      return RedisCacheManager.builder(connections).cacheDefaults(values).build();
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({DataRedisAutoConfiguration.class, StowageAutoConfiguration.class})
  static class StowageApplication {}

  @Configuration(proxyBeanMethods = false)
  @EnableCaching
  static class InProcessApplication {
    @Bean
    ConcurrentMapCacheManager cacheManager() {
      return new ConcurrentMapCacheManager();
    }
  }
}
