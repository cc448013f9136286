package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.cache.autoconfigure.CacheAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.cache.support.NoOpCacheManager;

/**
 * Spring's own cache settings, {@code spring.cache.redis.*} and {@code spring.cache.type}, honoured
 * by Stowage's cache manager where Stowage has the same notion, refused naming the {@code
 * stowage.*} property to use where it has not; the {@code stowage.*} settings win. Real Spring
 * contexts, real Redis.
 */
@WithRedis
class SpringCacheRedisPropertiesIntegrationTests {
  private static RedisServer redis;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  private static ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataRedisAutoConfiguration.class,
                StowageAutoConfiguration.class,
                CacheAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + redis.uri());
  }

  private static Throwable rootCause(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  @Test
  void timeToLiveIsTheDefaultTtl() {
    runner()
        .withPropertyValues("spring.cache.redis.time-to-live=30s")
        .run(
            context -> {
              context.getBean(CacheManager.class).getCache("ttl30").put("k", "v");
              assertThat((Long) redis.reply("PTTL", "ttl30::k")).isBetween(26_000L, 30_000L);
            });
    runner()
        .withPropertyValues("spring.cache.redis.time-to-live=0")
        .run(
            context -> {
              context.getBean(CacheManager.class).getCache("forever").put("k", "v");
              assertThat(redis.reply("PTTL", "forever::k"))
                  .as("0 never expires, in both")
                  .isEqualTo(-1L);
            });
  }

  @Test
  void stowageTtlsWinOverTimeToLive() {
    runner()
        .withPropertyValues(
            "spring.cache.redis.time-to-live=30s",
            "stowage.defaults.ttl=10m",
            "stowage.caches.own.ttl=5s")
        .run(
            context -> {
              CacheManager manager = context.getBean(CacheManager.class);
              manager.getCache("tenminutes").put("k", "v");
              manager.getCache("own").put("k", "v");
              assertThat((Long) redis.reply("PTTL", "tenminutes::k")).isBetween(500_000L, 600_000L);
              assertThat((Long) redis.reply("PTTL", "own::k")).isBetween(4_000L, 5_000L);
            });
  }

  @Test
  void aNegativeTimeToLiveFailsTheStartNamingIt() {
    runner()
        .withPropertyValues("spring.cache.redis.time-to-live=-1s")
        .run(
            context ->
                assertThat(rootCause(context.getStartupFailure()))
                    .hasMessageStartingWith(
                        "spring.cache.redis.time-to-live must not be negative, got PT-1S"));
  }

  @Test
  void keyPrefixComesBeforeEachCachesNameAsInSpring() {
    runner()
        .withPropertyValues(
            "spring.cache.redis.key-prefix=shop:",
            "spring.cache.redis.use-key-prefix=true",
            "stowage.caches.own.key-prefix=mine:")
        .run(
            context -> {
              CacheManager manager = context.getBean(CacheManager.class);
              manager.getCache("books").put("1", "Dune");
              manager.getCache("own").put("1", "Dune");
              assertThat(redis.reply("EXISTS", "shop:books::1")).isEqualTo(1L);
              assertThat(redis.reply("EXISTS", "mine:1"))
                  .as("stowage's own prefix wins")
                  .isEqualTo(1L);
              assertThat(manager.getCache("books").get("1", String.class)).isEqualTo("Dune");
            });
  }

  @Test
  void keysWithoutAPrefixFailTheStartNamingTheStowageProperty() {
    runner()
        .withPropertyValues("spring.cache.redis.use-key-prefix=false")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(rootCause(context.getStartupFailure()))
                  .hasMessageStartingWith(
                      "spring.cache.redis.use-key-prefix=false is not supported")
                  .hasMessageContaining("stowage.caches.<name>.key-prefix");
            });
  }

  @Test
  void cacheNullValuesFalseRefusesNullsUnlessStowageSaysOtherwise() {
    runner()
        .withPropertyValues("spring.cache.redis.cache-null-values=false")
        .run(
            context -> {
              Cache cache = context.getBean(CacheManager.class).getCache("nulls");
              assertThatThrownBy(() -> cache.put("k", null))
                  .isInstanceOf(IllegalArgumentException.class);
            });
    runner()
        .withPropertyValues(
            "spring.cache.redis.cache-null-values=false", "stowage.cache-null-values=true")
        .run(
            context -> {
              Cache cache = context.getBean(CacheManager.class).getCache("nulls2");
              cache.put("k", null);
              assertThat(cache.get("k")).isNotNull().extracting(Cache.ValueWrapper::get).isNull();
            });
  }

  @Test
  void statisticsAreAlwaysOn() {
    runner()
        .withPropertyValues("spring.cache.redis.enable-statistics=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              StowageCacheManager manager = context.getBean(StowageCacheManager.class);
              manager.getCache("counted").put("k", "v");
              manager.getCache("counted").get("k");
              assertThat(
                      ((StowageCache) manager.getCache("counted")).getNativeCache().stats().hits())
                  .isEqualTo(1);
            });
  }

  @Test
  void cacheTypeRedisIsStowageAndAnotherTypeIsSpringsOwn() {
    runner()
        .withPropertyValues("spring.cache.type=redis")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .getBean(CacheManager.class)
                    .isInstanceOf(StowageCacheManager.class));
    runner()
        .withPropertyValues("spring.cache.type=none")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .getBean(CacheManager.class)
                    .isInstanceOf(NoOpCacheManager.class));
    runner()
        .withPropertyValues("spring.cache.type=simple")
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .getBean(CacheManager.class)
                    .isInstanceOf(ConcurrentMapCacheManager.class));
  }
}
