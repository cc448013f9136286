package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.spring.app.Book;
import dev.stowage.testkit.WithRedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

/**
 * {@code spring.data.redis.cluster.nodes} makes the application's Stowage a cluster client, in a
 * real Spring context.
 */
@WithRedisCluster
class StowageClusterIntegrationTests {
  private static RedisClusterSet cluster;

  @BeforeAll
  static void cluster(RedisClusterSet set) {
    cluster = set;
  }

  private static ApplicationContextRunner runner(String... properties) {
    RedisServer first = cluster.masters().get(0);
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, StowageAutoConfiguration.class))
        .withPropertyValues(
            "spring.data.redis.cluster.nodes=" + first.host() + ":" + first.port(),
            "stowage.allowed-packages=dev.stowage.spring.app",
            "stowage.caches.books.type=dev.stowage.spring.app.Book")
        .withPropertyValues(properties);
  }

  private static long keysOn(RedisServer master, String pattern) {
    Object keys = master.reply("KEYS", pattern);
    return keys instanceof List<?> list ? list.size() : 0;
  }

  @Test
  void cachedValuesSpreadOverEveryMasterAndReadBackThroughAnyNode() {
    runner()
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Cache books = context.getBean(CacheManager.class).getCache("books");
              assertThat(books).isNotNull();
              for (long id = 0; id < 600; id++) {
                books.put(id, new Book(id, "title " + id));
              }
              for (long id = 0; id < 600; id++) {
                assertThat(books.get(id, Book.class)).isEqualTo(new Book(id, "title " + id));
              }
              long total = 0;
              for (RedisServer master : cluster.masters()) {
                long here = keysOn(master, "books::*");
                assertThat(here).as("keys on " + master).isPositive();
                total += here;
              }
              assertThat(total).isEqualTo(600);

              // Another application, given a different node, reads the same values.
              RedisServer other = cluster.masters().get(2);
              runner("spring.data.redis.cluster.nodes=" + other.host() + ":" + other.port())
                  .run(
                      second -> {
                        Cache same = second.getBean(CacheManager.class).getCache("books");
                        assertThat(same).isNotNull();
                        assertThat(same.get(42L, Book.class)).isEqualTo(new Book(42, "title 42"));
                        assertThat(same.get(599L, Book.class))
                            .isEqualTo(new Book(599, "title 599"));
                      });

              books.clear();
              List<Long> left = new ArrayList<>();
              for (RedisServer master : cluster.masters()) {
                left.add(keysOn(master, "books::*"));
              }
              assertThat(left).as("clear() reached every master").containsOnly(0L);
            });
  }

  @Test
  void aNearCacheOnTheClusterDropsWhatAnotherApplicationWrites() {
    runner("stowage.caches.books.near-cache.enabled=true")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Cache books = context.getBean(CacheManager.class).getCache("books");
              assertThat(books).isInstanceOf(StowageCache.class);
              StowageCache near = (StowageCache) books;
              List<Long> ids =
                  List.of(1000L, 1001L, 1002L, 1003L, 1004L, 1005L, 1006L, 1007L, 1008L, 1009L);
              Set<Integer> masters = new HashSet<>();
              for (long id : ids) {
                near.put(id, new Book(id, "first " + id));
                masters.add(cluster.masterOf("books::" + id).port());
              }
              assertThat(masters).as("the keys are spread over the three masters").hasSize(3);
              // Kept: every second read is answered in the process once each master tracks.
              await()
                  .atMost(Duration.ofSeconds(10))
                  .until(
                      () -> {
                        ids.forEach(id -> near.get(id, Book.class));
                        long before = near.getNativeCache().stats().nearHits();
                        ids.forEach(id -> near.get(id, Book.class));
                        return near.getNativeCache().stats().nearHits() - before == ids.size();
                      });

              RedisServer other = cluster.masters().get(2);
              runner("spring.data.redis.cluster.nodes=" + other.host() + ":" + other.port())
                  .run(
                      second -> {
                        Cache same = second.getBean(CacheManager.class).getCache("books");
                        assertThat(same).isNotNull();
                        ids.forEach(id -> same.put(id, new Book(id, "second " + id)));
                      });
              await()
                  .atMost(Duration.ofSeconds(5))
                  .untilAsserted(
                      () ->
                          ids.forEach(
                              id ->
                                  assertThat(near.get(id, Book.class))
                                      .isEqualTo(new Book(id, "second " + id))));
            });
  }
}
