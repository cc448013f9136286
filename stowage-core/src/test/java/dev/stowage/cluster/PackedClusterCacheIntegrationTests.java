package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.CacheLayout;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.testkit.WithRedisCluster;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The packed layout on a three-master cluster: a bucket is one slot, and bulk commands go to each
 * bucket's master.
 */
@WithRedisCluster
class PackedClusterCacheIntegrationTests {
  private static Stowage stowage;

  record Entry(String key, long n) {}

  @BeforeAll
  static void connect(RedisClusterSet cluster) {
    stowage = Stowage.builder().redisCluster(cluster.seedUri()).build();
  }

  @AfterAll
  static void close() {
    stowage.close();
  }

  @Test
  void bulkOperationsReachEveryMasterWithOneCommandPerBucket(RedisClusterSet cluster) {
    RedisCache<String, Entry> cache =
        stowage.cache("packed", Entry.class).layout(CacheLayout.packed(5_000)).noExpiry().build();
    Map<String, Entry> entries = new LinkedHashMap<>();
    for (int i = 0; i < 5_000; i++) {
      entries.put("p" + i, new Entry("p" + i, i));
    }
    Set<String> buckets = new HashSet<>();
    Set<Integer> masters = new HashSet<>();
    for (String key : entries.keySet()) {
      String bucket = cache.redisKey(key);
      buckets.add(bucket);
      masters.add(cluster.masterOf(bucket).port());
    }
    assertThat(buckets).hasSize(79);
    assertThat(masters).as("the buckets are spread over the three masters").hasSize(3);

    ClusterNodes.resetStats(cluster);
    cache.putAll(entries);
    assertThat(ClusterNodes.calls(cluster, "hset")).isEqualTo(79);
    for (String bucket : buckets) {
      assertThat(cluster.masterOf(bucket).reply("OBJECT", "ENCODING", bucket))
          .isEqualTo("listpack");
    }

    assertThat(cache.getAll(entries.keySet())).containsExactlyEntriesOf(entries);
    assertThat(ClusterNodes.calls(cluster, "hmget")).isEqualTo(79);
    assertThat(cache.get("p17")).isEqualTo(new Entry("p17", 17));

    List<String> some = List.of("p1", "p2", "p3", "nothing");
    assertThat(cache.deleteAll(some)).isEqualTo(3);
    assertThat(cache.getAll(some)).isEmpty();
    assertThat(cache.clear()).isEqualTo(79);
    assertThat(ClusterNodes.exists(cluster, cache.redisKey("p17"))).isFalse();
  }
}
