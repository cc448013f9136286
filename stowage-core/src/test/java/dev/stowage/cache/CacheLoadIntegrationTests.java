package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheLayout;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;

@WithRedis
@EveryLayout
class CacheLoadIntegrationTests {
  @Parameter CacheLayout layout;

  private static final int CALLERS = 100;
  private static final Duration WAIT = Duration.ofSeconds(30);
  private Stowage stowage;
  private Stowage other;
  private ExecutorService threads;

  @BeforeEach
  void start(RedisServer redis) {
    redis.flushAll();
    stowage = Stowage.builder().redis(redis.uri()).build();
    other = Stowage.builder().redis(redis.uri()).build();
    threads = Executors.newFixedThreadPool(CALLERS);
  }

  @AfterEach
  void stop() throws InterruptedException {
    stowage.close();
    other.close();
    threads.shutdownNow();
    assertThat(threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
  }

  /** The threads of the callers of {@link #together}. */
  private final List<Thread> callers = new CopyOnWriteArrayList<>();

  /**
   * Runs {@code call} in {@code n} threads released together; returns each outcome (value or
   * exception).
   */
  private <T> List<Object> together(int n, Callable<T> call) throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    callers.clear();
    List<Future<Object>> futures = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      futures.add(
          threads.submit(
              () -> {
                callers.add(Thread.currentThread());
                gate.await();
                try {
                  return call.call();
                } catch (RuntimeException e) {
                  return e;
                }
              }));
    }
    gate.countDown();
    List<Object> outcomes = new ArrayList<>();
    for (Future<Object> future : futures) {
      outcomes.add(future.get(30, TimeUnit.SECONDS));
    }
    return outcomes;
  }

  /**
   * A loader that returns {@code value} only once {@code misses} reaches {@code expected}: every
   * caller has read the key and missed while this load runs, so none finds the value stored yet.
   */
  private static Function<String, Item> loaderAfterMisses(
      AtomicInteger calls, Item value, LongSupplier misses, long expected) {
    return key -> {
      calls.incrementAndGet();
      awaitMisses(misses, expected);
      return value;
    };
  }

  private static void awaitMisses(LongSupplier misses, long expected) {
    await(expected + " reads missed")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> misses.getAsLong() >= expected);
  }

  /**
   * Whether every caller of {@link #together} but {@code leader} is parked, as a caller is that
   * waits for the load in flight. Meant once every caller has read and missed: none is then still
   * waiting for Redis.
   */
  private boolean othersParked(Thread leader) {
    return callers.stream()
        .filter(caller -> caller != leader)
        .allMatch(caller -> caller.getState() == Thread.State.WAITING);
  }

  @Test
  void concurrentCallersOfOneKeyShareOneLoad(RedisServer redis) throws Exception {
    RedisCache<String, Item> cache = stowage.cache("single", Item.class).layout(layout).build();
    AtomicInteger calls = new AtomicInteger();
    Item value = Samples.item(1);

    LongSupplier misses = () -> cache.stats().misses();

    List<Object> outcomes =
        together(
            CALLERS, () -> cache.getOrLoad("k", loaderAfterMisses(calls, value, misses, CALLERS)));

    assertThat(outcomes).hasSize(CALLERS).containsOnly(value);
    assertThat(calls).hasValue(1);
    assertThat(cache.stats().loads()).isEqualTo(1);
    assertThat(cache.get("k")).as("stored").isEqualTo(value);
    assertThat(RedisCacheIntegrationTests.pttl(redis, cache.redisKey("k"))).isPositive();
  }

  @Test
  void aFailingLoaderReachesEveryCallerAndStoresNothing() throws Exception {
    RedisCache<String, Item> cache = stowage.cache("failing", Item.class).layout(layout).build();
    AtomicInteger calls = new AtomicInteger();

    List<Object> outcomes =
        together(
            CALLERS,
            () ->
                cache.getOrLoad(
                    "k",
                    key -> {
                      calls.incrementAndGet();
                      // A failed load is not kept: a caller whose read came after the failure would
                      // load again.
                      // So the load fails only once every caller has read, missed and joined it.
                      Thread leader = Thread.currentThread();
                      await("every caller waits for the load")
                          .atMost(WAIT)
                          .pollInterval(Duration.ofMillis(10))
                          .until(() -> cache.stats().misses() == CALLERS && othersParked(leader));
                      throw new IllegalStateException("database down for " + key);
                    }));

    assertThat(outcomes)
        .hasSize(CALLERS)
        .allSatisfy(
            outcome ->
                assertThat(outcome)
                    .isInstanceOf(IllegalStateException.class)
                    .hasFieldOrPropertyWithValue("message", "database down for k"));
    assertThat(calls).hasValue(1);
    assertThat(cache.stats().loadFailures()).isEqualTo(1);
    assertThat(cache.exists("k")).isFalse();

    assertThat(cache.getOrLoad("k", key -> Samples.item(2)))
        .as("the next call loads again")
        .isEqualTo(Samples.item(2));
  }

  @Test
  void asyncLoadsAreSingleFlightToo() {
    RedisCache<String, Item> cache =
        stowage.cache("asyncLoad", Item.class).layout(layout).loadExecutor(threads).build();
    AtomicInteger calls = new AtomicInteger();
    Item value = Samples.item(3);

    Function<String, Item> loader =
        loaderAfterMisses(calls, value, () -> cache.stats().misses(), 51);

    List<CompletableFuture<Item>> futures = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      futures.add(cache.async().getOrLoad("k", loader));
    }
    futures.add(CompletableFuture.supplyAsync(() -> cache.getOrLoad("k", loader), threads));

    assertThat(futures).allSatisfy(future -> assertThat(future.join()).isEqualTo(value));
    assertThat(calls).hasValue(1);

    CompletableFuture<Item> failing =
        cache
            .async()
            .getOrLoad(
                "bad",
                key -> {
                  throw new IllegalArgumentException("no " + key);
                });
    assertThatThrownBy(failing::join)
        .hasCauseInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no bad");
  }

  @Test
  void loadersReturningAStageAreSingleFlightAndHoldNoThreadWhileTheStageRuns(RedisServer redis) {
    RedisCache<String, Item> cache = stowage.cache("stageLoad", Item.class).layout(layout).build();
    AtomicInteger calls = new AtomicInteger();
    CompletableFuture<Item> database = new CompletableFuture<>();
    Function<String, CompletableFuture<Item>> loader =
        key -> {
          calls.incrementAndGet();
          return database;
        };

    List<CompletableFuture<Item>> futures = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      futures.add(cache.async().getOrLoadAsync("k", loader));
    }
    await("the loader is called").atMost(WAIT).until(() -> calls.get() == 1);
    assertThat(futures).noneMatch(CompletableFuture::isDone);
    assertThat(cache.exists("k")).as("nothing stored before the stage completes").isFalse();

    database.complete(Samples.item(4));

    assertThat(futures).allSatisfy(future -> assertThat(future.join()).isEqualTo(Samples.item(4)));
    assertThat(calls).hasValue(1);
    assertThat(cache.stats().loads()).isEqualTo(1);
    assertThat(cache.get("k")).as("stored").isEqualTo(Samples.item(4));
    assertThat(RedisCacheIntegrationTests.pttl(redis, cache.redisKey("k"))).isPositive();
    assertThat(
            cache
                .async()
                .getOrLoadAsync(
                    "k",
                    key -> {
                      throw new AssertionError("a stored value is not loaded again");
                    })
                .join())
        .isEqualTo(Samples.item(4));
  }

  @Test
  void aFailedStageOrNoStageFailsTheCallersAndStoresNothing() {
    RedisCache<String, Item> cache = stowage.cache("stageFail", Item.class).layout(layout).build();

    CompletableFuture<Item> failed =
        cache
            .async()
            .getOrLoadAsync(
                "k",
                key ->
                    CompletableFuture.failedFuture(
                        new IllegalStateException("database down for " + key)));
    assertThatThrownBy(failed::join)
        .hasCauseInstanceOf(IllegalStateException.class)
        .hasMessageContaining("database down for k");
    CompletableFuture<Item> none = cache.async().getOrLoadAsync("k", key -> null);
    assertThatThrownBy(none::join)
        .hasCauseInstanceOf(NullPointerException.class)
        .hasMessageContaining(
            "cache 'stageFail': the loader of stageFail:k returned null instead of a stage");

    assertThat(cache.exists("k")).isFalse();
    assertThat(cache.stats().loadFailures()).isEqualTo(2);
    assertThat(
            cache
                .async()
                .getOrLoadAsync("k", key -> CompletableFuture.completedFuture(Samples.item(5)))
                .join())
        .as("the next call loads again")
        .isEqualTo(Samples.item(5));
  }

  @Test
  void aLoaderReturningNullStoresNothing() {
    RedisCache<String, Item> cache = stowage.cache("nulls", Item.class).layout(layout).build();
    assertThat(cache.getOrLoad("k", key -> null)).isNull();
    assertThat(cache.exists("k")).isFalse();
    assertThat(cache.stats().loads()).isEqualTo(1);
  }

  @Test
  void bulkLoadsAskForTheMissesOnceAndStoreThem(RedisServer redis) {
    RedisCache<String, Item> cache =
        stowage.cache("bulkLoad", Item.class).layout(layout).chunkSize(3).build();
    cache.put("1", Samples.item(1));
    cache.put("3", Samples.item(3));
    List<Set<String>> asked = new CopyOnWriteArrayList<>();
    Function<Set<String>, Map<String, Item>> loader =
        keys -> {
          asked.add(Set.copyOf(keys));
          Map<String, Item> found = new HashMap<>();
          for (String key : keys) {
            if (!key.equals("5")) {
              found.put(key, Samples.item(Long.parseLong(key)));
            }
          }
          return found;
        };

    Map<String, Item> result =
        cache.getAllOrLoad(List.of("1", "2", "3", "4", "5", "6", "2"), loader);

    assertThat(asked).containsExactly(Set.of("2", "4", "5", "6"));
    assertThat(result.keySet()).containsExactly("1", "2", "3", "4", "6");
    assertThat(result.get("4")).isEqualTo(Samples.item(4));
    assertThat(RedisCacheIntegrationTests.pttl(redis, cache.redisKey("4"))).isPositive();
    assertThat(cache.exists("5")).isFalse();

    assertThat(cache.getAllOrLoad(List.of("1", "2", "4"), loader)).hasSize(3);
    assertThat(cache.async().getAllOrLoad(List.of("6", "7"), loader).join())
        .containsOnlyKeys("6", "7");
    assertThat(asked).hasSize(2);
    assertThat(asked.get(1)).isEqualTo(Set.of("7"));
  }

  @Test
  void concurrentBulkLoadsOfOverlappingKeysLoadEachKeyOnce() throws Exception {
    RedisCache<String, Item> cache = stowage.cache("bulkRace", Item.class).layout(layout).build();
    Map<String, AtomicInteger> loadsPerKey = new ConcurrentHashMap<>();
    List<Object> outcomes =
        together(
            20,
            () ->
                cache.getAllOrLoad(
                    List.of("a", "b", "c"),
                    keys -> {
                      awaitMisses(() -> cache.stats().misses(), 20 * 3);
                      Map<String, Item> loaded = new HashMap<>();
                      for (String key : keys) {
                        loadsPerKey
                            .computeIfAbsent(key, k -> new AtomicInteger())
                            .incrementAndGet();
                        loaded.put(key, Samples.item(key.charAt(0)));
                      }
                      return loaded;
                    }));

    assertThat(outcomes)
        .allSatisfy(
            outcome ->
                assertThat(outcome)
                    .isInstanceOf(Map.class)
                    .asInstanceOf(InstanceOfAssertFactories.MAP)
                    .hasSize(3));
    assertThat(loadsPerKey).containsOnlyKeys("a", "b", "c");
    assertThat(loadsPerKey.values()).allSatisfy(count -> assertThat(count).hasValue(1));
  }

  @Test
  void theDistributedLockSharesOneLoadAcrossTwoStowages(RedisServer redis) throws Exception {
    RedisCache<String, Item> first =
        stowage
            .cache("shared", Item.class)
            .layout(layout)
            .distributedLoadLock(Duration.ofSeconds(5))
            .build();
    RedisCache<String, Item> second =
        other
            .cache("shared", Item.class)
            .layout(layout)
            .distributedLoadLock(Duration.ofSeconds(5))
            .build();
    AtomicInteger calls = new AtomicInteger();
    Item value = Samples.item(9);

    Function<String, Item> loader =
        loaderAfterMisses(calls, value, () -> first.stats().misses() + second.stats().misses(), 40);

    AtomicInteger turn = new AtomicInteger();
    List<Object> outcomes =
        together(
            40, () -> (turn.incrementAndGet() % 2 == 0 ? first : second).getOrLoad("k", loader));

    assertThat(outcomes).hasSize(40).containsOnly(value);
    assertThat(calls).hasValue(1);
    assertThat(redis.command("EXISTS", "stowage:lock:shared:k")).as("released").isEqualTo(":0");
  }

  @Test
  void withoutTheLockTwoStowagesLoadTwice() throws Exception {
    RedisCache<String, Item> first = stowage.cache("unshared", Item.class).layout(layout).build();
    RedisCache<String, Item> second = other.cache("unshared", Item.class).layout(layout).build();
    AtomicInteger calls = new AtomicInteger();
    CountDownLatch both = new CountDownLatch(2);
    Function<String, Item> loader =
        key -> {
          calls.incrementAndGet();
          both.countDown();
          try {
            both.await(5, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          return Samples.item(1);
        };
    Future<Item> a = threads.submit(() -> first.getOrLoad("k", loader));
    Future<Item> b = threads.submit(() -> second.getOrLoad("k", loader));
    assertThat(a.get(10, TimeUnit.SECONDS)).isEqualTo(b.get(10, TimeUnit.SECONDS));
    assertThat(calls).as("the control for the test above").hasValue(2);
  }

  @Test
  void aLockLeftByAnotherProcessIsWaitedForThenIgnored(RedisServer redis) {
    RedisCache<String, Item> cache =
        stowage
            .cache("stale", Item.class)
            .layout(layout)
            .distributedLoadLock(Duration.ofMillis(400))
            .build();
    assertThat(redis.command("SET", "stowage:lock:stale:k", "someone-else", "PX", "60000"))
        .isEqualTo("+OK");

    long start = System.nanoTime();
    assertThat(cache.getOrLoad("k", key -> Samples.item(4))).isEqualTo(Samples.item(4));
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

    assertThat(waited).isBetween(350L, 5000L);
    assertThat(redis.command("EXISTS", "stowage:lock:stale:k"))
        .as("another holder's lock is not released")
        .isEqualTo(":1");
  }

  @Test
  void aWaiterTakesTheValueTheLockHolderStores(RedisServer redis) throws Exception {
    RedisCache<String, Item> cache =
        stowage
            .cache("holder", Item.class)
            .layout(layout)
            .distributedLoadLock(Duration.ofSeconds(5))
            .build();
    assertThat(redis.command("SET", "stowage:lock:holder:k", "someone-else", "PX", "5000"))
        .isEqualTo("+OK");
    AtomicInteger calls = new AtomicInteger();
    Future<Item> waiter =
        threads.submit(
            () ->
                cache.getOrLoad(
                    "k",
                    key -> {
                      calls.incrementAndGet();
                      return Samples.item(0);
                    }));
    // The waiter read the key and missed: it goes on to the lock, which another process holds.
    await().atMost(WAIT).until(() -> cache.stats().misses() == 1);
    other.cache("holder", Item.class).layout(layout).build().put("k", Samples.item(5));

    assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(Samples.item(5));
    assertThat(calls).hasValue(0);
  }

  @Test
  void callersWaitingForAnotherProcessesLoadsHoldNoThread(RedisServer redis) throws Exception {
    ExecutorService two = Executors.newFixedThreadPool(2);
    try {
      RedisCache<String, Item> cache =
          stowage
              .cache("waiters", Item.class)
              .layout(layout)
              .distributedLoadLock(Duration.ofSeconds(30))
              .loadExecutor(two)
              .build();
      int keys = 200;
      for (int i = 0; i < keys; i++) {
        assertThat(redis.command("SET", "stowage:lock:waiters:" + i, "someone-else", "PX", "30000"))
            .isEqualTo("+OK");
      }
      AtomicInteger calls = new AtomicInteger();
      List<CompletableFuture<Item>> waiting = new ArrayList<>();
      for (int i = 0; i < keys; i++) {
        waiting.add(
            cache
                .async()
                .getOrLoad(
                    Integer.toString(i),
                    key -> {
                      calls.incrementAndGet();
                      return Samples.item(-1);
                    }));
      }
      await().atMost(WAIT).until(() -> cache.stats().misses() == keys);

      // Every caller waits for another process's load, and the two load threads stay free.
      assertThat(CompletableFuture.supplyAsync(() -> "free", two).get(5, TimeUnit.SECONDS))
          .isEqualTo("free");
      assertThat(waiting).noneMatch(CompletableFuture::isDone);

      RedisCache<String, Item> holder = other.cache("waiters", Item.class).layout(layout).build();
      for (int i = 0; i < keys; i++) {
        holder.put(Integer.toString(i), Samples.item(i));
        redis.command("DEL", "stowage:lock:waiters:" + i);
      }
      for (int i = 0; i < keys; i++) {
        assertThat(waiting.get(i).get(10, TimeUnit.SECONDS)).isEqualTo(Samples.item(i));
      }
      assertThat(calls).hasValue(0);
    } finally {
      two.shutdownNow();
    }
  }
}
