package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.CacheUnavailableException;
import dev.stowage.StowageException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * The connection of one {@link dev.stowage.Stowage}: one shared, multiplexed Lettuce connection
 * with automatic flushing, which every cache and feed uses from any thread.
 *
 * <p>Bulk operations need no connection of their own. Each chunk of one is a single command
 * ({@code MGET}, {@code MSET}, {@code DEL}, {@code ZADD}, or a script that sets a chunk of keys
 * with their TTLs), so the shared connection sends a chunk as one write, and the commands of
 * concurrent callers travel pipelined anyway. Turning automatic flushing off, which hand-made
 * pipelines of single-key commands need, is never done here: on a shared connection it would
 * leave every other caller's commands in the buffer until someone flushed.
 *
 * <p>The connection reconnects on its own. While it is disconnected, commands are rejected at once
 * rather than queued, and every command times out after the command timeout, so no call waits
 * longer than that for Redis. Failures leave here as {@link CacheUnavailableException} (Redis
 * unreachable, or too slow) or {@link StowageException} (Redis refused the command), each naming
 * the address.
 */
public final class RedisSession implements AutoCloseable {
  private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final Delay RECONNECT_DELAY =
      Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS);

  private final ClientResources resources;
  private final RedisClient client;
  private final String address;
  private final Duration timeout;
  private final StatefulRedisConnection<byte[], byte[]> shared;
  private final Object closeLock = new Object();
  private volatile boolean closed;
  private volatile reactor.core.Disposable activations;

  private RedisSession(ClientResources resources, RedisClient client, String address, Duration timeout,
                       StatefulRedisConnection<byte[], byte[]> shared) {
    this.resources = resources;
    this.client = client;
    this.address = address;
    this.timeout = timeout;
    this.shared = shared;
  }

  /**
   * Connects to {@code uri}.
   *
   * @throws CacheUnavailableException if Redis cannot be reached within the timeout
   */
  public static RedisSession open(RedisURI uri, Duration timeout) {
    requireNonNull(uri, "uri");
    requireNonNull(timeout, "timeout");
    RedisURI target = RedisURI.builder(uri).withTimeout(timeout).build();
    String address = describe(target);
    ClientResources resources = DefaultClientResources.builder().reconnectDelay(RECONNECT_DELAY).build();
    RedisClient client = RedisClient.create(resources, target);
    client.setOptions(ClientOptions.builder()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(timeout))
        .socketOptions(SocketOptions.builder().connectTimeout(timeout).keepAlive(true).build())
        .build());
    try {
      StatefulRedisConnection<byte[], byte[]> shared = client.connect(ByteArrayCodec.INSTANCE);
      return new RedisSession(resources, client, address, timeout, shared);
    } catch (RuntimeException e) {
      shutdown(client, resources);
      throw new CacheUnavailableException("cannot connect to Redis at " + address + ": " + causeChain(e), e);
    }
  }

  /**
   * The messages along a cause chain, each once, joined by colons. Lettuce's "Unable to connect to
   * host:port" keeps the server's own reply (such as {@code ERR DB index is out of range}) in a cause.
   */
  public static String causeChain(Throwable error) {
    StringBuilder text = new StringBuilder();
    Throwable e = error;
    for (int depth = 0; e != null && depth < 10; depth++, e = e.getCause() == e ? null : e.getCause()) {
      String message = e.getMessage();
      if (message != null && !message.isBlank() && text.indexOf(message) < 0) {
        text.append(text.length() == 0 ? "" : ": ").append(message);
      }
    }
    return text.length() == 0 ? error.toString() : text.toString();
  }

  private static String describe(RedisURI uri) {
    if (uri.getHost() != null) {
      return uri.getHost() + ":" + uri.getPort();
    }
    if (uri.getSocket() != null) {
      return uri.getSocket();
    }
    return "sentinel " + uri.getSentinelMasterId() + " " + uri.getSentinels();
  }

  /** The address for messages, such as {@code 127.0.0.1:6380}. */
  public String address() {
    return address;
  }

  /** The command timeout. */
  public Duration timeout() {
    return timeout;
  }

  /** The shared, auto-flushing connection. */
  public StatefulRedisConnection<byte[], byte[]> shared() {
    checkOpen();
    return shared;
  }

  /**
   * Runs {@code task} on the common pool each time the connection becomes active after this call:
   * after every reconnection, for instance to restore keys that a restarted Redis lost. Only one
   * task is kept; a second call replaces the first.
   */
  public void onActivation(Runnable task) {
    requireNonNull(task, "task");
    reactor.core.Disposable previous = activations;
    activations = resources.eventBus().get()
        .filter(event -> event instanceof ConnectionActivatedEvent)
        .subscribe(event -> {
          if (!closed) {
            ForkJoinPool.commonPool().execute(task);
          }
        });
    if (previous != null) {
      previous.dispose();
    }
  }

  /**
   * Dispatches one command on the shared connection. The future fails with the translated
   * exception, never a Lettuce one.
   */
  public <T> CompletableFuture<T> call(String what,
                                       Function<RedisAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
    return translated(dispatch(command), what);
  }

  /**
   * Dispatches one command on the shared connection, untranslated: the caller translates failures
   * with {@link #translate} once it has looked at them. A failure to dispatch fails the future.
   */
  public <T> CompletableFuture<T> dispatch(Function<RedisAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
    try {
      return command.apply(shared().async()).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Whether {@code error} is Redis's WRONGTYPE reply: the key holds another type than expected. */
  public static boolean isWrongType(Throwable error) {
    Throwable e = unwrap(error);
    return e instanceof RedisCommandExecutionException && e.getMessage() != null
        && e.getMessage().startsWith("WRONGTYPE");
  }

  /** {@code future}, with a failure replaced by its translation. */
  public <T> CompletableFuture<T> translated(CompletableFuture<T> future, String what) {
    return future.exceptionallyCompose(e -> CompletableFuture.failedFuture(translate(e, what)));
  }

  /**
   * The exception a caller sees for {@code error}, which happened while running {@code what}:
   * Stowage's own exceptions and the loader's pass unchanged; Lettuce's are translated.
   */
  public RuntimeException translate(Throwable error, String what) {
    Throwable e = unwrap(error);
    if (e instanceof StowageException stowage) {
      return stowage;
    }
    if (e instanceof RedisCommandTimeoutException) {
      return new CacheUnavailableException("Redis at " + address + " did not answer " + what + " within "
          + timeout.toMillis() + " ms", e);
    }
    if (e instanceof RedisCommandExecutionException) {
      return new StowageException("Redis at " + address + " refused " + what + ": " + e.getMessage(), e);
    }
    if (e instanceof RedisCommandInterruptedException) {
      return new StowageException("interrupted while waiting for Redis at " + address + " (" + what + ")", e);
    }
    if (e instanceof RedisException) {
      if (closed) {
        return new IllegalStateException("this Stowage is closed");
      }
      return new CacheUnavailableException("Redis at " + address + " is unavailable (" + what + "): "
          + e.getMessage(), e);
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
   * Waits for a future of Redis commands that {@code rounds} round trips complete, at most the
   * command timeout per round trip and a margin, and returns its value.
   *
   * @throws CacheUnavailableException if the wait runs out
   */
  public <T> T await(CompletableFuture<T> future, int rounds, String what) {
    long perRound = timeout.toNanos();
    int times = Math.max(1, rounds);
    long bound = perRound > (Long.MAX_VALUE - MARGIN_NANOS) / times ? Long.MAX_VALUE : perRound * times + MARGIN_NANOS;
    try {
      return future.get(bound, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new CacheUnavailableException("Redis at " + address + " did not answer " + what + " within "
          + TimeUnit.NANOSECONDS.toMillis(bound) + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StowageException("interrupted while waiting for Redis at " + address + " (" + what + ")", e);
    } catch (ExecutionException e) {
      throw rethrowable(e.getCause(), what);
    }
  }

  /**
   * Waits for a future with no bound, for work that runs a loader, and returns its value.
   * Exceptions pass as {@link #translate} says.
   */
  public <T> T join(CompletableFuture<T> future, String what) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StowageException("interrupted while waiting for " + what, e);
    } catch (ExecutionException e) {
      throw rethrowable(e.getCause(), what);
    }
  }

  private RuntimeException rethrowable(Throwable cause, String what) {
    return translate(cause, what);
  }

  private static Throwable unwrap(Throwable error) {
    Throwable e = error;
    while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
      e = e.getCause();
    }
    if (e instanceof CancellationException) {
      return new StowageException("the operation was cancelled", e);
    }
    return e;
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("this Stowage is closed");
    }
  }

  /** Closes the connection and the client's threads. Idempotent. */
  @Override
  public void close() {
    synchronized (closeLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    reactor.core.Disposable subscription = activations;
    if (subscription != null) {
      subscription.dispose();
    }
    shared.close();
    shutdown(client, resources);
  }

  private static void shutdown(RedisClient client, ClientResources resources) {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }
}
