package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.spring.app.Book;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.cache.concurrent.ConcurrentMapCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Binding and checking {@code stowage.*} and {@code spring.data.redis.*}, and backing off, in real
 * Spring contexts.
 */
@WithRedis
class StowagePropertiesIntegrationTests {
  private static RedisServer redis;
  private ApplicationContextRunner runner;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  private ApplicationContextRunner runner() {
    if (runner == null) {
      runner =
          new ApplicationContextRunner()
              .withConfiguration(
                  AutoConfigurations.of(
                      DataRedisAutoConfiguration.class, StowageAutoConfiguration.class))
              .withPropertyValues(
                  "spring.data.redis.url=" + redis.uri(),
                  "stowage.allowed-packages=dev.stowage.spring.app");
    }
    return runner;
  }

  private static Throwable rootCause(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  @Test
  void aNegativeTtlFailsTheStartNamingTheProperty() {
    runner()
        .withPropertyValues("stowage.caches.books.ttl=-5s")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(rootCause(context.getStartupFailure()))
                  .hasMessage(
                      "stowage.caches.books.ttl must not be negative, got PT-5S; 0 makes entries that never expire");
            });
  }

  @Test
  void anEmptyOrBlankKeyPrefixFailsTheStartNamingTheProperty() {
    runner()
        .withPropertyValues("stowage.caches.books.key-prefix=")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(rootCause(context.getStartupFailure()))
                  .hasMessageStartingWith(
                      "stowage.caches.books.key-prefix must not be empty or blank, got ''");
            });
    runner()
        .withPropertyValues("stowage.defaults.key-prefix=")
        .run(
            context ->
                assertThat(rootCause(context.getStartupFailure()))
                    .hasMessageStartingWith(
                        "stowage.defaults.key-prefix must not be empty or blank, got ''"));
  }

  @Test
  void aBadDefaultFailsTheStartToo() {
    runner()
        .withPropertyValues("stowage.defaults.ttl-jitter=1.5")
        .run(
            context ->
                assertThat(rootCause(context.getStartupFailure()))
                    .hasMessage(
                        "stowage.defaults.ttl-jitter must be from 0 up to but excluding 1, got 1.5"));
  }

  @Test
  void anUnknownCodecFailsTheStartListingTheCodecs() {
    runner()
        .withPropertyValues("stowage.caches.books.codec=yaml")
        .run(
            context ->
                assertThat(rootCause(context.getStartupFailure()))
                    .hasMessageStartingWith(
                        "stowage.caches.books.codec: unknown codec 'yaml'; choose from json, msgpack, msgpack-compact, kryo"));
  }

  @Test
  void aCodecWhoseLibraryIsMissingNamesItsMavenCoordinates() {
    runner()
        .withPropertyValues("stowage.caches.books.codec=kryo")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageContaining("com.esotericsoftware:kryo"));
    runner()
        .withPropertyValues(
            "stowage.caches.books.type=dev.stowage.spring.app.Book",
            "stowage.caches.books.codec=fory")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .hasStackTraceContaining("stowage.caches.books.codec: ")
                    .rootCause()
                    .hasMessageContaining("org.apache.fory:fory-core"));
  }

  @Test
  void anUnknownCompressionOrTypeFailsTheStart() {
    runner()
        .withPropertyValues("stowage.caches.books.compression=brotli")
        .run(
            context ->
                assertThat(rootCause(context.getStartupFailure()))
                    .hasMessage(
                        "stowage.caches.books.compression: unknown compression 'brotli'; choose from learned, standard, zstd, lz4, none"));
    runner()
        .withPropertyValues("stowage.caches.books.type=com.example.Missing")
        .run(
            context ->
                assertThat(rootCause(context.getStartupFailure()))
                    .hasMessage(
                        "stowage.caches.books.type: class com.example.Missing not found (at 0 in 'com.example.Missing')"));
  }

  @Test
  void perCacheSettingsApply() {
    runner()
        .withPropertyValues(
            "stowage.caches.books.key-prefix=lib:books:",
            "stowage.caches.books.ttl=0",
            "stowage.caches.books.type=dev.stowage.spring.app.Book",
            "stowage.caches.books.compression=none",
            "stowage.defaults.ttl=30s")
        .run(
            context -> {
              CacheManager manager = context.getBean(CacheManager.class);
              assertThat(manager.getCacheNames()).contains("books");
              manager.getCache("books").put(1L, new Book(1, "Dune"));
              manager.getCache("other").put("x", "y");

              assertThat(redis.reply("PTTL", "lib:books:1")).isEqualTo(-1L);
              assertThat((Long) redis.reply("PTTL", "other::x")).isBetween(20_000L, 30_000L);
              assertThat(manager.getCache("books").get(1L, Book.class))
                  .isEqualTo(new Book(1, "Dune"));
            });
  }

  @Test
  void nullValuesCanBeRefused() {
    runner()
        .withPropertyValues("stowage.cache-null-values=false")
        .run(
            context -> {
              Cache cache = context.getBean(CacheManager.class).getCache("nulls");
              assertThatThrownBy(() -> cache.put("k", null))
                  .isInstanceOf(IllegalArgumentException.class)
                  .hasMessageContaining("null");
              Object loaded = cache.get("k2", () -> null);
              assertThat(loaded).isNull();
              assertThat(redis.reply("EXISTS", "nulls::k2")).isEqualTo(0L);
            });
    runner()
        .run(
            context -> {
              Cache cache = context.getBean(CacheManager.class).getCache("nulls");
              cache.put("k", null);
              assertThat(cache.get("k")).isNotNull().extracting(Cache.ValueWrapper::get).isNull();
            });
  }

  @Test
  void hostPortDatabaseAndClientNameComeFromSpringDataRedis() {
    new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, StowageAutoConfiguration.class))
        .withPropertyValues(
            "spring.data.redis.host=" + redis.host(),
            "spring.data.redis.port=" + redis.port(),
            "spring.data.redis.database=3",
            "spring.data.redis.timeout=750ms",
            "spring.data.redis.connect-timeout=1500ms",
            "spring.data.redis.client-name=orders-service")
        .run(
            context -> {
              context.getBean(CacheManager.class).getCache("db").put("k", "v");
              assertThat(redis.reply("EXISTS", "db::k")).isEqualTo(0L);
              assertThat(String.valueOf(redis.reply("CLIENT", "LIST")))
                  .as("the connection carries the client name")
                  .contains("name=orders-service");
              RedisClient client = RedisClient.create(redis.uri() + "/3");
              try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertThat(connection.sync().exists("db::k")).isEqualTo(1L);
              } finally {
                client.shutdown();
              }
            });
  }

  @Test
  void backsOffForTheApplicationsOwnBeans() {
    runner()
        .withUserConfiguration(OwnBeans.class)
        .run(
            context -> {
              assertThat(context).hasSingleBean(Stowage.class);
              assertThat(context.getBean(Stowage.class))
                  .isSameAs(context.getBean(OwnBeans.class).stowage);
              assertThat(context.getBean(CacheManager.class))
                  .isInstanceOf(ConcurrentMapCacheManager.class);
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnBeans {
    final Stowage stowage = Stowage.builder().redis(redis.uri()).build();

    @Bean(destroyMethod = "close")
    Stowage myStowage() {
      return stowage;
    }

    @Bean
    CacheManager myCacheManager() {
      return new ConcurrentMapCacheManager();
    }
  }
}
