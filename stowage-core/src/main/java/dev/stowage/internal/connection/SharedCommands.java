package dev.stowage.internal.connection;

import static java.util.Objects.requireNonNull;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;

/**
 * The commands Stowage sends, over a connection to one server or to a cluster alike. Lettuce's two
 * connections share no interface with commands, but their command interfaces share {@link
 * RedisClusterCommands} and {@link RedisClusterAsyncCommands}: every command on a key, the scripts,
 * and {@code SCAN} (which a cluster connection runs on every master in turn).
 */
public final class SharedCommands {
  private SharedCommands() {}

  /**
   * The blocking commands of {@code connection}.
   *
   * @throws IllegalArgumentException if it is neither a {@link StatefulRedisConnection} nor a
   *     {@link StatefulRedisClusterConnection}
   */
  public static RedisClusterCommands<byte[], byte[]> sync(
      StatefulConnection<byte[], byte[]> connection) {
    requireNonNull(connection, "connection");
    if (connection instanceof StatefulRedisConnection<byte[], byte[]> server) {
      return server.sync();
    }
    if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
      return cluster.sync();
    }
    throw unknown(connection);
  }

  /**
   * The asynchronous commands of {@code connection}.
   *
   * @throws IllegalArgumentException if it is neither a {@link StatefulRedisConnection} nor a
   *     {@link StatefulRedisClusterConnection}
   */
  public static RedisClusterAsyncCommands<byte[], byte[]> async(
      StatefulConnection<byte[], byte[]> connection) {
    requireNonNull(connection, "connection");
    if (connection instanceof StatefulRedisConnection<byte[], byte[]> server) {
      return server.async();
    }
    if (connection instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster) {
      return cluster.async();
    }
    throw unknown(connection);
  }

  private static IllegalArgumentException unknown(StatefulConnection<?, ?> connection) {
    return new IllegalArgumentException(
        "not a connection to a Redis server or cluster: " + connection.getClass().getName());
  }
}
