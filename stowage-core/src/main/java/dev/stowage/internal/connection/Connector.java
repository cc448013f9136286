package dev.stowage.internal.connection;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * How a session reaches its Redis, one per topology: one server or the master Sentinel names
 * ({@link ServerConnector}), or a cluster ({@link ClusterConnector}). Each holds the Lettuce client
 * it made, with the options the session's contract rests on.
 */
sealed interface Connector permits ServerConnector, ClusterConnector {
  /** What Lettuce says when a failed handshake lost Redis's reply. */
  String LOST_HANDSHAKE = "RedisHandshakeHandler not registered";

  /** The client, which the session shuts down on close. */
  AbstractRedisClient client();

  /** The address for messages. */
  String address();

  /** The server, or the first seed of a cluster, with the command timeout. */
  RedisURI target();

  /** The options the client runs with. */
  ClientOptions options();

  /**
   * Connects the shared connection, waiting.
   *
   * @throws RuntimeException Lettuce's failure, untranslated
   */
  StatefulConnection<byte[], byte[]> connect();

  /** Connects the shared connection without waiting; the future fails with Lettuce's failure. */
  CompletableFuture<? extends StatefulConnection<byte[], byte[]>> connectAsync();

  /**
   * Connects, once more when Lettuce lost the reason of a failed handshake: when Redis refuses the
   * credentials, Lettuce (seen with 6.5) sometimes reports that its handshake handler was already
   * removed instead of Redis's reply (one test run in four here), and a second attempt reports the
   * reply, so a wrong password is told apart from an unreachable server.
   */
  static StatefulConnection<byte[], byte[]> connectOnce(
      Supplier<? extends StatefulConnection<byte[], byte[]>> connect) {
    try {
      return connect.get();
    } catch (RuntimeException e) {
      if (!RedisErrors.causeChain(e).contains(LOST_HANDSHAKE)) {
        throw e;
      }
      return connect.get();
    }
  }
}
