package dev.stowage.nearcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A near copy never outlives its key's time to live in Redis, whoever set it, although Redis tells
 * a tracking client of an expired key only once it removes it. The server here never removes an
 * expired key in the background ({@code DEBUG SET-ACTIVE-EXPIRE 0}), so no invalidation comes for
 * an expiry: only a read of the key removes it. And a tracking connection killed under a burst of
 * near-cache reads fails none of them while Redis is up.
 */
class NearCacheExpiryIntegrationTests {
  private static RedisServer redis;
  private Stowage readerProcess;
  private Stowage writerProcess;

  @BeforeAll
  static void start() {
    redis = RedisServer.start("--enable-debug-command", "yes");
    redis.command("DEBUG", "SET-ACTIVE-EXPIRE", "0");
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  @BeforeEach
  void connect() {
    redis.flushAll();
    readerProcess = Stowage.builder().redis(redis.uri()).build();
    writerProcess = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterEach
  void close() {
    readerProcess.close();
    writerProcess.close();
  }

  private static Item version(long key, int version) {
    return new Item(key, "item " + key, "version " + version, version, version);
  }

  private static List<String> keys(int n) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      keys.add(Integer.toString(i));
    }
    return keys;
  }

  /**
   * A cache with a TTL, with and without {@code expireAfterWrite}: its own writes (put and putAll)
   * read back through the near cache are kept, and are misses once the TTL has passed although the
   * keys are still in Redis.
   */
  @ParameterizedTest(name = "expireAfterWrite {0}")
  @ValueSource(booleans = {false, true})
  void aTtlCachesNearCopiesGoWhenTheirEntriesExpire(boolean expireAfterWrite) {
    NearCache near = NearCache.maximumSize(1000);
    RedisCache<String, Item> cache =
        readerProcess
            .cache("items", Item.class)
            .ttl(Duration.ofSeconds(1))
            .nearCache(expireAfterWrite ? near.expireAfterWrite(Duration.ofMinutes(5)) : near)
            .build();
    awaitTracking(cache);
    List<String> keys = keys(100);
    long written = System.nanoTime();
    Map<String, Item> half = new LinkedHashMap<>();
    for (String key : keys.subList(0, 50)) {
      cache.put(key, version(Long.parseLong(key), 1));
    }
    for (String key : keys.subList(50, 100)) {
      half.put(key, version(Long.parseLong(key), 1));
    }
    cache.putAll(half);
    long keysInRedis = (Long) redis.reply("DBSIZE");

    readAll(cache, keys);
    long hitsBefore = cache.stats().nearHits();
    assertThat(readAll(cache, keys)).as("values read before the TTL passed").isEqualTo(100);
    assertThat(cache.stats().nearHits() - hitsBefore).as("kept in the process").isEqualTo(100);

    sleepUntil(written + TimeUnit.MILLISECONDS.toNanos(1100));
    assertThat((Long) redis.reply("DBSIZE"))
        .as("Redis has not removed the expired keys")
        .isGreaterThanOrEqualTo(keysInRedis);
    assertThat(readAll(cache, keys)).as("expired values read").isZero();
    assertThat(readAll(cache, keys)).as("expired values read again").isZero();
  }

  /**
   * A cache without a TTL keeps a copy no longer than the TTL another process wrote the key with.
   */
  @Test
  void aKeyWrittenWithATtlByAnotherProcessIsKeptNoLongerThanThatTtl() {
    RedisCache<String, Item> reader =
        readerProcess.cache("items", Item.class).nearCache(NearCache.maximumSize(1000)).build();
    RedisCache<String, Item> writer =
        writerProcess.cache("items", Item.class).ttl(Duration.ofMillis(800)).ttlJitter(0).build();
    awaitTracking(reader);
    List<String> keys = keys(40);
    long written = System.nanoTime();
    for (String key : keys) {
      writer.put(key, version(Long.parseLong(key), 1));
    }
    readAll(reader, keys);
    long hitsBefore = reader.stats().nearHits();
    assertThat(readAll(reader, keys)).isEqualTo(40);
    assertThat(reader.stats().nearHits() - hitsBefore).as("kept in the process").isEqualTo(40);

    sleepUntil(written + TimeUnit.MILLISECONDS.toNanos(900));
    assertThat(readAll(reader, keys)).as("expired values read").isZero();
  }

