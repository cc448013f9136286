package dev.stowage.packed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheLayout;
import dev.stowage.CacheStats;
import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packed layout on a real server: entries as fields of hashes, read and written in bulk per
 * bucket.
 */
@WithRedis
class PackedCacheIntegrationTests {
  private static Stowage stowage;

  /** A small value. */
  record Entry(String key, long n) {}

  @BeforeAll
  static void connect(RedisServer redis) {
    stowage = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterAll
  static void close() {
    stowage.close();
  }

  private static Map<String, Entry> entries(int n) {
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      entries.put("k" + i, new Entry("k" + i, i));
    }
    return entries;
  }

  private static Set<String> bucketsOf(RedisCache<String, ?> cache, Iterable<String> keys) {
    Set<String> buckets = new HashSet<>();
    keys.forEach(key -> buckets.add(cache.redisKey(key)));
    return buckets;
  }

  @Test
  void aValueIsAFieldOfItsBucketWhichStaysAListpackWithTheCachesTtl(RedisServer redis) {
    RedisCache<String, Entry> cache =
        stowage.cache("packed-one", Entry.class).layout(CacheLayout.packedBuckets(8)).build();
    Entry entry = new Entry("a", 1);

    assertThat(cache.get("a")).isNull();
    assertThat(cache.exists("a")).isFalse();
    cache.put("a", entry);

    int bucket = CacheLayout.packedBuckets(8).bucketOf("a");
    assertThat(cache.redisKey("a")).isEqualTo("packed-one:{" + bucket + "}");
    assertThat(redis.reply("TYPE", cache.redisKey("a"))).isEqualTo("hash");
    assertThat(redis.reply("HEXISTS", cache.redisKey("a"), "a")).isEqualTo(1L);
    assertThat(redis.reply("OBJECT", "ENCODING", cache.redisKey("a"))).isEqualTo("listpack");
    assertThat(redis.reply("EXISTS", "packed-one:a")).as("no key per value").isEqualTo(0L);
    assertThat((Long) redis.reply("PTTL", cache.redisKey("a")))
        .as("the bucket takes the default TTL, jittered")
        .isBetween(Duration.ofMinutes(53).toMillis(), Duration.ofHours(1).toMillis());
    assertThat(cache.get("a")).isEqualTo(entry);
    assertThat(cache.exists("a")).isTrue();

    Entry replaced = new Entry("a", 2);
    cache.put("a", replaced);
    assertThat(cache.get("a")).isEqualTo(replaced);
    assertThat(redis.reply("HLEN", cache.redisKey("a"))).isEqualTo(1L);

    assertThat(cache.delete("a")).isTrue();
    assertThat(cache.delete("a")).isFalse();
    assertThat(cache.get("a")).isNull();
    CacheStats stats = cache.stats();
    assertThat(stats.hits()).isEqualTo(2);
    assertThat(stats.misses()).isEqualTo(2);
    assertThat(stats.puts()).isEqualTo(2);
    assertThat(stats.deletes()).isEqualTo(1);
    assertThat(stats.oversizedValues()).isZero();
  }

