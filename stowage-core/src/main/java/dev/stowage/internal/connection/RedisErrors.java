package dev.stowage.internal.connection;

import dev.stowage.CacheUnavailableException;
import dev.stowage.StowageException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.protocol.RedisCommand;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * What Redis's and Lettuce's failures mean to a caller: which replies say Redis cannot serve a
 * command now, which send it elsewhere, and the exception a caller sees for each failure ({@link
 * CacheUnavailableException} when Redis is unreachable or too slow, {@link StowageException} when
 * it refused), each naming the address. Stateless.
 */
public final class RedisErrors {
  private RedisErrors() {}

  /**
   * The messages along a cause chain, each once, joined by colons. Lettuce's "Unable to connect to
   * host:port" keeps the server's own reply (such as {@code ERR DB index is out of range}) in a
   * cause.
   */
  @SuppressWarnings("ReferenceEquality") // a cause that is the exception itself ends the chain
  public static String causeChain(Throwable error) {
    StringBuilder text = new StringBuilder();
    Throwable e = error;
    for (int depth = 0;
        e != null && depth < 10;
        depth++, e = e.getCause() == e ? null : e.getCause()) {
      String message = e.getMessage();
      if (message != null && !message.isBlank() && text.indexOf(message) < 0) {
        text.append(text.length() == 0 ? "" : ": ").append(message);
      }
    }
    return text.length() == 0 ? error.toString() : text.toString();
  }

  /**
   * What a failure to connect says: Redis refused the credentials (WRONGPASS, NOAUTH) or a step of
   * the connection's setup such as {@code SELECT} (a {@link StowageException}: trying again will
   * not help), or could not be reached or spoken to (a {@link CacheUnavailableException}).
   */
  static StowageException connectFailure(String address, Throwable error) {
    RedisCommandExecutionException refusal = cause(error, RedisCommandExecutionException.class);
    if (refusal != null) {
      String reply = String.valueOf(refusal.getMessage());
      if (isCredentialsRefusal(reply)) {
        return new StowageException(
            "Redis at " + address + " refused the credentials: " + reply, error);
      }
      return new StowageException(
          "Redis at " + address + " refused to set up the connection: " + reply, error);
    }
    SSLException tls = cause(error, SSLException.class);
    if (tls != null) {
      return new CacheUnavailableException(
          "cannot connect to Redis at "
              + address
              + ": the TLS handshake failed ("
              + tls.getMessage()
              + ")",
          error);
    }
    return new CacheUnavailableException(
        "cannot connect to Redis at " + address + ": " + causeChain(error), error);
  }

  private static boolean isCredentialsRefusal(String reply) {
    return reply.startsWith("WRONGPASS")
        || reply.startsWith("NOAUTH")
        || reply.startsWith("ERR AUTH")
        || reply.startsWith("ERR invalid password");
  }

  /**
   * The first {@code type} among {@code error}, its causes and what they suppressed: a cluster
   * client that reached no seed reports each seed's failure as a suppressed exception.
   */
  private static <T extends Throwable> @Nullable T cause(Throwable error, Class<T> type) {
    Throwable found = find(error, type::isInstance);
    return found == null ? null : type.cast(found);
  }

  /** The first of {@code error}, its causes and what they suppressed that passes {@code test}. */
  static @Nullable Throwable find(Throwable error, Predicate<Throwable> test) {
    return find(error, test, Collections.newSetFromMap(new IdentityHashMap<>()));
  }

  private static @Nullable Throwable find(
      @Nullable Throwable error, Predicate<Throwable> test, Set<Throwable> seen) {
    if (error == null || !seen.add(error)) {
      return null;
    }
    if (test.test(error)) {
      return error;
    }
    Throwable found = find(error.getCause(), test, seen);
    for (Throwable suppressed : error.getSuppressed()) {
      if (found != null) {
        break;
      }
      found = find(suppressed, test, seen);
    }
    return found;
  }

  /**
   * The replies that say Redis cannot serve the command now, not that it refuses it: a cluster that
   * lost a master's slots ({@code CLUSTERDOWN}), keys of a slot caught mid-migration ({@code
   * TRYAGAIN}), a replica cut off from its master ({@code MASTERDOWN}), a server loading its data
   * ({@code LOADING}), and redirections still unresolved after Lettuce's retries ({@code MOVED},
   * {@code ASK}: the topology is changing). Callers see them as {@link CacheUnavailableException},
   * as they see an unreachable server.
   */
  public static boolean isUnavailableReply(@Nullable String reply) {
    if (reply == null) {
      return false;
    }
    return reply.startsWith("CLUSTERDOWN")
        || reply.startsWith("TRYAGAIN")
        || reply.startsWith("MASTERDOWN")
        || reply.startsWith("LOADING")
        || reply.startsWith("MOVED ")
        || reply.startsWith("ASK ");
  }

