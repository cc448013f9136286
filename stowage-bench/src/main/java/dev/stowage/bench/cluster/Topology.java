package dev.stowage.bench.cluster;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.embedded.RedisClusterSet;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where one half of the bench runs: one server ({@link #single}) or a Redis Cluster ({@link
 * #cluster}), embedded and owned by the bench or borrowed from the user. It gives the clients their
 * addresses and answers the bench's own questions (clearing the bench's keys, counting them on each
 * master) over a connection of its own.
 *
 * <p>An owned topology is cleared with {@code FLUSHALL} (on every master of a cluster); a borrowed
 * one only loses the keys under the bench's prefix ({@code SCAN} and {@code UNLINK}, master by
 * master on a cluster). Not thread-safe. Made by the CLI, used by {@link ClusterBench}.
 */
public final class Topology implements AutoCloseable {

  /** The name of the one-server topology in row names: {@code stowage@single}. */
  static final String SINGLE = "single";

  /** The name of the cluster topology in row names: {@code stowage@cluster}. */
  static final String CLUSTER = "cluster";

  private final String name;
  private final List<RedisURI> seeds;
  private final List<String> seedUris;
  private final @Nullable BenchRedis single;
  private final @Nullable RedisClusterSet embeddedCluster;
  private final @Nullable RedisClusterClient clusterClient;
  private final @Nullable StatefulRedisClusterConnection<String, String> clusterAdmin;