  @Test
  void aBucketsTtlOnlyShortensToTheNewestEntrysAndNoExpiryGivesNone(RedisServer redis) {
    RedisCache<String, Entry> timed =
        stowage
            .cache("packed-ttl", Entry.class)
            .layout(CacheLayout.packedBuckets(1))
            .ttl(Duration.ofMinutes(10))
            .ttlJitter(0)
            .build();
    timed.put("a", new Entry("a", 1));
    redis.command("PEXPIRE", timed.redisKey("a"), "5000000");
    timed.put("c", new Entry("c", 3));
    assertThat((Long) redis.reply("PTTL", timed.redisKey("a")))
        .as("LT: a write shortens a longer TTL to its own")
        .isBetween(Duration.ofMinutes(10).toMillis() - 60_000, Duration.ofMinutes(10).toMillis());
    redis.command("PEXPIRE", timed.redisKey("a"), "60000");
    timed.putAll(Map.of("b", new Entry("b", 2)));
    timed.put("c", new Entry("c", 4));
    assertThat((Long) redis.reply("PTTL", timed.redisKey("a")))
        .as("LT: a later write leaves a shorter TTL")
        .isBetween(1L, 60_000L);
    redis.command("PERSIST", timed.redisKey("a"));
    timed.putAll(Map.of("b", new Entry("b", 5)));
    assertThat((Long) redis.reply("PTTL", timed.redisKey("a")))
        .as("a bucket without a TTL takes the cache's")
        .isBetween(Duration.ofMinutes(10).toMillis() - 60_000, Duration.ofMinutes(10).toMillis());

    RedisCache<String, Entry> forever =
        stowage
            .cache("packed-forever", Entry.class)
            .layout(CacheLayout.packedBuckets(1))
            .noExpiry()
            .build();
    forever.putAll(Map.of("a", new Entry("a", 1)));
    assertThat(redis.reply("PTTL", forever.redisKey("a"))).isEqualTo(-1L);
  }

