package dev.stowage.nearcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheLayout;
import dev.stowage.CacheStats;
import dev.stowage.Feed;
import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.cache.EveryLayout;
import dev.stowage.cache.StoredEntries;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.params.Parameter;

/**
 * The near cache of caches and feeds against a real Redis: values kept while Redis says they are
 * unchanged, dropped when another client writes, and never served stale once the invalidation has
 * arrived, whatever the reads and writes race.
 */
@WithRedis
@EveryLayout
@Isolated("It captures the dev.stowage.nearcache logger, where other classes' near caches log too.")
class NearCacheIntegrationTests {
  @Parameter CacheLayout layout;

  private Stowage readerProcess;
  private Stowage writerProcess;

  @BeforeEach
  void connect(RedisServer redis) {
    redis.flushAll();
    readerProcess = Stowage.builder().redis(redis.uri()).build();
    writerProcess = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterEach
  void close() {
    readerProcess.close();
    writerProcess.close();
  }

  private RedisCache<String, Item> nearItems(Stowage stowage, NearCache options) {
    return stowage.cache("items", Item.class).layout(layout).nearCache(options).build();
  }

  private RedisCache<String, Item> plainItems(Stowage stowage) {
    return stowage.cache("items", Item.class).layout(layout).build();
  }

  private static Item version(long key, int version) {
    return new Item(key, "item " + key, "version " + version, version, version);
  }

  @Test
  void aValueReadOnceIsAnsweredInTheProcessUntilAnotherClientWritesIt() {
    RedisCache<String, Item> reader = nearItems(readerProcess, NearCache.maximumSize(100));
    RedisCache<String, Item> writer = plainItems(writerProcess);
    writer.put("1", version(1, 1));

    awaitTracking(reader);
    long before = reader.stats().nearHits();
    assertThat(reader.get("1")).isEqualTo(version(1, 1));
    for (int i = 0; i < 10; i++) {
      assertThat(reader.get("1")).isEqualTo(version(1, 1));
    }
    assertThat(reader.stats().nearHits() - before).isEqualTo(10);

    writer.put("1", version(1, 2));
    await().atMost(Duration.ofSeconds(5)).until(() -> version(1, 2).equals(reader.get("1")));
    writer.delete("1");
    await().atMost(Duration.ofSeconds(5)).until(() -> reader.get("1") == null);
  }

  @Test
  void theProcessesOwnWritesDropTheLocalCopyBeforeTheyReturn() {
    RedisCache<String, Item> cache = nearItems(readerProcess, NearCache.defaults());
    awaitTracking(cache);
    cache.put("1", version(1, 1));
    assertThat(cache.get("1")).isEqualTo(version(1, 1));
    assertThat(cache.get("1")).isEqualTo(version(1, 1));

    cache.put("1", version(1, 2));
    assertThat(cache.get("1")).isEqualTo(version(1, 2));
    cache.putAll(Map.of("1", version(1, 3)));
    assertThat(cache.getAll(List.of("1"))).containsEntry("1", version(1, 3));
    cache.async().put("1", version(1, 4)).join();
    assertThat(cache.async().get("1").join()).isEqualTo(version(1, 4));
    cache.delete("1");
    assertThat(cache.get("1")).isNull();
  }

  @Test
  void getAllAndGetOrLoadUseTheNearCache() {
    RedisCache<String, Item> cache = nearItems(readerProcess, NearCache.maximumWeight(1 << 20));
    awaitTracking(cache);
    Map<String, Item> items = new LinkedHashMap<>();
    for (int i = 0; i < 20; i++) {
      items.put(Integer.toString(i), version(i, 1));
    }
    cache.putAll(items);
    CacheStats before = cache.stats();
    assertThat(cache.getAll(items.keySet())).isEqualTo(items);
    assertThat(cache.getAll(items.keySet())).isEqualTo(items);
    assertThat(cache.getOrLoad("3", id -> version(3, 99))).isEqualTo(version(3, 1));
    CacheStats stats = cache.stats();
    assertThat(stats.nearHits() - before.nearHits()).isEqualTo(21);
    assertThat(stats.hits() - before.hits()).isEqualTo(41);
  }

  @Test
  void aValueThatFailsToDecodeIsNeverKept(RedisServer redis) {
    RedisCache<String, Item> cache = nearItems(readerProcess, NearCache.defaults());
    awaitTracking(cache);
    StoredEntries.of(redis, layout, "items:")
        .set("bad", "not an envelope".getBytes(StandardCharsets.UTF_8));
    long before = cache.stats().nearHits();
    assertThat(cache.get("bad")).isNull();
    assertThat(cache.get("bad")).isNull();
    assertThat(cache.stats().decodeFailures()).isEqualTo(2);
    assertThat(cache.stats().nearHits()).isEqualTo(before);
  }

  @Test
  void broadcastModeDropsKeysWrittenUnderThePrefix() {
    RedisCache<String, Item> reader =
        nearItems(readerProcess, NearCache.maximumSize(100).broadcast());
    RedisCache<String, Item> writer = plainItems(writerProcess);
    writer.put("1", version(1, 1));
    awaitTracking(reader);
    long before = reader.stats().nearHits();
    assertThat(reader.get("1")).isEqualTo(version(1, 1));
    assertThat(reader.get("1")).isEqualTo(version(1, 1));
    assertThat(reader.stats().nearHits() - before).isEqualTo(1);

    writer.put("1", version(1, 2));
    await().atMost(Duration.ofSeconds(5)).until(() -> version(1, 2).equals(reader.get("1")));
  }

  @Test
  void anEntryExpiresAfterItsTimeLimit() {
    RedisCache<String, Item> cache =
        nearItems(
            readerProcess, NearCache.maximumSize(10).expireAfterWrite(Duration.ofMillis(200)));
    awaitTracking(cache);
    cache.put("1", version(1, 1));
    cache.get("1");
    long before = cache.stats().nearMisses();
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              cache.get("1");
              return cache.stats().nearMisses() > before;
            });
  }

  /**
   * Readers race a writer on another connection. The writer writes a new version, waits until the
   * reading process shows it (the invalidation has arrived), and only then raises the key's floor;
   * every read that starts after that must see at least the floor.
   */
  @Test
  void noReadSeesAnOldValueOnceTheInvalidationHasArrived() throws Exception {
    int keys = 200;
    RedisCache<String, Item> reader = nearItems(readerProcess, NearCache.maximumSize(1000));
    RedisCache<String, Item> writer = plainItems(writerProcess);
    Map<String, Item> first = new LinkedHashMap<>();
    for (int k = 0; k < keys; k++) {
      first.put(Integer.toString(k), version(k, 0));
    }
    writer.putAll(first);
    awaitTracking(reader);

    AtomicLongArray floor = new AtomicLongArray(keys);
    AtomicLong reads = new AtomicLong();
    AtomicLong stale = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> readers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      readers.add(
          pool.submit(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get()) {
                  int k =
                      random.nextInt(keys) < keys / 2 ? random.nextInt(10) : random.nextInt(keys);
                  long expected = floor.get(k);
                  Item item =
                      random.nextBoolean()
                          ? reader.get(Integer.toString(k))
                          : reader.getAll(List.of(Integer.toString(k))).get(Integer.toString(k));
                  if (item == null || item.price() < expected) {
                    stale.incrementAndGet();
                  }
                  reads.incrementAndGet();
                }
              }));
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int version = 0;
    while ((reads.get() < 100_000 || version < 300) && System.nanoTime() < deadline) {
      version++;
      int k = ThreadLocalRandom.current().nextInt(10);
      String key = Integer.toString(k);
      Item next = version(k, version);
      writer.put(key, next);
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(1))
          .until(() -> next.equals(reader.get(key)));
      floor.set(k, version);
    }
    stop.set(true);
    for (Future<?> future : readers) {
      future.get(10, TimeUnit.SECONDS);
    }
    pool.shutdown();

    assertThat(reads.get()).isGreaterThanOrEqualTo(100_000);
    assertThat(version).isGreaterThanOrEqualTo(300);
    assertThat(stale.get()).as("reads older than an invalidation already received").isZero();
    assertThat(reader.stats().nearHits())
        .as("the near cache answered most reads")
        .isGreaterThan(reads.get() / 2);
  }

  @Test
  @SuppressWarnings("ReferenceEquality") // the very page the near cache kept
  void aFeedKeepsPagesUntilTheFeedChanges() {
    Feed<Item> reader =
        readerProcess.feed("board", Item.class).nearCache(NearCache.maximumSize(50)).build();
    Feed<Item> writer = writerProcess.feed("board", Item.class).build();
    writer.addAll(Samples.items(30));

    // The same instance twice: the page is kept.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              List<Feed.Entry<Item>> first = reader.page(1, 10);
              return reader.page(1, 10) == first;
            });
    List<Feed.Entry<Item>> page = reader.page(1, 10);
    assertThat(reader.async().page(1, 10).join()).isSameAs(page);

    writer.add(version(99, 1));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> reader.page(1, 10).get(0).value().equals(version(99, 1)));

    reader.add(version(100, 1));
    assertThat(reader.page(1, 10).get(0).value())
        .as("own writes drop the pages before they return")
        .isEqualTo(version(100, 1));
  }

  @Test
  void aKilledConnectionAFlushAndARestartEmptyTheNearCache(RedisServer redis) {
    RedisCache<String, Item> reader = nearItems(readerProcess, NearCache.defaults());
    RedisCache<String, Item> writer = plainItems(writerProcess);
    writer.put("1", version(1, 1));
    awaitTracking(reader);
    assertThat(reader.get("1")).isEqualTo(version(1, 1));
    assertThat(reader.get("1")).isEqualTo(version(1, 1));

    redis.command("FLUSHALL");
    await().atMost(Duration.ofSeconds(5)).until(() -> reader.get("1") == null);

    writer.put("1", version(1, 2));
    awaitTracking(reader);
    assertThat(reader.get("1")).isEqualTo(version(1, 2));
    redis.command("CLIENT", "KILL", "TYPE", "normal");
    // The writer's own connection was killed too; once reconnected, its write must be seen.
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(
            () -> {
              writer.put("1", version(1, 3));
              return version(1, 3).equals(reader.get("1"));
            });

    redis.restart();
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> reader.get("1") == null);
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(
            () -> {
              writer.put("1", version(1, 4));
              return version(1, 4).equals(reader.get("1"));
            });
  }

  @Test
  void aServerThatRefusesResp3LeavesTheCacheWorkingWithoutTheNearCacheAndSaysSoOnce() {
    List<String> warnings = new CopyOnWriteArrayList<>();
    Logger log = Logger.getLogger("dev.stowage.nearcache");
    Handler capture =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            warnings.add(record.getMessage());
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    log.addHandler(capture);
    try (RedisServer old = RedisServer.start("--rename-command", "HELLO", "");
        Stowage stowage = Stowage.builder().redis(old.uri()).build()) {
      RedisCache<String, Item> cache =
          stowage.cache("items", Item.class).layout(layout).nearCache(NearCache.defaults()).build();
      RedisCache<String, Item> other =
          stowage
              .cache("others", Item.class)
              .layout(layout)
              .nearCache(NearCache.defaults())
              .build();
      cache.put("1", version(1, 1));
      assertThat(cache.get("1")).isEqualTo(version(1, 1));
      assertThat(cache.get("1")).isEqualTo(version(1, 1));
      assertThat(other.get("x")).isNull();
      assertThat(cache.stats().nearHits()).isZero();
      assertThat(cache.stats().hits()).isEqualTo(2);
    } finally {
      log.removeHandler(capture);
    }
    assertThat(warnings).hasSize(1);
    assertThat(warnings.get(0)).contains("near cache off").contains("RESP3");
  }

  /** Waits until a read of a fresh key is kept: the tracking connection is set up. */
  private static void awaitTracking(RedisCache<String, Item> cache) {
    TrackingProbe.awaitTracking(cache, version(-1, 0));
  }
}