  private Topology(
      String name,
      List<String> seedUris,
      @Nullable BenchRedis single,
      @Nullable RedisClusterSet embeddedCluster) {
    this.name = name;
    this.seedUris = List.copyOf(seedUris);
    List<RedisURI> parsed = new ArrayList<>();
    for (String uri : seedUris) {
      try {
        parsed.add(RedisURI.create(uri));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "not a Redis URI: '" + uri + "' (" + e.getMessage() + ")", e);
      }
    }
    this.seeds = List.copyOf(parsed);
    this.single = single;
    this.embeddedCluster = embeddedCluster;
    if (single == null) {
      this.clusterClient = RedisClusterClient.create(this.seeds);
      try {
        this.clusterAdmin = clusterClient.connect();
      } catch (RuntimeException e) {
        clusterClient.shutdown();
        throw new BenchmarkRunException(
            "cannot connect to the Redis Cluster at " + this.seeds + ": " + e.getMessage(), e);
      }
    } else {
      this.clusterClient = null;
      this.clusterAdmin = null;
    }
  }

  /** One server; closing the topology closes {@code redis} (and stops it if it is embedded). */
  public static Topology single(BenchRedis redis) {
    return new Topology(SINGLE, List.of(redis.uri()), Objects.requireNonNull(redis, "redis"), null);
  }

  /** An embedded cluster that the topology owns: closing it stops the cluster. */
  public static Topology cluster(RedisClusterSet cluster) {
    Objects.requireNonNull(cluster, "cluster");
    try {
      return new Topology(
          CLUSTER, cluster.masters().stream().map(node -> node.uri()).toList(), null, cluster);
    } catch (RuntimeException e) {
      cluster.close();
      throw e;
    }
  }

  /**
   * A cluster the bench borrows, reached through these seed URIs; it is never flushed.
   *
   * @throws IllegalArgumentException if there is no seed, or one is not a Redis URI
   * @throws BenchmarkRunException if the cluster cannot be reached
   */
  public static Topology borrowedCluster(List<String> seedUris) {
    if (seedUris.isEmpty()) {
      throw new IllegalArgumentException("a cluster needs at least one seed URI");
    }
    return new Topology(CLUSTER, seedUris, null, null);
  }

  /** {@link #SINGLE} or {@link #CLUSTER}. */
  String name() {
    return name;
  }

  /** Whether this is a cluster. */
  boolean isCluster() {
    return single == null;
  }

  /** The server's URI, or the cluster's seeds (its masters, when embedded). */
  List<RedisURI> seeds() {
    return seeds;
  }

  /** {@link #seeds()} as the text they were given in. */
  List<String> seedUris() {
    return seedUris;
  }

  /** Whether the bench started this Redis (and so may flush it). */
  boolean owned() {
    return single != null ? single.owned() : embeddedCluster != null;
  }

  /** Removes the keys under {@code prefix}: everything, on a Redis the bench owns. */
  void clear(String prefix) {
    if (single != null) {
      single.clear(prefix);
      return;
    }
    StatefulRedisClusterConnection<String, String> admin = clusterAdmin();
    for (RedisClusterNode master : masters()) {
      RedisCommands<String, String> node = admin.getConnection(master.getNodeId()).sync();
      if (owned()) {
        node.flushall();
        continue;
      }
      ScanCursor cursor = ScanCursor.INITIAL;
      ScanArgs args = ScanArgs.Builder.matches(glob(prefix)).limit(1000);
      do {
        KeyScanCursor<String> page = node.scan(cursor, args);
        if (!page.getKeys().isEmpty()) {
          // The cluster connection splits a multi-key UNLINK by slot.
          admin.sync().unlink(page.getKeys().toArray(String[]::new));
        }
        cursor = page;
      } while (!cursor.isFinished());
    }
  }

  /**
   * How many keys start with {@code prefix}, on each master in the order of their ports (one entry
   * for one server).
   */
  List<Long> countKeysPerMaster(String prefix) {
    if (single != null) {
      return List.of(single.countKeys(prefix));
    }
    List<Long> counts = new ArrayList<>();
    for (RedisClusterNode master : masters()) {
      RedisCommands<String, String> node = clusterAdmin().getConnection(master.getNodeId()).sync();
      long count = 0;
      ScanCursor cursor = ScanCursor.INITIAL;
      ScanArgs args = ScanArgs.Builder.matches(glob(prefix)).limit(1000);
      do {
        KeyScanCursor<String> page = node.scan(cursor, args);
        count += page.getKeys().size();
        cursor = page;
      } while (!cursor.isFinished());
      counts.add(count);
    }
    return counts;
  }

  /** How many masters serve the keys: 1 for one server. */
  int masterCount() {
    return single != null ? 1 : masters().size();
  }

  /** The {@code redis_version} of the server, or of the first master. */
  @Nullable String version() {
    if (single != null) {
      return single.version();
    }
    String info = clusterAdmin().getConnection(masters().get(0).getNodeId()).sync().info("server");
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("redis_version:")) {
        return line.substring("redis_version:".length()).trim();
      }
    }
    return null;
  }

  @Override
  public void close() {
    try {
      if (clusterAdmin != null) {
        clusterAdmin.close();
      }
      if (clusterClient != null) {
        clusterClient.shutdown();
      }
    } finally {
      if (single != null) {
        single.close();
      }
      if (embeddedCluster != null) {
        embeddedCluster.close();
      }
    }
  }

  @Override
  public String toString() {
    String where =
        isCluster()
            ? "a cluster of " + masterCount() + " masters (seeds " + seeds + ")"
            : "one server at " + seeds.get(0);
    return (owned() ? "embedded " : "") + where;
  }

  private StatefulRedisClusterConnection<String, String> clusterAdmin() {
    return Objects.requireNonNull(clusterAdmin, "not a cluster");
  }

  private List<RedisClusterNode> masters() {
    List<RedisClusterNode> masters = new ArrayList<>();
    for (RedisClusterNode node : clusterAdmin().getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
        masters.add(node);
      }
    }
    masters.sort(Comparator.comparingInt(node -> node.getUri().getPort()));
    if (masters.isEmpty()) {
      throw new BenchmarkRunException(
          "the cluster at " + seeds + " names no master that serves slots", null);
    }
    return masters;
  }

  private static String glob(String prefix) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < prefix.length(); i++) {
      char c = prefix.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        out.append('\\');
      }
      out.append(c);
    }
    return out.append('*').toString();
  }
}
