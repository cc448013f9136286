package dev.stowage.internal.connection;

import dev.stowage.CacheUnavailableException;
import dev.stowage.StowageException;
import dev.stowage.internal.Futures;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * How a session starts: its resources (the application's, or its own), its connector, the first
 * connection, and, for a session opened in the background that could not reach Redis, the attempts
 * every {@link RedisSession#BACKGROUND_RETRY} until one does.
 */
final class SessionStart {
  private static final Delay RECONNECT_DELAY =
      Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS);

  private SessionStart() {}

  /**
   * The session once the connector that {@code connector} makes on {@code given} resources (or
   * resources of its own) has connected: a refusal, or any failure unless {@code inBackground},
   * shuts the client and its own resources down and is thrown translated.
   */
  static RedisSession connected(
      @Nullable ClientResources given,
      Function<ClientResources, Connector> connector,
      Duration timeout,
      boolean inBackground) {
    boolean ownsResources = given == null;
    ClientResources used =
        given == null
            ? DefaultClientResources.builder().reconnectDelay(RECONNECT_DELAY).build()
            : given;
    Connector made;
    try {
      made = connector.apply(used);
    } catch (RuntimeException e) {
      if (ownsResources) {
        shutdownInBackground(used);
      }
      throw e;
    }
    StatefulConnection<byte[], byte[]> connected;
    try {
      connected = made.connect();
    } catch (RuntimeException e) {
      StowageException failure = RedisErrors.connectFailure(made.address(), e);
      if (!inBackground || !(failure instanceof CacheUnavailableException)) {
        shutdown(made, ownsResources ? used : null);
        throw failure;
      }
      System.getLogger("dev.stowage")
          .log(
              System.Logger.Level.WARNING,
              failure.getMessage()
                  + "; starting without it and trying again every "
                  + RedisSession.BACKGROUND_RETRY.toMillis()
                  + " ms");
      connected = null;
    }
    RedisSession session = new RedisSession(used, ownsResources, made, timeout, connected);
    if (connected == null) {
      retryInBackground(session);
    }
    return session;
  }

  /**
   * Tries to connect {@code session} after {@link RedisSession#BACKGROUND_RETRY}, and again after
   * each failure, until it connects or is closed.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // nothing waits for an attempt or cancels it: it
  // returns at once once the session is closed (whose own executor, if any, drops it anyway), and
  // its outcome is handled below
  private static void retryInBackground(RedisSession session) {
    session
        .resources()
        .eventExecutorGroup()
        .schedule(
            () -> {
              if (session.isClosed() || session.current() != null) {
                return;
              }
              Futures.whenDone(
                  session.connector().connectAsync(),
                  (connection, failure) -> {
                    if (connection == null) {
                      retryInBackground(session);
                    } else {
                      session.activate(connection);
                    }
                  });
            },
            RedisSession.BACKGROUND_RETRY.toMillis(),
            TimeUnit.MILLISECONDS);
  }

  /** Shuts the client down, and {@code ownResources} too unless it is {@code null}. */
  static void shutdown(Connector connector, @Nullable ClientResources ownResources) {
    connector.client().shutdown(Duration.ZERO, Duration.ofSeconds(2));
    if (ownResources != null) {
      shutdownInBackground(ownResources);
    }
  }

  /** Shuts resources a session made down, without waiting for their threads. */
  @SuppressWarnings("FutureReturnValueIgnored") // the threads stop on their own within 2 s, and
  // a failure to stop them leaves nothing a caller could do; close never waited for them
  private static void shutdownInBackground(ClientResources resources) {
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