  @Test
  void afterADeployShortensTheTtlNewEntriesExpireWithTheNewTtl(RedisServer redis) {
    RedisCache<String, Entry> before =
        stowage
            .cache("packed-deploy", Entry.class)
            .layout(CacheLayout.packedBuckets(2))
            .ttl(Duration.ofHours(1))
            .build();
    before.putAll(entries(20));
    Set<String> buckets = bucketsOf(before, entries(20).keySet());
    assertThat(buckets).hasSize(2);
    for (String bucket : buckets) {
      assertThat((Long) redis.reply("PTTL", bucket))
          .isGreaterThan(Duration.ofMinutes(50).toMillis());
    }

    // The next version of the application, in another process, with a TTL of 2 s.
    try (Stowage deployed = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, Entry> after =
          deployed
              .cache("packed-deploy", Entry.class)
              .layout(CacheLayout.packedBuckets(2))
              .ttl(Duration.ofSeconds(2))
              .build();
      String single = "single";
      after.put(single, new Entry(single, 1));
      assertThat((Long) redis.reply("PTTL", after.redisKey(single)))
          .as("put")
          .isBetween(1L, 2_000L);
      Map<String, Entry> fresh = new LinkedHashMap<>();
      for (int i = 0; i < 10; i++) {
        fresh.put("new" + i, new Entry("new" + i, i));
      }
      after.putAll(fresh);
      for (String bucket : bucketsOf(after, fresh.keySet())) {
        assertThat((Long) redis.reply("PTTL", bucket))
            .as("putAll into %s", bucket)
            .isBetween(1L, 2_000L);
      }
      after.getOrLoad("loaded", key -> new Entry(key, 7));
      assertThat((Long) redis.reply("PTTL", after.redisKey("loaded")))
          .as("getOrLoad")
          .isBetween(1L, 2_000L);
      // Every bucket expires within the new TTL of its last write (and a scheduling margin), not an
      // hour later.
      await()
          .atMost(Duration.ofSeconds(4))
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  !after.exists(single)
                      && !after.exists("loaded")
                      && after.getAll(fresh.keySet()).isEmpty());
    }
  }

  @Test
  void bulkOperationsAcrossManyBucketsSendOneCommandPerBucket(RedisServer redis) {
    RedisCache<String, Entry> cache =
        stowage
            .cache("packed-bulk", Entry.class)
            .layout(CacheLayout.packed(3_000))
            .chunkSize(500)
            .noExpiry()
            .build();
    Map<String, Entry> entries = entries(3_000);
    Set<String> buckets = bucketsOf(cache, entries.keySet());
    assertThat(buckets).hasSize(47);

    redis.command("CONFIG", "RESETSTAT");
    cache.putAll(entries);
    assertThat(callsOf(redis, "hset")).as("one HSET per bucket and batch").isEqualTo(47);
    long fields = 0;
    for (String bucket : buckets) {
      assertThat(redis.reply("OBJECT", "ENCODING", bucket)).isEqualTo("listpack");
      fields += (Long) redis.reply("HLEN", bucket);
    }
    assertThat(fields).isEqualTo(3_000);

    List<String> asked = new ArrayList<>(entries.keySet());
    asked.add(2, "missing-1");
    asked.add("missing-2");
    asked.add("k5");
    redis.command("CONFIG", "RESETSTAT");
    Map<String, Entry> read = cache.getAll(asked);
    assertThat(read).containsExactlyEntriesOf(entries);
    assertThat(callsOf(redis, "hmget")).isEqualTo(47);

    List<String> half =
        entries.keySet().stream().filter(k -> Integer.parseInt(k.substring(1)) % 2 == 0).toList();
    assertThat(cache.deleteAll(half)).isEqualTo(1_500);
    assertThat(cache.deleteAll(half)).isZero();
    Map<String, Entry> rest = new LinkedHashMap<>(entries);
    half.forEach(rest::remove);
    assertThat(cache.getAll(entries.keySet())).containsExactlyEntriesOf(rest);

    Map<String, Entry> changed = new LinkedHashMap<>();
    rest.keySet().stream().limit(100).forEach(k -> changed.put(k, new Entry(k, -1)));
    cache.putAll(changed);
    assertThat(cache.getAll(changed.keySet())).isEqualTo(changed);
    assertThat(cache.stats().puts()).isEqualTo(3_100);
    assertThat(cache.stats().hits()).isEqualTo(3_000 + 1_500 + 100);

    assertThat(cache.clear()).as("clear removes the buckets").isEqualTo(buckets.size());
    assertThat(cache.getAll(entries.keySet())).isEmpty();
  }

  @Test
  void eachWriteGivesItsBucketAJitteredTtlWithinItsRange(RedisServer redis) {
    RedisCache<String, Entry> cache =
        stowage
            .cache("packed-jitter", Entry.class)
            .layout(CacheLayout.packedBuckets(64))
            .ttl(Duration.ofSeconds(100))
            .ttlJitter(0.5)
            .chunkSize(100)
            .build();
    Map<String, Entry> entries = entries(300);
    cache.putAll(entries);
    cache.put("single", new Entry("single", 1));

    List<Long> ttls = new ArrayList<>();
    for (String bucket : bucketsOf(cache, entries.keySet())) {
      ttls.add((Long) redis.reply("PTTL", bucket));
    }
    // A bucket keeps the shortest of the jittered TTLs its writes gave it (PEXPIRE LT).
    assertThat(ttls)
        .hasSize(64)
        .allSatisfy(millis -> assertThat(millis).isBetween(49_000L, 100_000L));
    long min = ttls.stream().mapToLong(Long::longValue).min().orElseThrow();
    long max = ttls.stream().mapToLong(Long::longValue).max().orElseThrow();
    assertThat(max - min).as("the buckets' TTLs spread over the range").isGreaterThan(10_000L);
    assertThat(ttls.stream().distinct().count()).isGreaterThan(32);
  }

  @Test
  void clearRemovesThousandsOfBucketsPageByPageAndNoOtherCachesBuckets(RedisServer redis) {
    RedisCache<String, Entry> many =
        stowage
            .cache("packed-many", Entry.class)
            .layout(CacheLayout.packedBuckets(5_000))
            .chunkSize(500)
            .build();
    RedisCache<String, Entry> kept =
        stowage.cache("packed-kept", Entry.class).layout(CacheLayout.packedBuckets(4)).build();
    Map<String, Entry> entries = entries(12_345);
    many.putAll(entries);
    kept.putAll(entries(10));
    Set<String> buckets = bucketsOf(many, entries.keySet());
    assertThat(buckets).hasSizeGreaterThan(4_000);

    redis.command("CONFIG", "RESETSTAT");
    assertThat(many.async().clear().join()).isEqualTo(buckets.size());

    assertThat(callsOf(redis, "unlink")).as("one UNLINK per page of 500").isGreaterThan(1);
    assertThat(many.getAll(entries.keySet())).isEmpty();
    assertThat(kept.getAll(entries(10).keySet())).hasSize(10);
  }

  private static long callsOf(RedisServer redis, String command) {
    String info = (String) redis.reply("INFO", "commandstats");
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_" + command + ":calls=")) {
        return Long.parseLong(line.substring(line.indexOf('=') + 1, line.indexOf(',')));
      }
    }
    return 0;
  }

  @Test
  void aValueLongerThanTheListpackLimitIsCountedAndMakesItsBucketAHashtable(RedisServer redis) {
    RedisCache<String, String> cache =
        stowage.cache("packed-big", String.class).layout(CacheLayout.packedBuckets(2)).build();
    StringBuilder random = new StringBuilder();
    for (int i = 0; i < 6; i++) {
      random.append(UUID.randomUUID());
    }
    cache.put("small", "s");
    assertThat(cache.stats().oversizedValues()).isZero();
    cache.put("big", random.toString());

    assertThat(cache.get("big")).isEqualTo(random.toString());
    assertThat(cache.stats().oversizedValues()).isEqualTo(1);
    assertThat(redis.reply("OBJECT", "ENCODING", cache.redisKey("big"))).isEqualTo("hashtable");
  }

  @Test
  void aValueThatCannotBeDecodedIsAMissAndABucketOfAnotherTypeToo(RedisServer redis) {
    RedisCache<String, Entry> cache =
        stowage.cache("packed-bad", Entry.class).layout(CacheLayout.packedBuckets(64)).build();
    cache.putAll(entries(200));
    redis.command("HSET", cache.redisKey("k1"), "k1", "not an envelope");
    String otherBucketKey = "k2";
    for (int i = 3; cache.redisKey(otherBucketKey).equals(cache.redisKey("k1")); i++) {
      otherBucketKey = "k" + i;
    }
    String stringBucket = cache.redisKey(otherBucketKey);
    redis.command("DEL", stringBucket);
    redis.command("SET", stringBucket, "a string, not a hash");

    assertThat(cache.get("k1")).isNull();
    assertThat(cache.get(otherBucketKey)).isNull();
    Map<String, Entry> read = cache.getAll(entries(200).keySet());
    assertThat(read)
        .doesNotContainKeys("k1", otherBucketKey)
        .containsEntry("k0", new Entry("k0", 0));
    CacheStats stats = cache.stats();
    assertThat(stats.decodeFailures())
        .as("k1 twice, and every key of the string bucket read")
        .isGreaterThanOrEqualTo(4);
    assertThat(stats.misses()).isEqualTo(stats.decodeFailures());
    assertThat(stats.hits()).isEqualTo(read.size());
  }

  @Test
  void loadsAreStoredInTheBucketsAndSharedWithinTheProcess() {
    RedisCache<String, Entry> cache =
        stowage.cache("packed-load", Entry.class).layout(CacheLayout.packedBuckets(4)).build();
    AtomicInteger calls = new AtomicInteger();
    Function<String, Entry> loader =
        key -> {
          calls.incrementAndGet();
          return new Entry(key, 7);
        };
    assertThat(cache.getOrLoad("x", loader)).isEqualTo(new Entry("x", 7));
    assertThat(cache.getOrLoad("x", loader)).isEqualTo(new Entry("x", 7));
    assertThat(calls).hasValue(1);
    assertThat(cache.getOrLoad("none", key -> null)).isNull();
    assertThat(cache.exists("none")).isFalse();

    AtomicInteger bulkCalls = new AtomicInteger();
    Map<String, Entry> all =
        cache.getAllOrLoad(
            List.of("x", "y", "z", "gone"),
            missing -> {
              bulkCalls.incrementAndGet();
              assertThat(missing).containsExactly("y", "z", "gone");
              Map<String, Entry> loaded = new LinkedHashMap<>();
              loaded.put("y", new Entry("y", 8));
              loaded.put("z", new Entry("z", 9));
              return loaded;
            });
    assertThat(all)
        .containsExactly(
            Map.entry("x", new Entry("x", 7)),
            Map.entry("y", new Entry("y", 8)),
            Map.entry("z", new Entry("z", 9)));
    assertThat(cache.getAll(List.of("y", "z"))).hasSize(2);
    assertThat(bulkCalls).hasValue(1);
    assertThat(cache.stats().loads()).isEqualTo(3);
  }

  @Test
  void anAbsentMarkerIsAFieldOfItsBucketAndShortensTheBucketsTtlToTheAbsentTtl(RedisServer redis) {
    RedisCache<String, Entry> cache =
        stowage
            .cache("packed-absent", Entry.class)
            .layout(CacheLayout.packedBuckets(1))
            .ttl(Duration.ofHours(1))
            .cacheAbsent(Duration.ofSeconds(30))
            .build();
    cache.put("present", new Entry("present", 1));
    AtomicInteger calls = new AtomicInteger();

    assertThat(cache.getOrLoad("none", key -> countedNull(calls))).isNull();
    assertThat(cache.getOrLoad("none", key -> countedNull(calls))).isNull();

    assertThat(calls).as("the marker answers the second call").hasValue(1);
    assertThat(cache.stats().absentHits()).isEqualTo(1);
    assertThat(redis.reply("HEXISTS", cache.redisKey("none"), "none")).isEqualTo(1L);
    assertThat((Long) redis.reply("PTTL", cache.redisKey("none")))
        .as("no marker outlives the absent TTL; the bucket's entries expire with it")
        .isBetween(1L, 30_000L);
    assertThat(cache.get("present")).isEqualTo(new Entry("present", 1));
  }

  private static @Nullable Entry countedNull(AtomicInteger calls) {
    calls.incrementAndGet();
    return null;
  }

  @Test
  void aWriteInAnotherProcessDropsTheNearCopiesOfItsWholeBucket(RedisServer redis) {
    try (Stowage readerProcess = Stowage.builder().redis(redis.uri()).build();
        Stowage writerProcess = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, Entry> reader =
          readerProcess
              .cache("packed-near", Entry.class)
              .layout(CacheLayout.packedBuckets(1))
              .nearCache(NearCache.defaults())
              .build();
      RedisCache<String, Entry> writer =
          writerProcess
              .cache("packed-near", Entry.class)
              .layout(CacheLayout.packedBuckets(1))
              .build();
      writer.putAll(Map.of("a", new Entry("a", 1), "b", new Entry("b", 2)));
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () -> {
                long before = reader.stats().nearHits();
                assertThat(reader.getAll(List.of("a", "b"))).hasSize(2);
                assertThat(reader.get("a")).isEqualTo(new Entry("a", 1));
                assertThat(reader.get("b")).isEqualTo(new Entry("b", 2));
                assertThat(reader.stats().nearHits())
                    .as("both kept once tracked")
                    .isEqualTo(before + 2);
              });

      writer.put("a", new Entry("a", 10));

      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(() -> assertThat(reader.get("a")).isEqualTo(new Entry("a", 10)));
      long nearMisses = reader.stats().nearMisses();
      assertThat(reader.get("b")).isEqualTo(new Entry("b", 2));
      assertThat(reader.stats().nearMisses())
          .as("b shares a's bucket: its copy went with the bucket's invalidation")
          .isGreaterThan(nearMisses);
    }
  }

  @Test
  void theLayoutIsRequired() {
    assertThatThrownBy(() -> stowage.cache("packed-refused", Entry.class).layout(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("layout");
  }
}