  /**
   * Whether {@code error} is a reply that sends the command elsewhere or later: {@code MOVED} or
   * {@code ASK} (another master serves, or is being given, the slot) or {@code TRYAGAIN} (the slot
   * is being migrated). A command sent on a master's own connection, which follows no redirection,
   * is sent again through the shared connection when it gets one.
   */
  public static boolean isRedirection(Throwable error) {
    String reply = reply(error);
    return reply != null
        && (reply.startsWith("MOVED ") || reply.startsWith("ASK ") || reply.startsWith("TRYAGAIN"));
  }

  /**
   * Whether {@code error} is Redis's TRYAGAIN reply to a multi-key command on a slot being
   * migrated.
   */
  public static boolean isTryAgain(Throwable error) {
    String reply = reply(error);
    return reply != null && reply.startsWith("TRYAGAIN");
  }

  /** Whether {@code error} is Redis's WRONGTYPE reply: the key holds another type than expected. */
  public static boolean isWrongType(Throwable error) {
    String reply = reply(error);
    return reply != null && reply.startsWith("WRONGTYPE");
  }

  /** Redis's reply, if {@code error} is one. */
  private static @Nullable String reply(Throwable error) {
    return unwrap(error) instanceof RedisCommandExecutionException refused
        ? refused.getMessage()
        : null;
  }

  /**
   * {@code future} of the command {@code sent}, with a {@code NOPERM} reply kept with the command
   * it answered, so that {@link #translate} names what the user may not do.
   */
  static <T> CompletableFuture<T> namingRefusedCommand(
      RedisFuture<T> sent, CompletableFuture<T> future) {
    if (!(sent instanceof RedisCommand<?, ?, ?> redisCommand)) {
      return future;
    }
    return future.exceptionallyCompose(
        e ->
            CompletableFuture.failedFuture(
                e instanceof RedisCommandExecutionException refused
                        && String.valueOf(e.getMessage()).startsWith("NOPERM")
                    ? new PermissionRefused(redisCommand.getType().toString(), refused)
                    : e));
  }

  /**
   * The exception a caller sees for {@code error}, which happened while running {@code what} on
   * Redis at {@code address}: Stowage's own exceptions and the loader's pass unchanged; Lettuce's
   * are translated, a broken connection to an {@link IllegalStateException} once {@code closed}.
   */
  static RuntimeException translate(
      Throwable error, String what, String address, Duration timeout, boolean closed) {
    Throwable e = unwrap(error);
    if (e instanceof StowageException stowage) {
      return stowage;
    }
    if (e instanceof RedisCommandTimeoutException) {
      return new CacheUnavailableException(
          "Redis at "
              + address
              + " did not answer "
              + what
              + " within "
              + timeout.toMillis()
              + " ms",
          e);
    }
    if (e instanceof PermissionRefused refused) {
      return new StowageException(
          "Redis at "
              + address
              + " refused "
              + refused.command
              + " ("
              + what
              + "): "
              + e.getMessage(),
          e.getCause());
    }
    if (e instanceof RedisCommandExecutionException && isUnavailableReply(e.getMessage())) {
      return new CacheUnavailableException(
          "Redis at " + address + " is unavailable (" + what + "): " + e.getMessage(), e);
    }
    if (e instanceof RedisCommandExecutionException) {
      return new StowageException(
          "Redis at " + address + " refused " + what + ": " + e.getMessage(), e);
    }
    if (e instanceof RedisCommandInterruptedException) {
      return new StowageException(
          "interrupted while waiting for Redis at " + address + " (" + what + ")", e);
    }
    if (e instanceof RedisException || e instanceof IOException) {
      // IOException: a command in flight when its connection broke (a reset, a closed channel).
      if (closed) {
        return new IllegalStateException("this Stowage is closed");
      }
      return new CacheUnavailableException(
          "Redis at " + address + " is unavailable (" + what + "): " + e.getMessage(), e);
    }
    if (e instanceof RuntimeException runtime) {
      return runtime;
    }
    if (e instanceof Error fatal) {
      throw fatal;
    }
    return new StowageException(what + " failed: " + e, e);
  }

  /**
   * The failure inside {@link CompletionException}s and {@link ExecutionException}s; a cancellation
   * becomes a {@link StowageException}.
   */
  static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    if (e instanceof CancellationException) {
      return new StowageException("the operation was cancelled", e);
    }
    return e;
  }

  /** Redis's NOPERM reply, with the command it answered. */
  private static final class PermissionRefused extends RedisCommandExecutionException {
    private static final long serialVersionUID = 1L;
    final String command;

    PermissionRefused(String command, RedisCommandExecutionException reply) {
      super(reply.getMessage(), reply);
      this.command = command;
    }
  }
}