  /**
   * Another client gives keys a PEXPIRE of 300 ms after they were written: the invalidation drops
   * the copies, the next read keeps them again, for at most the 300 ms left; no read that starts
   * after them finds a value.
   */
  @Test
  void aPexpireFromAnotherClientBoundsTheCopiesReadAfterIt() {
    RedisCache<String, Item> reader =
        readerProcess.cache("items", Item.class).nearCache(NearCache.maximumSize(1000)).build();
    RedisCache<String, Item> writer = writerProcess.cache("items", Item.class).build();
    awaitTracking(reader);
    long expired = 0;
    long latest = 0;
    long keptWhileAlive = 0;
    for (int round = 0; round < 3; round++) {
      List<String> keys = keys(20);
      for (String key : keys) {
        writer.put(key, version(Long.parseLong(key), round));
      }
      assertThat(readAll(reader, keys)).isEqualTo(20);
      // When each key has expired at the latest: 300 ms after its PEXPIRE was answered, and a
      // millisecond more, as Redis counts whole milliseconds (a key lives through the one its TTL
      // ends in), and one for the rounding of this clock against Redis's.
      long[] expiredBy = new long[keys.size()];
      for (int k = 0; k < keys.size(); k++) {
        redis.command("PEXPIRE", "items:" + keys.get(k), "300");
        expiredBy[k] = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(302);
      }
      long end = expiredBy[keys.size() - 1] + TimeUnit.MILLISECONDS.toNanos(300);
      long hitsBefore = reader.stats().nearHits();
      while (System.nanoTime() < end) {
        for (int k = 0; k < keys.size(); k++) {
          String key = keys.get(k);
          long started = System.nanoTime();
          Item item =
              ThreadLocalRandom.current().nextBoolean()
                  ? reader.get(key)
                  : reader.getAll(List.of(key)).get(key);
          if (item != null && started - expiredBy[k] > 0) {
            expired++;
            latest = Math.max(latest, started - expiredBy[k]);
          }
        }
      }
      keptWhileAlive += reader.stats().nearHits() - hitsBefore;
    }
    assertThat(expired)
        .as(
            "reads that found a value after its PEXPIRE had passed (the latest %d µs after)",
            TimeUnit.NANOSECONDS.toMicros(latest))
        .isZero();
    assertThat(keptWhileAlive).as("near hits while the keys lived").isPositive();
  }

  /** An EXPIRE or a PERSIST from another client drops the copy, in both tracking modes. */
  @ParameterizedTest(name = "broadcast {0}")
  @ValueSource(booleans = {false, true})
  void expireAndPersistFromAnotherClientDropTheCopy(boolean broadcast) {
    NearCache near = NearCache.maximumSize(100);
    RedisCache<String, Item> reader =
        readerProcess
            .cache("items", Item.class)
            .nearCache(broadcast ? near.broadcast() : near)
            .build();
    RedisCache<String, Item> writer = writerProcess.cache("items", Item.class).build();
    awaitTracking(reader);
    writer.put("1", version(1, 1));

    awaitKept(reader, "1");
    redis.command("EXPIRE", "items:1", "100");
    awaitDropped(reader, "1");

    awaitKept(reader, "1");
    redis.command("PERSIST", "items:1");
    awaitDropped(reader, "1");

    awaitKept(reader, "1");
    redis.command("PEXPIRE", "items:1", "1");
    await().atMost(Duration.ofSeconds(5)).until(() -> reader.get("1") == null);
  }

