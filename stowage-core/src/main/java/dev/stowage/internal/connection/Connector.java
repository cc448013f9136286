package dev.stowage.internal.connection;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * How a session reaches its Redis, one per topology: one server or the master Sentinel names
 * ({@link ServerConnector}), or a cluster ({@link ClusterConnector}). Each holds the Lettuce client
 * it made, with the options the session's contract rests on.
 */
sealed interface Connector permits ServerConnector, ClusterConnector {
  /**
   * What Lettuce says when a failed handshake lost Redis's reply: its handler was already removed,
   * or the channel's close was seen before the failure.
   */
  List<String> LOST_HANDSHAKE =
      List.of("RedisHandshakeHandler not registered", "Connection closed prematurely");

  /**
   * How many times {@link #connectRetryingLostHandshakes} tries when each attempt lost the
   * handshake's reply.
   */
  int HANDSHAKE_ATTEMPTS = 3;

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
   * Connects, again when Lettuce lost the reason of a failed handshake, up to {@link
   * #HANDSHAKE_ATTEMPTS} attempts, so that a refusal (a wrong password, a forbidden SELECT) is told
   * apart from an unreachable server. Lettuce 7 finishes its handshake on a pool thread ({@code
   * thenComposeAsync}, a thread per task when the common pool has one thread, as on 2 cores), which
   * closes the channel and then adds the listener that reports Redis's reply; when the event loop
   * runs the close and the channel's inactivity in between, the handshake fails with "Connection
   * closed prematurely" instead (31 of 3,000 refused connections, with three busy processes beside
   * them on this 2-core machine; a loop run by hand, not kept in the repository). A server that
   * really closes during the handshake is tried the same number of times and then reported
   * unreachable.
   */
  static StatefulConnection<byte[], byte[]> connectRetryingLostHandshakes(
      Supplier<? extends StatefulConnection<byte[], byte[]>> connect) {
    for (int attempt = 1; ; attempt++) {
      try {
        return connect.get();
      } catch (RuntimeException e) {
        if (attempt >= HANDSHAKE_ATTEMPTS || !lostHandshake(e)) {
          throw e;
        }
      }
    }
  }

  /**
   * Whether {@code failure}, one of its causes or what they suppressed (a cluster's seeds) is
   * Lettuce's report of a handshake whose reply it lost.
   */
  static boolean lostHandshake(Throwable failure) {
    return RedisErrors.find(
            failure,
            e -> {
              String message = e.getMessage();
              return message != null && LOST_HANDSHAKE.stream().anyMatch(message::contains);
            })
        != null;
  }
}
