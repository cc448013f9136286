package dev.stowage.internal.connection;

import static java.util.Objects.requireNonNull;

import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * A session's view of which masters serve which slots, as the shared cluster connection knows the
 * topology, and the connections to each master that it keeps; on one server, the server alone. Each
 * method here is described where {@link RedisSession} offers it.
 */
final class ClusterTopology {
  private final RedisSession session;

  /** The subscriptions of {@link #onTopologyChange}, disposed on close. */
  private final List<Disposable> listeners = new CopyOnWriteArrayList<>();

  ClusterTopology(RedisSession session) {
    this.session = session;
  }

  IntFunction<@Nullable MasterAddress> slotMasters() {
    if (!(session.current() instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
      return slot -> null;
    }
    Partitions partitions = cluster.getPartitions();
    return slot -> {
      RedisClusterNode master = partitions.getMasterBySlot(slot);
      return master == null || master.getUri() == null
          ? null
          : new MasterAddress(master.getUri().getHost(), master.getUri().getPort());
    };
  }

  CompletableFuture<StatefulRedisConnection<byte[], byte[]>> masterConnection(
      String host, int port) {
    if (!(session.shared() instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
      throw new IllegalStateException("a master's own connection exists only on a Redis Cluster");
    }
    return cluster.getConnectionAsync(host, port);
  }

  List<RedisSession.Node> masters() {
    StatefulConnection<byte[], byte[]> current = session.shared();
    if (!(current instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
      return List.of(
          new RedisSession.Node(
              session.address(), CompletableFuture.completedFuture(SharedCommands.async(current))));
    }
    List<RedisSession.Node> masters = new ArrayList<>();
    for (RedisClusterNode node : cluster.getPartitions()) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.getSlots().isEmpty()) {
        String host = node.getUri().getHost();
        int port = node.getUri().getPort();
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> commands;
        try {
          commands =
              cluster.getConnectionAsync(host, port).thenApply(StatefulRedisConnection::async);
        } catch (RuntimeException e) {
          commands = CompletableFuture.failedFuture(e);
        }
        masters.add(new RedisSession.Node(host + ":" + port, commands));
      }
    }
    return masters;
  }

  Map<String, RedisURI> topology() {
    StatefulConnection<byte[], byte[]> current = session.current();
    if (current == null || session.isClosed()) {
      return Map.of();
    }
    if (!(current instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
      return Map.of(session.address(), session.connector().target());
    }
    return mastersOf(cluster.getPartitions());
  }

  Disposable onTopologyChange(Consumer<Map<String, RedisURI>> listener) {
    requireNonNull(listener, "listener");
    if (!session.isCluster()) {
      return () -> {};
    }
    // The event comes before Lettuce reloads its partitions, so the new masters are taken from it.
    Disposable subscription =
        session
            .resources()
            .eventBus()
            .get()
            .filter(event -> event instanceof ClusterTopologyChangedEvent)
            .subscribe(
                event -> {
                  if (!session.isClosed()) {
                    listener.accept(mastersOf(((ClusterTopologyChangedEvent) event).after()));
                  }
                });
    listeners.add(subscription);
    return () -> {
      subscription.dispose();
      listeners.remove(subscription);
    };
  }

  private Map<String, RedisURI> mastersOf(Iterable<RedisClusterNode> nodes) {
    RedisURI target = session.connector().target();
    Map<String, RedisURI> masters = new LinkedHashMap<>();
    for (RedisClusterNode node : nodes) {
      if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)
          && !node.getSlots().isEmpty()
          && node.getUri() != null) {
        masters.put(
            node.getNodeId(),
            RedisURI.builder(target)
                .withHost(node.getUri().getHost())
                .withPort(node.getUri().getPort())
                .build());
      }
    }
    return Collections.unmodifiableMap(masters);
  }

  /** Stops every listener of {@link #onTopologyChange}. */
  void close() {
    listeners.forEach(Disposable::dispose);
  }
}
