package dev.stowage.internal.connection;

import static java.util.Objects.requireNonNull;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The connector to a Redis Cluster through its seeds, any of its nodes: Lettuce asks them for the
 * topology, then connects to the nodes it needs, and refreshes the topology every {@link
 * RedisSession#TOPOLOGY_REFRESH_PERIOD} and on every redirection and persistent reconnection.
 */
record ClusterConnector(
    RedisClusterClient client, String address, RedisURI target, ClientOptions options)
    implements Connector {
  /**
   * The least time between two refreshes of the topology that redirections or reconnections
   * trigger: short, so that the replica promoted after a failover is found within a second or two
   * of its promotion, yet a bound on how often a busy client asks every node during one.
   */
  static final Duration ADAPTIVE_REFRESH_LIMIT = Duration.ofSeconds(1);

  /**
   * A client of the cluster that {@code seeds} belong to, on {@code resources}, with {@code given}
   * options as {@link #enforcedForCluster} makes them.
   *
   * @throws IllegalArgumentException as {@link #clusterSeeds} says
   */
  static ClusterConnector create(
      List<RedisURI> seeds,
      Duration timeout,
      Duration connectTimeout,
      ClientResources resources,
      @Nullable ClientOptions given) {
    List<RedisURI> targets = clusterSeeds(seeds, timeout);
    RedisClusterClient client = RedisClusterClient.create(resources, targets);
    ClusterClientOptions enforced = enforcedForCluster(given, timeout, connectTimeout);
    client.setOptions(enforced);
    return new ClusterConnector(client, describeCluster(targets), targets.get(0), enforced);
  }

  @Override
  public StatefulConnection<byte[], byte[]> connect() {
    return Connector.connectRetryingLostHandshakes(() -> client.connect(ByteArrayCodec.INSTANCE));
  }

  @Override
  public CompletableFuture<? extends StatefulConnection<byte[], byte[]>> connectAsync() {
    return client.connectAsync(ByteArrayCodec.INSTANCE);
  }

  /**
   * Copies of the seeds with the command timeout, checked.
   *
   * @throws IllegalArgumentException if there is none, or one is not a plain {@code redis://} or
   *     {@code rediss://} URI of database 0
   */
  static List<RedisURI> clusterSeeds(List<RedisURI> seeds, Duration timeout) {
    if (seeds.isEmpty()) {
      throw new IllegalArgumentException(
          "a Redis Cluster needs at least one seed URI, such as redis://host:6379");
    }
    List<RedisURI> copies = new ArrayList<>();
    for (RedisURI seed : seeds) {
      requireNonNull(seed, "seed");
      if (seed.getHost() == null || !seed.getSentinels().isEmpty()) {
        throw new IllegalArgumentException(
            "a Redis Cluster seed is a redis:// or rediss:// URI of a node, not " + seed);
      }
      if (seed.getDatabase() != 0) {
        throw new IllegalArgumentException(
            "a Redis Cluster has only database 0; the seed "
                + ServerConnector.describe(seed)
                + " names database "
                + seed.getDatabase());
      }
      copies.add(ServerConnector.withTimeout(seed, timeout));
    }
    return List.copyOf(copies);
  }

  /**
   * What a cluster is called in messages: {@code cluster 10.0.0.1:6379, 10.0.0.2:6379} (its seeds).
   */
  static String describeCluster(List<RedisURI> seeds) {
    return "cluster "
        + seeds.stream().map(ServerConnector::describe).collect(Collectors.joining(", "));
  }

  /**
   * The cluster's options: {@code given} as {@link ServerConnector#enforced}, with the topology
   * refreshed.
   */
  static ClusterClientOptions enforcedForCluster(
      @Nullable ClientOptions given, Duration timeout, Duration connectTimeout) {
    ClientOptions base = ServerConnector.enforced(given, timeout, connectTimeout);
    ClusterClientOptions.Builder builder =
        base instanceof ClusterClientOptions cluster
            ? cluster.mutate()
            : ClusterClientOptions.builder(base);
    return builder
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(timeout))
        .socketOptions(base.getSocketOptions())
        .topologyRefreshOptions(
            ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(RedisSession.TOPOLOGY_REFRESH_PERIOD)
                .enableAllAdaptiveRefreshTriggers()
                .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_LIMIT)
                .build())
        .build();
  }
}
