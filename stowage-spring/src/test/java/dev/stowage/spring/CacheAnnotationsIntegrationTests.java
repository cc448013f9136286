package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.RedisCache;
import dev.stowage.embedded.RedisServer;
import dev.stowage.spring.app.Book;
import dev.stowage.spring.app.LibraryApplication;
import dev.stowage.spring.app.LibraryService;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.CacheManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The cache annotations on a real Spring Boot application, through Stowage, against a real Redis.
 */
@WithRedis
@SpringBootTest(classes = LibraryApplication.class, properties = "stowage.caches.books.ttl=10m")
class CacheAnnotationsIntegrationTests {
  private static RedisServer redis;

  @Autowired LibraryService library;
  @Autowired CacheManager cacheManager;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  @DynamicPropertySource
  static void redisUrl(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> redis.uri());
  }

  @AfterEach
  void empty() {
    redis.flushAll();
  }

  @SuppressWarnings("unchecked")
  private RedisCache<Object, Object> stowageCache(String name) {
    return (RedisCache<Object, Object>) cacheManager.getCache(name).getNativeCache();
  }

  @Test
  void theCacheManagerIsStowages() {
    assertThat(cacheManager).isInstanceOf(StowageCacheManager.class);
    assertThat(cacheManager.getCache("books")).isInstanceOf(StowageCache.class);
  }

  @Test
  void cacheableCallsTheMethodOnceAndStoresUnderTheCacheNameWithItsTtl() {
    int before = library.finds();
    long hitsBefore = stowageCache("books").stats().hits();
    assertThat(library.find(1)).isEqualTo(new Book(1, "Book 1"));
    assertThat(library.find(1)).isEqualTo(new Book(1, "Book 1"));

    assertThat(library.finds() - before).isEqualTo(1);
    assertThat(redis.reply("EXISTS", "books::1")).isEqualTo(1L);
    long ttl = (Long) redis.reply("PTTL", "books::1");
    assertThat(ttl).isBetween(Duration.ofMinutes(9).toMillis(), Duration.ofMinutes(10).toMillis());
    assertThat(stowageCache("books").stats().hits() - hitsBefore).isEqualTo(1);
  }

  @Test
  void keysOfSeveralArgumentsAreSimpleKeysAsText() {
    assertThat(library.search("Le Guin", 2)).isEqualTo("Le Guin page 2");
    assertThat(library.search("Le Guin", 2)).isEqualTo("Le Guin page 2");

    assertThat(library.searches()).isEqualTo(1);
    assertThat(redis.reply("EXISTS", "searches::SimpleKey [Le Guin, 2]")).isEqualTo(1L);
  }

  @Test
  void nullResultsAreCachedAsAMarker() {
    int before = library.finds();
    assertThat(library.find(-7)).isNull();
    assertThat(library.find(-7)).isNull();

    assertThat(library.finds() - before).isEqualTo(1);
    assertThat(redis.reply("EXISTS", "books::-7")).isEqualTo(1L);
    assertThat(cacheManager.getCache("books").get(-7L))
        .isNotNull()
        .extracting(w -> w.get())
        .isNull();
  }

  @Test
  void cachePutReplacesAndCacheEvictRemoves() {
    library.find(2);
    library.save(new Book(2, "Second edition"));
    int before = library.finds();

    assertThat(library.find(2)).isEqualTo(new Book(2, "Second edition"));
    assertThat(library.finds()).isEqualTo(before);

    library.evict(2);
    assertThat(redis.reply("EXISTS", "books::2")).isEqualTo(0L);
    assertThat(library.find(2)).isEqualTo(new Book(2, "Book 2"));
    assertThat(library.finds() - before).isEqualTo(1);
  }

  @Test
  void evictAllEntriesRemovesTheCachesKeysOnly() {
    for (long id = 0; id < 2_500; id++) {
      library.find(id);
    }
    library.search("Borges", 1);
    redis.command("SET", "books:not-spring", "kept");

    library.evictAll();

    for (long id = 0; id < 2_500; id++) {
      assertThat(redis.reply("EXISTS", "books::" + id)).isEqualTo(0L);
    }
    assertThat(redis.reply("EXISTS", "searches::SimpleKey [Borges, 1]")).isEqualTo(1L);
    assertThat(redis.reply("GET", "books:not-spring")).isEqualTo("kept");
  }

  @Test
  void syncRunsTheMethodOnceForFiftyConcurrentCallers() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    library.holdSlowLoadsUntil(release);
    int callers = 50;
    ExecutorService pool = Executors.newFixedThreadPool(callers);
    List<Thread> threads = new ArrayList<>();
    CyclicBarrier start = new CyclicBarrier(callers);
    try {
      List<Future<String>> results = new ArrayList<>();
      for (int i = 0; i < callers; i++) {
        results.add(
            pool.submit(
                () -> {
                  synchronized (threads) {
                    threads.add(Thread.currentThread());
                  }
                  start.await();
                  return library.slow("k");
                }));
      }
      // Every caller is in: one in the method, waiting for the release, and the others waiting for
      // it.
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () -> {
                synchronized (threads) {
                  return threads.size() == callers
                      && threads.stream()
                          .allMatch(
                              t ->
                                  t.getState() == Thread.State.WAITING
                                      || t.getState() == Thread.State.TIMED_WAITING)
                      && library.slowLoads() == 1;
                }
              });
      release.countDown();
      for (Future<String> result : results) {
        assertThat(result.get()).isEqualTo("loaded k");
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(library.slowLoads()).isEqualTo(1);
    assertThat(library.slow("k")).isEqualTo("loaded k");
    assertThat(library.slowLoads()).isEqualTo(1);
  }

  @Test
  void completableFutureResultsAreCachedThroughRetrieve() {
    assertThat(library.findLater(3).join()).isEqualTo(new Book(3, "Later 3"));
    assertThat(library.findLater(3).join()).isEqualTo(new Book(3, "Later 3"));

    assertThat(library.futureLoads()).isEqualTo(1);
    assertThat(redis.reply("EXISTS", "futures::3")).isEqualTo(1L);
  }

  @Test
  void syncFutureResultsRunTheMethodOnceForConcurrentCallers() {
    CompletableFuture<Void> release = new CompletableFuture<>();
    library.holdSyncFuturesUntil(release);
    RedisCache<Object, Object> nativeCache = stowageCache("futuresOnce");

    List<CompletableFuture<Book>> results = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      results.add(library.findLaterOnce(6));
    }
    // Every caller has read Redis and missed; the one load in flight waits for the release.
    await().atMost(Duration.ofSeconds(20)).until(() -> nativeCache.stats().misses() == 20);
    assertThat(results).noneMatch(CompletableFuture::isDone);
    release.complete(null);

    assertThat(results)
        .allSatisfy(result -> assertThat(result.join()).isEqualTo(new Book(6, "Once 6")));
    assertThat(library.syncFutureLoads()).isEqualTo(1);
    assertThat(redis.reply("EXISTS", "futuresOnce::6")).isEqualTo(1L);
  }

  @Test
  void monoResultsAreCachedThroughRetrieve() {
    assertThat(library.findMono(4).block()).isEqualTo(new Book(4, "Mono 4"));
    assertThat(library.findMono(4).block()).isEqualTo(new Book(4, "Mono 4"));

    assertThat(library.monoLoads()).isEqualTo(1);
    assertThat(redis.reply("EXISTS", "monos::4")).isEqualTo(1L);
  }
}
