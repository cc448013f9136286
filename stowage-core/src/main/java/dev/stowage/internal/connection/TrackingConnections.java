package dev.stowage.internal.connection;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.Futures;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * The RESP3 connections a session opens for client tracking, each with a client of its own on the
 * session's resources and options, all shut down with the session. Each method here is described
 * where {@link RedisSession} offers it.
 */
final class TrackingConnections {
  private final RedisSession session;
  private final List<RedisClient> clients = new CopyOnWriteArrayList<>();

  /** The clients of {@link #connect(RedisURI, RedisConnectionStateListener)}, by connection. */
  private final Map<StatefulRedisConnection<byte[], byte[]>, RedisClient> nodeClients =
      new ConcurrentHashMap<>();

  TrackingConnections(RedisSession session) {
    this.session = session;
  }

  StatefulRedisConnection<byte[], byte[]> connect(RedisConnectionStateListener listener) {
    if (session.isCluster()) {
      throw new UnsupportedOperationException(
          "client tracking on a Redis Cluster needs a connection per master;"
              + " Stowage does not open them");
    }
    Connector connector = session.connector();
    RedisClient resp3 = RedisClient.create(session.resources(), connector.target());
    resp3.setOptions(connector.options().mutate().protocolVersion(ProtocolVersion.RESP3).build());
    resp3.addListener(requireNonNull(listener, "listener"));
    clients.add(resp3);
    try {
      return resp3.connect(ByteArrayCodec.INSTANCE);
    } catch (RuntimeException e) {
      clients.remove(resp3);
      resp3.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw RedisErrors.connectFailure(connector.address(), e);
    }
  }

  CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connect(
      RedisURI node, RedisConnectionStateListener listener) {
    requireNonNull(node, "node");
    requireNonNull(listener, "listener");
    RedisClient resp3 = RedisClient.create(session.resources(), node);
    resp3.setOptions(
        ClientOptions.copyOf(session.connector().options())
            .mutate()
            .protocolVersion(ProtocolVersion.RESP3)
            .build());
    resp3.addListener(listener);
    clients.add(resp3);
    CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connecting;
    try {
      connecting = resp3.connectAsync(ByteArrayCodec.INSTANCE, node).toCompletableFuture();
    } catch (RuntimeException e) {
      connecting = CompletableFuture.failedFuture(e);
    }
    return connecting.handle(
        (connection, failure) -> {
          if (failure != null) {
            clients.remove(resp3);
            shutdownInBackground(resp3);
            throw RedisErrors.connectFailure(
                ServerConnector.describe(node), RedisErrors.unwrap(failure));
          }
          nodeClients.put(connection, resp3);
          if (session.isClosed()) {
            release(connection);
          }
          return connection;
        });
  }

  void release(StatefulRedisConnection<byte[], byte[]> connection) {
    RedisClient resp3 = nodeClients.remove(requireNonNull(connection, "connection"));
    if (resp3 == null) {
      Futures.closingInBackground(connection.closeAsync(), "a tracking connection");
      return;
    }
    clients.remove(resp3);
    shutdownInBackground(resp3);
  }

  private static void shutdownInBackground(RedisClient client) {
    Futures.closingInBackground(
        client.shutdownAsync(0, 2, TimeUnit.SECONDS), "a tracking connection's client");
  }

  /** Shuts every client down, waiting. */
  void close() {
    for (RedisClient resp3 : clients) {
      resp3.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }
}
