package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.Feed;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.StowageInternals;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Caches and feeds on a real three-master cluster: everything that works on one server, with bulk
 * operations sent one command per slot and chunk.
 */
@WithRedisCluster
class ClusterCacheIntegrationTests {
  private static final int KEYS = 20_000;

  private static Stowage stowage;
  private static Stowage other;

  /** A small value for the bulk tests, cheap to make by the ten thousand. */
  record Entry(String key, long n) {}

  @BeforeAll
  static void connect(RedisClusterSet cluster) {
    stowage = Stowage.builder().redisCluster(cluster.seedUri()).build();
    // Another process, seeded through another node.
    other = Stowage.builder().redisCluster(cluster.uris().get(4), cluster.uris().get(2)).build();
  }

  @AfterAll
  static void close() {
    stowage.close();
    other.close();
  }

  private static Map<String, Entry> entries(String prefix, int n) {
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      entries.put(prefix + i, new Entry(prefix + i, i));
    }
    return entries;
  }

  @Test
  void singleKeysRoundTripOnEveryMaster(RedisClusterSet cluster) {
    RedisCache<String, Item> items = stowage.cache("items", Item.class).build();
    Set<Integer> masters = new HashSet<>();
    for (int i = 0; i < 60; i++) {
      String key = Integer.toString(i);
      items.put(key, Samples.item(i));
      masters.add(cluster.masterOf("items:" + key).port());
    }
    assertThat(masters).as("the keys are spread over the three masters").hasSize(3);

    RedisCache<String, Item> read = other.cache("items", Item.class).build();
    for (int i = 0; i < 60; i++) {
      assertThat(read.get(Integer.toString(i))).isEqualTo(Samples.item(i));
    }
    assertThat(read.exists("7")).isTrue();
    assertThat(items.delete("7")).isTrue();
    assertThat(read.get("7")).isNull();
    assertThat(read.exists("7")).isFalse();
    assertThat(ClusterNodes.pttl(cluster, "items:8"))
        .as("the default TTL of an hour")
        .isBetween(Duration.ofMinutes(50).toMillis(), Duration.ofHours(1).toMillis());
  }

  @Test
  void bulkOperationsOverAllSlotsSendOneCommandPerSlotAndChunk(RedisClusterSet cluster) {
    RedisCache<String, Entry> cache = stowage.cache("bulk", Entry.class).noExpiry().build();
    Map<String, Entry> entries = entries("", KEYS);
    List<String> redisKeys = entries.keySet().stream().map(key -> "bulk:" + key).toList();
    int slots = ClusterNodes.slots(redisKeys);
    assertThat(slots).as("20,000 keys fall in most of the 16,384 slots").isGreaterThan(10_000);

    ClusterNodes.resetStats(cluster);
    cache.putAll(entries);
    assertThat(ClusterNodes.calls(cluster, "mset"))
        .as("one MSET per slot: no slot holds 1,000 of these keys")
        .isEqualTo(slots)
        .isLessThan(KEYS);

    Map<String, Entry> read =
        other.cache("bulk", Entry.class).noExpiry().build().getAll(entries.keySet());
    assertThat(read).isEqualTo(entries);
    assertThat(ClusterNodes.calls(cluster, "mget")).isEqualTo(slots);

    assertThat(cache.deleteAll(entries.keySet())).isEqualTo(KEYS);
    assertThat(ClusterNodes.calls(cluster, "del")).isEqualTo(slots);
    assertThat(cache.getAll(entries.keySet())).isEmpty();
  }

  @Test
  void keysSharingHashTagsTravelAThousandToACommand(RedisClusterSet cluster) {
    RedisCache<String, Entry> cache =
        stowage.cache("tagged", Entry.class).ttl(Duration.ofMinutes(10)).build();
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (int i = 0; i < KEYS; i++) {
      String key = "{user:" + (i % 20) + "}:" + i;
      entries.put(key, new Entry(key, i));
    }

    ClusterNodes.resetStats(cluster);
    cache.putAll(entries);
    assertThat(ClusterNodes.calls(cluster, "evalsha") + ClusterNodes.calls(cluster, "eval"))
        .as("20 tags of 1,000 keys: one script per tag")
        .isEqualTo(20);
    assertThat(cache.getAll(entries.keySet())).isEqualTo(entries);
    assertThat(ClusterNodes.calls(cluster, "mget")).isEqualTo(20);
  }

  @Test
  void putAllGivesEachKeyItsOwnJitteredTtl(RedisClusterSet cluster) {
    RedisCache<String, Entry> cache =
        stowage.cache("ttl", Entry.class).ttl(Duration.ofMinutes(10)).ttlJitter(0.5).build();
    Map<String, Entry> entries = entries("", 2_000);

    ClusterNodes.resetStats(cluster);
    cache.putAll(entries);
    cache.put("single", new Entry("single", 1));

    int slots = ClusterNodes.slots(entries.keySet().stream().map(key -> "ttl:" + key).toList());
    assertThat(ClusterNodes.calls(cluster, "evalsha") + ClusterNodes.calls(cluster, "eval"))
        .isEqualTo(slots);
    Set<Long> ttls = new HashSet<>();
    for (int i = 0; i < 2_000; i += 50) {
      long ttl = ClusterNodes.pttl(cluster, "ttl:" + i);
      assertThat(ttl)
          .isBetween(Duration.ofMinutes(5).toMillis() - 1_000, Duration.ofMinutes(10).toMillis());
      ttls.add(ttl / 1_000);
    }
    assertThat(ttls).as("jittered, not one TTL for all").hasSizeGreaterThan(10);
    assertThat(ClusterNodes.pttl(cluster, "ttl:single"))
        .isBetween(Duration.ofMinutes(5).toMillis() - 1_000, Duration.ofMinutes(10).toMillis());
  }

  @Test
  void clearScansEveryMasterAndLeavesOtherCachesAlone(RedisClusterSet cluster) {
    RedisCache<String, Entry> doomed = stowage.cache("doomed", Entry.class).build();
    RedisCache<String, Entry> kept = stowage.cache("doomedNot", Entry.class).build();
    doomed.putAll(entries("", 3_000));
    kept.putAll(entries("", 100));
    Set<Integer> masters = new HashSet<>();
    for (int i = 0; i < 30; i++) {
      masters.add(cluster.masterOf("doomed:" + i).port());
    }
    assertThat(masters).as("the keys cleared are on every master").hasSize(3);

    assertThat(doomed.clear()).isEqualTo(3_000);

    assertThat(doomed.getAll(entries("", 3_000).keySet())).isEmpty();
    assertThat(kept.getAll(entries("", 100).keySet())).hasSize(100);
    for (RedisServer master : cluster.masters()) {
      assertThat((List<?>) master.reply("KEYS", "doomed:*"))
          .as("nothing left on port " + master.port())
          .isEmpty();
    }
  }

  @Test
  void aFeedCarriesAHashTagSoItsScriptsTouchOneSlot(RedisClusterSet cluster) {
    Feed<Item> board = stowage.feed("board", Item.class).build();
    List<Item> items = Samples.items(300);

    List<Long> scores = board.addAll(items.subList(0, 299));
    long last = board.add(items.get(299));

    assertThat(scores).hasSize(299);
    assertThat(last).isEqualTo(scores.get(0) + 299);
    List<Feed.Entry<Item>> page = other.feed("board", Item.class).build().page(1, 20);
    List<Item> newest = new ArrayList<>(items.subList(280, 300));
    Collections.reverse(newest);
    assertThat(page).extracting(Feed.Entry::value).containsExactlyElementsOf(newest);
    assertThat(page.get(0).score()).isEqualTo(last);
    assertThat(board.size()).isEqualTo(300);
    assertThat(ClusterNodes.exists(cluster, "{board}")).as("the key is {name}").isTrue();
    assertThat(cluster.masterOf("{board}:counter").reply("HGET", "{board}:counter", "board"))
        .isEqualTo(Long.toString(last));

    assertThatThrownBy(() -> stowage.feed("plain", Item.class).key("plain").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "feed 'plain': on a Redis Cluster the key must carry a hash tag, such as {plain}, so that its"
                + " buckets (plain:b:0, ...) share its slot; got 'plain'");
    assertThatThrownBy(() -> stowage.feed("posts", Item.class).counter("counter", "posts").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the counter hash must be in the slot of the key '{posts}'");
  }

  @Test
  void aLearnedDictionaryIsFoundThroughAnyNode(RedisClusterSet cluster) {
    RedisCache<String, Item> learning = stowage.cache("learning", Item.class).build();
    Map<String, Item> items = new LinkedHashMap<>();
    for (int i = 0; i < 1_500; i++) {
      items.put(Integer.toString(i), Samples.item(i));
    }
    learning.putAll(items);
    assertThat(learning.compression().id())
        .as("learned from the first 1,000 values")
        .isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
    long id = CompressionAccess.dictionary(learning.compression()).orElseThrow().id();

    assertThat(StowageInternals.dictionaries(other).list())
        .as("dict list scans every master")
        .contains(id);
    assertThat(other.cache("learning", Item.class).build().getAll(items.keySet())).isEqualTo(items);
  }

  @Test
  void theLoadLockAndSingleFlightHoldAcrossTwoProcesses() throws Exception {
    RedisCache<String, Item> first =
        stowage.cache("locked", Item.class).distributedLoadLock(Duration.ofSeconds(5)).build();
    RedisCache<String, Item> second =
        other.cache("locked", Item.class).distributedLoadLock(Duration.ofSeconds(5)).build();
    AtomicInteger calls = new AtomicInteger();
    CompletableFuture<Void> everyoneMissed = new CompletableFuture<>();
    ExecutorService threads = Executors.newFixedThreadPool(16);
    try {
      List<Future<Item>> outcomes = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        RedisCache<String, Item> cache = i % 2 == 0 ? first : second;
        outcomes.add(
            threads.submit(
                () ->
                    cache.getOrLoad(
                        "k",
                        key -> {
                          calls.incrementAndGet();
                          everyoneMissed.join();
                          return Samples.item(3);
                        })));
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> first.stats().misses() + second.stats().misses() >= 16);
      everyoneMissed.complete(null);
      for (Future<Item> outcome : outcomes) {
        assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo(Samples.item(3));
      }
    } finally {
      threads.shutdownNow();
    }
    assertThat(calls).hasValue(1);
    assertThat(first.get("k")).isEqualTo(Samples.item(3));
  }

  @Test
  void seedsAreCheckedWhenGiven() {
    assertThatThrownBy(() -> Stowage.builder().redisCluster("redis://127.0.0.1:7000/2"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a Redis Cluster has only database 0, but redis://127.0.0.1:7000/2 names database 2");
    assertThatThrownBy(() -> Stowage.builder().redisCluster())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("redisCluster needs at least one seed URI, such as redis://host:6379");
    assertThat(stowage.address()).startsWith("cluster 127.0.0.1:");
    assertThat(stowage.ping()).isPositive();
  }
}
