package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.CacheStats;
import dev.stowage.RedisCache;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.ClassVersions;
import dev.stowage.testkit.WithRedis;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

/**
 * A record changed between two deploys of an application, through the starter: the old version
 * writes, the new one (another class loader, another Spring context) reads. A change that cannot be
 * read correctly is a counted miss, whatever the cache's settings, never a value with a property
 * read as null.
 */
@WithRedis
class RecordChangeIntegrationTests {
  private static final ClassLoader V1 =
      ClassVersions.compile(
          Map.of(
              "Book",
              "public record Book(long id, String title, int pages) implements java.io.Serializable {}"));

  /** {@code title} renamed {@code name}. */
  private static final ClassLoader RENAMED =
      ClassVersions.compile(
          Map.of(
              "Book",
              "public record Book(long id, String name, int pages) implements java.io.Serializable {}"));

  /** {@code pages} narrowed from int to short. */
  private static final ClassLoader NARROWED =
      ClassVersions.compile(
          Map.of(
              "Book",
              "public record Book(long id, String title, short pages) implements java.io.Serializable {}"));

  /** A property added, which every codec reads. */
  private static final ClassLoader GREW =
      ClassVersions.compile(
          Map.of(
              "Book",
              "public record Book(long id, String title, int pages, String isbn)"
                  + " implements java.io.Serializable {}"));

  private static RedisServer redis;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  @AfterEach
  void empty() {
    redis.flushAll();
  }

  /**
   * Runs {@code test} on the cache {@code books} of an application whose classes are those of
   * {@code version}.
   */
  private static void deploy(ClassLoader version, Consumer<Cache> test, String... properties) {
    new ApplicationContextRunner()
        .withClassLoader(version)
        .withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, StowageAutoConfiguration.class))
        .withPropertyValues(
            "spring.data.redis.url=" + redis.uri(), "stowage.allowed-packages=evolve")
        .withPropertyValues(properties)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              test.accept(context.getBean(CacheManager.class).getCache("books"));
            });
  }

  private static CacheStats stats(Cache cache) {
    return ((RedisCache<?, ?>) cache.getNativeCache()).stats();
  }

  /**
   * Writes a v1 book under 1 and reads it back with {@code reader}: what that reader's cache
   * answers.
   */
  private static void writeThenRead(
      ClassLoader reader, Consumer<Cache> test, String... properties) {
    deploy(
        V1, cache -> cache.put(1L, ClassVersions.create(V1, "Book", 1L, "Dune", 412)), properties);
    deploy(reader, test, properties);
  }

  private static void aCountedMiss(Cache cache) {
    assertThat(cache.get(1L)).isNull();
    assertThat(stats(cache).decodeFailures()).isEqualTo(1);
  }

  @Test
  void aRenamedPropertyIsAMissInACacheWithoutAType() {
    writeThenRead(RENAMED, RecordChangeIntegrationTests::aCountedMiss);
  }

  @Test
  void aNarrowedPropertyIsAMissInACacheWithoutAType() {
    writeThenRead(NARROWED, RecordChangeIntegrationTests::aCountedMiss);
  }

  @Test
  void anAddedPropertyIsReadInACacheWithoutAType() {
    writeThenRead(
        GREW,
        cache -> {
          assertThat(cache.get(1L).get())
              .hasToString("Book[id=1, title=Dune, pages=412, isbn=null]");
          assertThat(stats(cache).decodeFailures()).isZero();
        });
    writeThenRead(
        V1,
        cache -> assertThat(cache.get(1L).get()).hasToString("Book[id=1, title=Dune, pages=412]"));
  }

  @Test
  void aRenamedOrNarrowedPropertyIsAMissWithEveryCodecThatReadsByName() {
    for (String codec : new String[] {"json", "msgpack", "jdk"}) {
      writeThenRead(
          RENAMED,
          RecordChangeIntegrationTests::aCountedMiss,
          "stowage.caches.books.codec=" + codec);
      writeThenRead(
          RENAMED,
          RecordChangeIntegrationTests::aCountedMiss,
          "stowage.caches.books.codec=" + codec,
          "stowage.caches.books.type=evolve.Book");
      writeThenRead(
          NARROWED,
          RecordChangeIntegrationTests::aCountedMiss,
          "stowage.caches.books.codec=" + codec,
          "stowage.caches.books.type=evolve.Book");
      writeThenRead(
          V1,
          cache -> assertThat(cache.get(1L).get()).hasToString("Book[id=1, title=Dune, pages=412]"),
          "stowage.caches.books.codec=" + codec,
          "stowage.caches.books.type=evolve.Book");
    }
  }
}
