package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Bulk operations write each master's share of a chunk to that master's own connection, which
 * follows no redirection. These tests move a slot behind the client's back (its topology still
 * names the old master) or leave it half migrated, then run {@code putAll}, {@code getAll} and
 * {@code deleteAll} over its keys among keys of other slots: what the old master redirects ({@code
 * MOVED}, {@code ASK}, {@code TRYAGAIN}) is sent again, so every value read is the one written, and
 * nothing is lost.
 */
@WithRedisCluster
class ClusterRedirectIntegrationTests {
  private static final int TAGGED = 300;
  private static final int SPREAD = 600;

  record Value(String key, long version) {}

  /**
   * {@code TAGGED} keys of one slot (hash tag {@code tag}) and {@code SPREAD} keys over every slot.
   */
  private static Map<String, Value> entries(String tag, long version) {
    Map<String, Value> entries = new LinkedHashMap<>();
    for (int i = 0; i < TAGGED; i++) {
      String key = "{" + tag + "}:" + i;
      entries.put(key, new Value(key, version));
    }
    for (int i = 0; i < SPREAD; i++) {
      String key = tag + "-spread:" + i;
      entries.put(key, new Value(key, version));
    }
    return entries;
  }

  /** How often {@code node} answered a command with {@code error} ({@code INFO errorstats}). */
  private static long errors(RedisServer node, String error) {
    String stats = String.valueOf(node.reply("INFO", "errorstats"));
    for (String line : stats.split("\r\n")) {
      if (line.startsWith("errorstat_" + error + ":count=")) {
        return Long.parseLong(line.substring(line.indexOf('=') + 1));
      }
    }
    return 0;
  }

  private static RedisServer another(RedisClusterSet cluster, RedisServer than) {
    return cluster.masters().stream().filter(master -> master != than).findFirst().orElseThrow();
  }

  @Test
  void aSlotMovedBehindTheClientsBackIsFollowedByEveryBulkOperation(RedisClusterSet cluster) {
    try (Stowage stowage = Stowage.builder().redisCluster(cluster.seedUri()).build()) {
      RedisCache<String, Value> plain = stowage.cache("moved", Value.class).noExpiry().build();
      RedisCache<String, Value> timed =
          stowage.cache("timed", Value.class).ttl(Duration.ofMinutes(10)).build();
      Map<String, Value> first = entries("m", 1);
      plain.putAll(first);
      timed.putAll(first);
      assertThat(plain.getAll(first.keySet())).isEqualTo(first);
      int slot = cluster.slotOf("moved:{m}:0");
      assertThat(cluster.slotOf("timed:{m}:0"))
          .as("the prefix is outside the hash tag")
          .isEqualTo(slot);

      // Read through a topology that still names the old master.
      RedisServer from = cluster.nodeForSlot(slot);
      RedisServer to = another(cluster, from);
      long movedBefore = errors(from, "MOVED");
      assertThat(cluster.migrateSlot(slot, from, to)).isEqualTo(2 * TAGGED);
      assertThat(plain.getAll(first.keySet())).isEqualTo(first);
      assertThat(timed.getAll(first.keySet())).isEqualTo(first);
      assertThat(errors(from, "MOVED"))
          .as("the old master redirected the batch")
          .isGreaterThan(movedBefore);

      // Write through a stale topology: MSET, and the script that sets each key with its TTL.
      movedBefore = errors(to, "MOVED");
      assertThat(cluster.migrateSlot(slot, to, from)).isEqualTo(2 * TAGGED);
      Map<String, Value> second = entries("m", 2);
      plain.putAll(second);
      timed.putAll(second);
      assertThat(errors(to, "MOVED"))
          .as("the old master redirected the batch")
          .isGreaterThan(movedBefore);
      assertThat(plain.getAll(second.keySet())).isEqualTo(second);
      assertThat(timed.getAll(second.keySet())).isEqualTo(second);
      for (int i = 0; i < TAGGED; i += 37) {
        assertThat(from.reply("EXISTS", "moved:{m}:" + i))
            .as("stored on the master that serves the slot")
            .isEqualTo(1L);
        assertThat(ClusterNodes.pttl(cluster, "timed:{m}:" + i))
            .isPositive()
            .isLessThanOrEqualTo(Duration.ofMinutes(10).toMillis());
      }

      // Delete through a stale topology: every key counted once, none left.
      assertThat(cluster.migrateSlot(slot, from, to)).isEqualTo(2 * TAGGED);
      assertThat(plain.deleteAll(second.keySet())).isEqualTo(second.size());
      assertThat(timed.deleteAll(second.keySet())).isEqualTo(second.size());
      assertThat(plain.getAll(second.keySet())).isEmpty();
      assertThat(timed.getAll(second.keySet())).isEmpty();
      assertThat(to.reply("EXISTS", "moved:{m}:0", "timed:{m}:0")).isEqualTo(0L);
    }
  }

  @Test
  void aSlotHalfMigratedLosesNothingAndReadsEveryValue(RedisClusterSet cluster) {
    try (Stowage stowage = Stowage.builder().redisCluster(cluster.seedUri()).build()) {
      RedisCache<String, Value> cache = stowage.cache("half", Value.class).noExpiry().build();
      Map<String, Value> first = entries("h", 1);
      cache.putAll(first);
      int slot = cluster.slotOf("half:{h}:0");
      RedisServer from = cluster.nodeForSlot(slot);
      RedisServer to = another(cluster, from);
      String slotText = Integer.toString(slot);

      // What redis-cli --cluster reshard does first: mark the slot, move half its keys, stop there.
      to.reply(
          "CLUSTER",
          "SETSLOT",
          slotText,
          "IMPORTING",
          String.valueOf(from.reply("CLUSTER", "MYID")));
      from.reply(
          "CLUSTER", "SETSLOT", slotText, "MIGRATING", String.valueOf(to.reply("CLUSTER", "MYID")));
      List<String> migrate =
          new ArrayList<>(
              List.of("MIGRATE", to.host(), Integer.toString(to.port()), "", "0", "5000", "KEYS"));
      for (int i = 0; i < TAGGED / 2; i++) {
        migrate.add("half:{h}:" + i);
      }
      assertThat(from.reply(migrate.toArray(String[]::new))).isEqualTo("OK");
      long tryAgainBefore = errors(from, "TRYAGAIN");
      try {
        assertThat(cache.getAll(first.keySet())).isEqualTo(first);
        assertThat(errors(from, "TRYAGAIN"))
            .as("the batch met the half-migrated slot")
            .isGreaterThan(tryAgainBefore);

        // New values for every key, and keys the slot never had.
        Map<String, Value> second = entries("h", 2);
        for (int i = TAGGED; i < TAGGED + 50; i++) {
          second.put("{h}:" + i, new Value("{h}:" + i, 2));
        }
        cache.putAll(second);
        assertThat(cache.getAll(second.keySet())).isEqualTo(second);

        assertThat(cache.deleteAll(second.keySet())).isEqualTo(second.size());
        assertThat(cache.getAll(second.keySet())).isEmpty();
      } finally {
        // Finish the move, so that the slot is served by one master again.
        cluster.migrateSlot(slot, from, to);
      }
      assertThat(cache.getAll(first.keySet())).isEmpty();
    }
  }
}
