package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import io.lettuce.core.cluster.SlotHash;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;

/** What the cluster tests ask the nodes directly, through the testkit's own clients. */
final class ClusterNodes {
  private ClusterNodes() {}

  /** Resets every running master's command statistics ({@code CONFIG RESETSTAT}). */
  static void resetStats(RedisClusterSet cluster) {
    for (RedisServer master : cluster.masters()) {
      master.reply("CONFIG", "RESETSTAT");
    }
  }

  /**
   * The calls of {@code command} (lower case, as {@code INFO commandstats} names it) over every
   * running master.
   */
  static long calls(RedisClusterSet cluster, String command) {
    long calls = 0;
    for (RedisServer master : cluster.masters()) {
      String stats = String.valueOf(master.reply("INFO", "commandstats"));
      for (String line : stats.split("\r\n")) {
        if (line.startsWith("cmdstat_" + command + ":calls=")) {
          String rest = line.substring(line.indexOf("calls=") + "calls=".length());
          calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
        }
      }
    }
    return calls;
  }

  /** The number of distinct hash slots among {@code keys}. */
  static int slots(Collection<String> keys) {
    Set<Integer> slots = new HashSet<>();
    keys.forEach(key -> slots.add(SlotHash.getSlot(key)));
    return slots.size();
  }

  /**
   * The remaining time to live of {@code key} in milliseconds, asked of the master that serves it.
   */
  static long pttl(RedisClusterSet cluster, String key) {
    Object reply = cluster.masterOf(key).reply("PTTL", key);
    assertThat(reply).isInstanceOf(Long.class);
    return (Long) reply;
  }

  /** Whether the master that serves {@code key} holds it. */
  static boolean exists(RedisClusterSet cluster, String key) {
    return Long.valueOf(1).equals(cluster.masterOf(key).reply("EXISTS", key));
  }
}
