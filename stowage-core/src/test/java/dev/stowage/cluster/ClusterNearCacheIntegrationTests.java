package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.Feed;
import dev.stowage.NearCache;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.samples.Item;
import dev.stowage.testkit.WithRedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Near caches on a real three-master cluster: a copy is answered in the process, without a command
 * to any master, until another process writes its key, whichever master serves it.
 */
@WithRedisCluster
class ClusterNearCacheIntegrationTests {
  private static final Duration INVALIDATION_BOUND = Duration.ofSeconds(5);

  private static Stowage readerProcess;
  private static Stowage writerProcess;

  @BeforeAll
  static void connect(RedisClusterSet cluster) {
    readerProcess = Stowage.builder().redisCluster(cluster.seedUri()).build();
    // Another process, seeded through another node.
    writerProcess = Stowage.builder().redisCluster(cluster.uris().get(4)).build();
  }

  @AfterAll
  static void close() {
    readerProcess.close();
    writerProcess.close();
  }

  private static Item version(long key, int version) {
    return new Item(key, "item " + key, "version " + version, version, version);
  }

  /** Keys of cache {@code name} of which every master serves some. */
  private static List<String> keysOnEveryMaster(RedisClusterSet cluster, String name, int count) {
    List<String> keys = new ArrayList<>();
    Set<Integer> masters = new HashSet<>();
    for (int i = 0; i < count; i++) {
      keys.add(Integer.toString(i));
      masters.add(cluster.masterOf(name + ":" + i).port());
    }
    assertThat(masters).as("the keys are spread over the three masters").hasSize(3);
    return keys;
  }

  private static Map<String, Item> versions(List<String> keys, int version) {
    Map<String, Item> items = new LinkedHashMap<>();
    keys.forEach(key -> items.put(key, version(Long.parseLong(key), version)));
    return items;
  }

  @Test
  void aCopyIsAnsweredWithoutRedisUntilAnotherProcessWritesItOnAnyMaster(RedisClusterSet cluster) {
    RedisCache<String, Item> reader =
        readerProcess.cache("items", Item.class).nearCache(NearCache.maximumSize(1000)).build();
    RedisCache<String, Item> writer = writerProcess.cache("items", Item.class).build();
    List<String> keys = keysOnEveryMaster(cluster, "items", 30);
    writer.putAll(versions(keys, 1));
    awaitTracking(reader);

    keys.forEach(key -> assertThat(reader.get(key)).isEqualTo(version(Long.parseLong(key), 1)));
    ClusterNodes.resetStats(cluster);
    long hitsBefore = reader.stats().nearHits();
    keys.forEach(key -> assertThat(reader.get(key)).isEqualTo(version(Long.parseLong(key), 1)));
    assertThat(reader.stats().nearHits() - hitsBefore)
        .as("every second read is a near hit")
        .isEqualTo(keys.size());
    assertThat(ClusterNodes.calls(cluster, "get")).as("GETs that reached a master").isZero();

    // A put by the other process, key by key: each copy is dropped, on whichever master the key
    // lives.
    keys.forEach(key -> writer.put(key, version(Long.parseLong(key), 2)));
    await()
        .atMost(INVALIDATION_BOUND)
        .untilAsserted(
            () ->
                keys.forEach(
                    key -> assertThat(reader.get(key)).isEqualTo(version(Long.parseLong(key), 2))));

    // Kept again, then a putAll (one command per slot) drops them all.
    keepAll(reader, keys);
    writer.putAll(versions(keys, 3));
    await()
        .atMost(INVALIDATION_BOUND)
        .untilAsserted(
            () ->
                keys.forEach(
                    key -> assertThat(reader.get(key)).isEqualTo(version(Long.parseLong(key), 3))));

    // And a delete, on each master.
    keepAll(reader, keys);
    List<String> deleted =
        List.of(keys.get(0), keys.get(1), keys.get(2), keys.get(3), keys.get(4), keys.get(5));
    assertThat(deleted.stream().map(key -> cluster.masterOf("items:" + key).port()).distinct())
        .hasSize(3);
    deleted.forEach(writer::delete);
    await()
        .atMost(INVALIDATION_BOUND)
        .untilAsserted(() -> deleted.forEach(key -> assertThat(reader.get(key)).isNull()));
    assertThat(reader.get(keys.get(6))).isEqualTo(version(Long.parseLong(keys.get(6)), 3));
  }