  /**
   * The tracking connection is killed over and over while 8 threads read through the near cache
   * (mostly misses, which go over that connection): no read fails, and every value read is right.
   */
  @Test
  void killingTheTrackingConnectionFailsNoReadInFlight() throws Exception {
    RedisCache<String, Item> reader =
        readerProcess.cache("items", Item.class).nearCache(NearCache.maximumSize(50)).build();
    RedisCache<String, Item> writer = writerProcess.cache("items", Item.class).build();
    int n = 2000;
    Map<String, Item> all = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      all.put(Integer.toString(i), version(i, 1));
    }
    writer.putAll(all);
    awaitTracking(reader);

    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong reads = new AtomicLong();
    AtomicLong wrong = new AtomicLong();
    AtomicLong failures = new AtomicLong();
    AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<Future<?>> readers = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      readers.add(
          pool.submit(
              () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                while (!stop.get()) {
                  String key = Integer.toString(random.nextInt(n));
                  try {
                    Item item;
                    if (random.nextBoolean()) {
                      item = reader.get(key);
                    } else {
                      String other = Integer.toString(random.nextInt(n));
                      Map<String, Item> found = reader.getAll(List.of(key, other));
                      item = found.get(key);
                      if (!all.get(other).equals(found.get(other))) {
                        wrong.incrementAndGet();
                      }
                    }
                    if (!all.get(key).equals(item)) {
                      wrong.incrementAndGet();
                    }
                  } catch (RuntimeException e) {
                    failures.incrementAndGet();
                    firstFailure.compareAndSet(null, e);
                  }
                  reads.incrementAndGet();
                }
              }));
    }
    int kills = 0;
    for (int i = 0; i < 8; i++) {
      // Each kill comes once the readers have gone on reading since the last one, and once a
      // tracking connection is there again to kill.
      awaitMoreReads(reads);
      Long id =
          await()
              .atMost(Duration.ofSeconds(5))
              .until(NearCacheExpiryIntegrationTests::trackingClientId, found -> found != null);
      redis.command("CLIENT", "KILL", "ID", Long.toString(id));
      kills++;
    }
    awaitMoreReads(reads);
    stop.set(true);
    for (Future<?> future : readers) {
      future.get(10, TimeUnit.SECONDS);
    }
    pool.shutdown();

    assertThat(kills).as("tracking connections killed").isGreaterThanOrEqualTo(4);
    assertThat(reads.get()).isGreaterThan(1000);
    assertThat(firstFailure.get()).as("the first failed read").isNull();
    assertThat(failures.get()).isZero();
    assertThat(wrong.get()).as("reads that found another value").isZero();
    awaitTracking(reader);
  }

  /**
   * The id of the reading process's tracking connection (the one client with the {@code t} flag),
   * or null.
   */
  private static Long trackingClientId() {
    String list = (String) redis.reply("CLIENT", "LIST");
    for (String line : list.split("\n")) {
      String id = null;
      boolean tracking = false;
      for (String field : line.trim().split(" ")) {
        if (field.startsWith("id=")) {
          id = field.substring(3);
        } else if (field.startsWith("flags=")) {
          tracking = field.substring(6).contains("t");
        }
      }
      if (tracking && id != null) {
        return Long.parseLong(id);
      }
    }
    return null;
  }

  /**
   * Reads every key, half one by one and half in one getAll; returns how many values were found.
   */
  private static int readAll(RedisCache<String, Item> cache, List<String> keys) {
    int found = 0;
    int half = keys.size() / 2;
    for (String key : keys.subList(0, half)) {
      if (cache.get(key) != null) {
        found++;
      }
    }
    found += cache.getAll(keys.subList(half, keys.size())).size();
    return found;
  }

  private static void awaitKept(RedisCache<String, Item> cache, String key) {
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              long before = cache.stats().nearHits();
              cache.get(key);
              return cache.get(key) != null && cache.stats().nearHits() > before;
            });
  }

  /** Waits until a read of {@code key} is a near miss: the invalidation has arrived. */
  private static void awaitDropped(RedisCache<String, Item> cache, String key) {
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              long before = cache.stats().nearMisses();
              cache.get(key);
              return cache.stats().nearMisses() > before;
            });
  }

  /** Waits until the readers have read a few hundred more times, whatever the machine's speed. */
  private static void awaitMoreReads(AtomicLong reads) {
    long from = reads.get();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> reads.get() >= from + 200);
  }

  private static void sleepUntil(long nanoTime) {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      try {
        TimeUnit.NANOSECONDS.sleep(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  /** Waits until a read of a fresh key is kept: the tracking connection is set up. */
  private static void awaitTracking(RedisCache<String, Item> cache) {
    TrackingProbe.awaitTracking(cache, version(-1, 0));
  }
}
