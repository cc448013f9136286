package dev.stowage.internal.connection;

import static java.util.Objects.requireNonNull;

import dev.stowage.CacheUnavailableException;
import dev.stowage.StowageException;
import dev.stowage.internal.Futures;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * The connection of one {@link dev.stowage.Stowage}: one shared, multiplexed Lettuce connection
 * with automatic flushing, which every cache, feed and the dictionary store use from any thread.
 * Given a Sentinel URI, Lettuce asks the sentinels for the master's address on every connection and
 * reconnection, so after a failover (Sentinel disconnects the clients of the former master) the
 * connection, and everything on it, follows the new master.
 *
 * <p>On a Redis Cluster ({@link #openCluster}) the shared connection is Lettuce's cluster
 * connection: one connection per node beneath it, each command sent to the master that serves its
 * key's slot, {@code MOVED} and {@code ASK} redirections followed, and the topology (which master
 * serves which slots) refreshed every {@link #TOPOLOGY_REFRESH_PERIOD} and whenever a redirection
 * or a node's persistent reconnection says it changed. Bulk operations are planned by slot ({@link
 * #slotMasters}): a multi-key command may only touch one slot. Each chunk of one goes to its master
 * as one batch on that master's own connection ({@link #masterConnection}), since the cluster
 * connection flushes every command on its own; what the master redirects is sent again through the
 * cluster connection (the storages' master batches).
 *
 * <p>Bulk operations need no connection of their own. Each chunk of one is a single command ({@code
 * MGET}, {@code MSET}, {@code DEL}, {@code ZADD}, or a script that sets a chunk of keys with their
 * TTLs), so the shared connection sends a chunk as one write, and the commands of concurrent
 * callers travel pipelined anyway. Turning automatic flushing off, which hand-made pipelines of
 * single-key commands need, is never done here: on a shared connection it would leave every other
 * caller's commands in the buffer until someone flushed.
 *
 * <p>The connection reconnects on its own. While it is disconnected, commands are rejected at once
 * rather than queued, and every command times out after the command timeout, so no call waits
 * longer than that for Redis. Failures leave here as {@link CacheUnavailableException} (Redis
 * unreachable, or too slow) or {@link StowageException} (Redis refused the command), each naming
 * the address.
 */
public final class RedisSession implements AutoCloseable {
  private static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  /** How often a cluster session asks the nodes for the topology, whatever happens. */
  public static final Duration TOPOLOGY_REFRESH_PERIOD = Duration.ofSeconds(30);

  /** How often a session opened in the background tries to reach Redis until it first does. */
  public static final Duration BACKGROUND_RETRY = Duration.ofSeconds(1);

  private final ClientResources resources;

  /** Whether this session made {@link #resources} and so shuts them down on close. */
  private final boolean ownsResources;

  /** The client, for one server, Sentinel or a cluster. */
  private final Connector connector;

  private final Duration timeout;

  /**
   * The shared connection, a {@link StatefulRedisConnection} or, on a cluster, a {@link
   * StatefulRedisClusterConnection}; null until a session opened in the background first reaches
   * Redis.
   */
  private volatile @Nullable StatefulConnection<byte[], byte[]> shared;

  private final ConnectionEvents events = new ConnectionEvents(this);
  private final ClusterTopology topology = new ClusterTopology(this);
  private final TrackingConnections tracking = new TrackingConnections(this);
  private final Object closeLock = new Object();
  private volatile boolean closed;

  /** Whether this session is on a Redis Cluster. */
  public boolean isCluster() {
    return connector instanceof ClusterConnector;
  }

  /**
   * The threads that decode replies too large to decode on the connection's I/O thread: Lettuce's
   * computation pool of this session's resources.
   */
  public Executor decodeExecutor() {
    return resources.eventExecutorGroup();
  }

  /**
   * Connects to {@code uri} with resources and options of its own.
   *
   * @throws CacheUnavailableException if Redis cannot be reached within the timeout
   * @throws StowageException if Redis refuses the credentials or the connection's setup
   */
  public static RedisSession open(RedisURI uri, Duration timeout) {
    return open(uri, timeout, timeout, null, null);
  }

  /**
   * Connects to {@code uri}, a standalone or a Sentinel URI.
   *
   * @param resources the application's event loops and timers, which the session uses and never
   *     shuts down; {@code null} for resources of its own, shut down on {@link #close()}
   * @param options the application's client options (TLS, socket, protocol), or {@code null} for
   *     Lettuce's defaults; either way the session enforces what its contract rests on: automatic
   *     reconnection, commands rejected while disconnected, {@code timeout} for every command and
   *     {@code connectTimeout} for connecting
   * @throws CacheUnavailableException if Redis cannot be reached within the timeout, or the TLS
   *     handshake fails
   * @throws StowageException if Redis refuses the credentials or the connection's setup
   */
  public static RedisSession open(
      RedisURI uri,
      Duration timeout,
      Duration connectTimeout,
      @Nullable ClientResources resources,
      @Nullable ClientOptions options) {
    return connect(uri, timeout, connectTimeout, resources, options, false);
  }

  /**
   * As {@link #open(RedisURI, Duration, Duration, ClientResources, ClientOptions)}, except that
   * when Redis cannot be reached now the session is returned anyway, without a connection: every
   * call fails with {@link CacheUnavailableException} until a connection tried every {@link
   * #BACKGROUND_RETRY} succeeds, after which the session is as if opened normally and the
   * activation tasks run.
   *
   * @throws StowageException if Redis refuses the credentials or the connection's setup (trying
   *     again would not help)
   */
  public static RedisSession openInBackground(
      RedisURI uri,
      Duration timeout,
      Duration connectTimeout,
      @Nullable ClientResources resources,
      @Nullable ClientOptions options) {
    return connect(uri, timeout, connectTimeout, resources, options, true);
  }

  private static RedisSession connect(
      RedisURI uri,
      Duration timeout,
      Duration connectTimeout,
      @Nullable ClientResources resources,
      @Nullable ClientOptions options,
      boolean inBackground) {
    requireNonNull(uri, "uri");
    requireNonNull(timeout, "timeout");
    requireNonNull(connectTimeout, "connectTimeout");
    return SessionStart.connected(
        resources,
        used -> ServerConnector.create(uri, timeout, connectTimeout, used, options),
        timeout,
        inBackground);
  }

  /**
   * Connects to a Redis Cluster through {@code seeds}, any of its nodes: Lettuce asks them for the
   * topology, then connects to the nodes it needs. Otherwise as {@link #open(RedisURI, Duration,
   * Duration, ClientResources, ClientOptions)}; the options are the cluster's with the topology
   * refreshed every {@link #TOPOLOGY_REFRESH_PERIOD} and on every redirection and persistent
   * reconnection.
   *
   * @throws IllegalArgumentException if there is no seed, or a seed is a Sentinel or socket URI or
   *     names a database other than 0 (a cluster has only database 0)
   * @throws CacheUnavailableException if no seed can be reached within the connect timeout
   * @throws StowageException if Redis refuses the credentials or the connection's setup
   */
  public static RedisSession openCluster(
      List<RedisURI> seeds,
      Duration timeout,
      Duration connectTimeout,
      @Nullable ClientResources resources,
      @Nullable ClientOptions options,
      boolean inBackground) {
    requireNonNull(seeds, "seeds");
    requireNonNull(timeout, "timeout");
    requireNonNull(connectTimeout, "connectTimeout");
    ClusterConnector.clusterSeeds(seeds, timeout);
    return SessionStart.connected(
        resources,
        used -> ClusterConnector.create(seeds, timeout, connectTimeout, used, options),
        timeout,
        inBackground);
  }

  /** A session of {@code connector}'s client, whose shared connection may not exist yet. */
  RedisSession(
      ClientResources resources,
      boolean ownsResources,
      Connector connector,
      Duration timeout,
      @Nullable StatefulConnection<byte[], byte[]> shared) {
    this.resources = resources;
    this.ownsResources = ownsResources;
    this.connector = connector;
    this.timeout = timeout;
    this.shared = shared;
  }

  /**
   * Makes {@code connection}, which a session opened in the background made once it first reached
   * Redis, the shared connection, and runs the activation tasks; closes it instead if this session
   * is closed.
   */
  void activate(StatefulConnection<byte[], byte[]> connection) {
    synchronized (closeLock) {
      if (closed) {
        Futures.closingInBackground(connection.closeAsync(), "a connection to " + address());
        return;
      }
      shared = connection;
    }
    System.getLogger("dev.stowage")
        .log(System.Logger.Level.INFO, "connected to Redis at " + connector.address());
    events.runActivationTasks();
  }

  /** The address for messages, such as {@code 127.0.0.1:6380}. */
  public String address() {
    return connector.address();
  }

  /** The command timeout. */
  public Duration timeout() {
    return timeout;
  }

  /** How this session reaches Redis. */
  Connector connector() {
    return connector;
  }

  /** This session's resources. */
  ClientResources resources() {
    return resources;
  }

  /**
   * The shared connection as it is now: null before a session opened in the background connects.
   */
  @Nullable StatefulConnection<byte[], byte[]> current() {
    return shared;
  }

  /** Whether {@link #close()} was called. */
  boolean isClosed() {
    return closed;
  }

  /**
   * The shared, auto-flushing connection: a {@link StatefulRedisConnection}, or a {@link
   * StatefulRedisClusterConnection} on a cluster ({@link SharedCommands} sends commands on either).
   *
   * @throws CacheUnavailableException if a session {@linkplain #openInBackground opened in the
   *     background} has not reached Redis yet
   */
  public StatefulConnection<byte[], byte[]> shared() {
    checkOpen();
    StatefulConnection<byte[], byte[]> current = shared;
    if (current == null) {
      throw new CacheUnavailableException(
          "Redis at "
              + address()
              + " has not been reached yet; trying again every "
              + BACKGROUND_RETRY.toMillis()
              + " ms");
    }
    return current;
  }

  /**
   * Whether the shared connection is connected now: false while it reconnects (commands are then
   * rejected at once), before a session opened in the background first connects, and once closed.
   */
  public boolean isConnectedNow() {
    StatefulConnection<byte[], byte[]> current = shared;
    return current != null && !closed && current.isOpen();
  }

  /**
   * Whether the shared connection exists (always, unless opened in the background and not connected
   * yet).
   */
  public boolean isConnected() {
    return shared != null;
  }

  // ---------------------------------------------------------------- topology

  /**
   * Which master serves each hash slot, as the topology known now says: on a cluster, the master's
   * address, or {@code null} for a slot no known master serves (and for every slot while a session
   * opened in the background has not reached Redis); on one server, {@code null} for every slot.
   * The topology is taken once, when this is called, so one bulk operation plans on one topology.
   */
  public IntFunction<@Nullable MasterAddress> slotMasters() {
    return topology.slotMasters();
  }

  /**
   * The connection to the master at {@code host:port} that the shared cluster connection keeps
   * (connecting, without blocking, where it has none yet). It follows no redirection.
   *
   * @throws IllegalStateException if this session is not on a cluster
   * @throws CacheUnavailableException if a session opened in the background has not reached Redis
   *     yet
   */
  public CompletableFuture<StatefulRedisConnection<byte[], byte[]>> masterConnection(
      String host, int port) {
    return topology.masterConnection(host, port);
  }

  /**
   * The commands of each master's own connection, for what must run on every master, such as {@code
   * SCAN}: on a cluster the connections to the masters that serve slots now, which the shared
   * connection keeps (connecting where it has none yet, without blocking); on one server the shared
   * connection alone. Each is named as messages name it.
   *
   * @throws CacheUnavailableException if a session opened in the background has not reached Redis
   *     yet
   */
  public List<Node> masters() {
    return topology.masters();
  }

  /** A master and the commands of its own connection. */
  public record Node(
      String address, CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> commands) {}

  /**
   * The masters that serve slots now, as the shared cluster connection knows the topology, by node
   * id; each URI is the seed's (credentials, TLS, client name, timeout) with the node's host and
   * port. Empty before a session opened in the background first reaches Redis; on one server, the
   * server alone.
   */
  public Map<String, RedisURI> topology() {
    return topology.topology();
  }

  /**
   * Calls {@code listener} with the masters that serve slots (as {@link #topology()} gives them)
   * each time a refresh finds that the cluster's topology changed: a replica promoted, a slot
   * moved, a node added or gone. It runs on one of Lettuce's threads and should not block. Nothing
   * happens on one server. Dispose the result to stop; closing the session stops it too.
   */
  public Disposable onTopologyChange(Consumer<Map<String, RedisURI>> listener) {
    requireNonNull(listener, "listener");
    checkOpen();
    return topology.onTopologyChange(listener);
  }

  // ---------------------------------------------------------------- connection events

  /**
   * Runs {@code task} on the common pool each time the shared connection becomes active after this
   * call: after every reconnection, for instance to restore keys that a restarted Redis lost, or
   * that a new master lacks. Other connections, such as those that ask sentinels for the master or
   * those of the application on shared resources, do not run it. A session opened in the background
   * also runs it when it first connects. Tasks are kept in the order added.
   *
   * <p>On a cluster, the shared connection is many: the tasks run when a connection to a node
   * reconnects, and when the topology changed (after a failover, a promoted replica may lack what
   * was written to its master just before it failed). The connections that only ask the nodes for
   * the topology connect once each and never run them.
   */
  public void onActivation(Runnable task) {
    events.onActivation(requireNonNull(task, "task"));
  }

  /**
   * Runs {@code task} at once, on the Lettuce thread that saw it, each time Redis may have lost
   * what it held: when the shared connection drops, and before the {@linkplain #onActivation
   * activation tasks} when it connects again or a cluster's topology changed. It must be quick and
   * never block.
   */
  public void onDeactivation(Runnable task) {
    events.onDeactivation(requireNonNull(task, "task"));
  }

  /**
   * Runs {@code task} once after {@code delayMillis} on this session's executor (Lettuce's
   * computation threads); it should not block.
   *
   * @throws java.util.concurrent.RejectedExecutionException if the executor is shut down
   */
  public ScheduledFuture<?> schedule(Runnable task, long delayMillis) {
    requireNonNull(task, "task");
    return resources.eventExecutorGroup().schedule(task, delayMillis, TimeUnit.MILLISECONDS);
  }

  // ---------------------------------------------------------------- tracking connections

  /**
   * A new connection to the same Redis, with the same resources and options, that speaks RESP3 (for
   * tracking: its invalidations arrive as push messages). {@code listener} hears of its
   * disconnections and reconnections. The connection is closed with this session.
   *
   * @throws CacheUnavailableException if it cannot connect, or Redis refuses RESP3 ({@code HELLO})
   * @throws StowageException if Redis refuses the credentials or the connection's setup
   */
  public StatefulRedisConnection<byte[], byte[]> connectResp3(
      RedisConnectionStateListener listener) {
    checkOpen();
    return tracking.connect(listener);
  }

  /**
   * A RESP3 connection of its own to {@code node}, one of {@link #topology()}'s, with this
   * session's resources and options, for tracking one master of a cluster; as {@link
   * #connectResp3(RedisConnectionStateListener)}, but without waiting. The future fails with a
   * {@link CacheUnavailableException} (or a {@link StowageException} if Redis refused the
   * credentials or the setup). Give the connection back with {@link #releaseResp3}; closing the
   * session closes it too.
   */
  public CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connectResp3(
      RedisURI node, RedisConnectionStateListener listener) {
    requireNonNull(node, "node");
    requireNonNull(listener, "listener");
    checkOpen();
    return tracking.connect(node, listener);
  }

  /**
   * Closes a connection that {@link #connectResp3(RedisURI, RedisConnectionStateListener)} made,
   * without waiting.
   */
  public void releaseResp3(StatefulRedisConnection<byte[], byte[]> connection) {
    tracking.release(connection);
  }

  // ---------------------------------------------------------------- dispatch and errors

  /**
   * Dispatches one command on the shared connection. The future fails with the translated
   * exception, never a Lettuce one.
   */
  public <T> CompletableFuture<T> call(
      String what, Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
    return translated(dispatch(command), what);
  }

  /**
   * Dispatches one command on the shared connection, untranslated: the caller translates failures
   * with {@link #translate} once it has looked at them. A failure to dispatch fails the future.
   */
  public <T> CompletableFuture<T> dispatch(
      Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
    RedisClusterAsyncCommands<byte[], byte[]> commands;
    try {
      commands = SharedCommands.async(shared());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return dispatchOn(commands, command);
  }

  /**
   * As {@link #dispatch}, on {@code commands}: those of the shared connection, or of one master's
   * ({@link #masters}).
   */
  public <T> CompletableFuture<T> dispatchOn(
      RedisClusterAsyncCommands<byte[], byte[]> commands,
      Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command) {
    RedisFuture<T> sent;
    try {
      sent = command.apply(commands);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return RedisErrors.namingRefusedCommand(sent, sent.toCompletableFuture());
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
    return RedisErrors.translate(error, what, address(), timeout, closed);
  }

  // ---------------------------------------------------------------- waiting

  /**
   * Waits for a future of Redis commands that {@code rounds} round trips complete, at most the
   * command timeout per round trip and a margin, and returns its value.
   *
   * @throws CacheUnavailableException if the wait runs out
   */
  public <T> T await(CompletableFuture<T> future, int rounds, String what) {
    long bound = awaitNanos(rounds);
    try {
      return future.get(bound, TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      throw new CacheUnavailableException(
          "Redis at "
              + address()
              + " did not answer "
              + what
              + " within "
              + TimeUnit.NANOSECONDS.toMillis(bound)
              + " ms",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StowageException(
          "interrupted while waiting for Redis at " + address() + " (" + what + ")", e);
    } catch (ExecutionException e) {
      throw rethrowable(e.getCause(), what);
    }
  }

  /**
   * How long {@link #await} waits for {@code rounds} round trips: the command timeout each, and a
   * margin.
   */
  public long awaitNanos(int rounds) {
    long perRound = timeout.toNanos();
    int times = Math.max(1, rounds);
    return perRound > (Long.MAX_VALUE - MARGIN_NANOS) / times
        ? Long.MAX_VALUE
        : perRound * times + MARGIN_NANOS;
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

  private RuntimeException rethrowable(@Nullable Throwable cause, String what) {
    return translate(requireNonNull(cause, "an ExecutionException's cause"), what);
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
    events.close();
    topology.close();
    StatefulConnection<byte[], byte[]> current = shared;
    if (current != null) {
      current.close();
    }
    tracking.close();
    SessionStart.shutdown(connector, ownsResources ? resources : null);
  }
}