  @Test
  void theProcessesOwnWritesDropItsCopiesBeforeTheyReturn(RedisClusterSet cluster) {
    RedisCache<String, Item> cache =
        readerProcess.cache("own", Item.class).nearCache(NearCache.defaults()).build();
    List<String> keys = keysOnEveryMaster(cluster, "own", 12);
    awaitTracking(cache);
    cache.putAll(versions(keys, 1));
    keepAll(cache, keys);
    cache.putAll(versions(keys, 2));
    assertThat(cache.getAll(keys)).isEqualTo(versions(keys, 2));
    cache.deleteAll(keys);
    assertThat(cache.getAll(keys)).isEmpty();
  }

  /**
   * Copies read by {@code get} (GET and PTTL through the cluster connection) and by {@code getAll}
   * (a script per slot, batched to each master) on every master go when their keys' TTL has passed.
   * The masters run their background expiry once a second here, so that it rarely removes the keys
   * (and sends their invalidations) before the reads after the TTL.
   */
  @Test
  void copiesGoWhenTheirKeysTtlHasPassedOnEveryMaster(RedisClusterSet cluster) {
    cluster.masters().forEach(master -> master.command("CONFIG", "SET", "hz", "1"));
    try {
      RedisCache<String, Item> cache =
          readerProcess
              .cache("ttl", Item.class)
              .ttl(Duration.ofMillis(1500))
              .ttlJitter(0)
              .nearCache(NearCache.maximumSize(1000))
              .build();
      List<String> keys = keysOnEveryMaster(cluster, "ttl", 30);
      List<String> single = keys.subList(0, 15);
      List<String> bulk = keys.subList(15, 30);
      awaitTracking(cache);
      long written = System.nanoTime();
      cache.putAll(versions(keys, 1));
      await()
          .atMost(Duration.ofSeconds(1))
          .until(
              () -> {
                single.forEach(cache::get);
                cache.getAll(bulk);
                long before = cache.stats().nearHits();
                single.forEach(cache::get);
                cache.getAll(bulk);
                return cache.stats().nearHits() - before == keys.size();
              });

      long left = written + Duration.ofMillis(1600).toNanos() - System.nanoTime();
      if (left > 0) {
        Thread.sleep(Duration.ofNanos(left).toMillis() + 1);
      }
      single.forEach(key -> assertThat(cache.get(key)).as("expired copy of " + key).isNull());
      assertThat(cache.getAll(bulk)).as("expired copies").isEmpty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } finally {
      cluster.masters().forEach(master -> master.command("CONFIG", "SET", "hz", "10"));
    }
  }

  @Test
  @SuppressWarnings("ReferenceEquality") // the very page the near cache kept
  void aFeedsPagesAreDroppedWhenAnotherProcessAdds() {
    Feed<Item> reader =
        readerProcess.feed("board", Item.class).nearCache(NearCache.maximumSize(50)).build();
    Feed<Item> writer = writerProcess.feed("board", Item.class).build();
    for (int i = 0; i < 30; i++) {
      writer.add(version(i, 1));
    }

    // The same instance twice: the page is kept.
    await()
        .atMost(INVALIDATION_BOUND)
        .until(
            () -> {
              List<Feed.Entry<Item>> first = reader.page(1, 10);
              return reader.page(1, 10) == first;
            });

    writer.add(version(99, 1));
    await()
        .atMost(INVALIDATION_BOUND)
        .until(() -> reader.page(1, 10).get(0).value().equals(version(99, 1)));
  }

  /** Reads every key until each read of it is a near hit. */
  private static void keepAll(RedisCache<String, Item> cache, List<String> keys) {
    await()
        .atMost(INVALIDATION_BOUND)
        .until(
            () -> {
              keys.forEach(cache::get);
              long before = cache.stats().nearHits();
              keys.forEach(cache::get);
              return cache.stats().nearHits() - before == keys.size();
            });
  }

  /** Waits until a read of a fresh key is kept: every master tracks. */
  private static void awaitTracking(RedisCache<String, Item> cache) {
    String probe = "probe-" + System.nanoTime();
    await()
        .atMost(INVALIDATION_BOUND)
        .until(
            () -> {
              long before = cache.stats().nearHits();
              cache.put(probe, version(-1, 0));
              cache.get(probe);
              cache.get(probe);
              boolean kept = cache.stats().nearHits() > before;
              cache.delete(probe);
              return kept;
            });
  }
}
