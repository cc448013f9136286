package dev.stowage.internal.connection;

import static java.util.Objects.requireNonNull;

import dev.stowage.CacheUnavailableException;
import dev.stowage.StowageException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandInterruptedException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import java.io.IOException;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import javax.net.ssl.SSLException;
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
  private static final Delay RECONNECT_DELAY =
      Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS);

  /** How often a cluster session asks the nodes for the topology, whatever happens. */
  public static final Duration TOPOLOGY_REFRESH_PERIOD = Duration.ofSeconds(30);

  /**
   * The least time between two refreshes of the topology that redirections or reconnections
   * trigger: short, so that the replica promoted after a failover is found within a second or two
   * of its promotion, yet a bound on how often a busy client asks every node during one.
   */
  static final Duration ADAPTIVE_REFRESH_LIMIT = Duration.ofSeconds(1);

  private final ClientResources resources;

  /** Whether this session made {@link #resources} and so shuts them down on close. */
  private final boolean ownsResources;

  /** A {@link RedisClient}, or a {@link RedisClusterClient} for a cluster. */
  private final AbstractRedisClient client;

  private final String address;
  private final Duration timeout;

  /**
   * The shared connection, a {@link StatefulRedisConnection} or, on a cluster, a {@link
   * StatefulRedisClusterConnection}; null until a session opened in the background first reaches
   * Redis.
   */
  private volatile @Nullable StatefulConnection<byte[], byte[]> shared;

  private final List<Runnable> activationTasks = new CopyOnWriteArrayList<>();
  private final List<Runnable> deactivationTasks = new CopyOnWriteArrayList<>();

  /** The server, or the first seed of a cluster. */
  private final RedisURI target;

  private final ClientOptions options;
  private final List<RedisClient> resp3Clients = new CopyOnWriteArrayList<>();
  private final Object closeLock = new Object();
  private volatile boolean closed;
  private volatile @Nullable RedisConnectionStateListener activations;
  private volatile @Nullable Disposable topologyChanges;

  private RedisSession(
      ClientResources resources,
      boolean ownsResources,
      AbstractRedisClient client,
      String address,
      Duration timeout,
      @Nullable StatefulConnection<byte[], byte[]> shared,
      RedisURI target,
      ClientOptions options) {
    this.target = target;
    this.options = options;
    this.resources = resources;
    this.ownsResources = ownsResources;
    this.client = client;
    this.address = address;
    this.timeout = timeout;
    this.shared = shared;
  }

  /** Whether this session is on a Redis Cluster. */
  public boolean isCluster() {
    return client instanceof RedisClusterClient;
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
    RedisURI target = withTimeout(uri, timeout);
    String address = describe(target);
    boolean ownsResources = resources == null;
    ClientResources used =
        resources == null
            ? DefaultClientResources.builder().reconnectDelay(RECONNECT_DELAY).build()
            : resources;
    RedisClient client = RedisClient.create(used, target);
    ClientOptions enforced = enforced(options, timeout, connectTimeout);
    client.setOptions(enforced);
    return connected(
        used,
        ownsResources,
        client,
        address,
        timeout,
        target,
        enforced,
        inBackground,
        () -> connectOnce(() -> client.connect(ByteArrayCodec.INSTANCE)));
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
    List<RedisURI> targets = clusterSeeds(seeds, timeout);
    String address = describeCluster(targets);
    boolean ownsResources = resources == null;
    ClientResources used =
        resources == null
            ? DefaultClientResources.builder().reconnectDelay(RECONNECT_DELAY).build()
            : resources;
    RedisClusterClient client = RedisClusterClient.create(used, targets);
    ClusterClientOptions enforced = enforcedForCluster(options, timeout, connectTimeout);
    client.setOptions(enforced);
    return connected(
        used,
        ownsResources,
        client,
        address,
        timeout,
        targets.get(0),
        enforced,
        inBackground,
        () -> connectOnce(() -> client.connect(ByteArrayCodec.INSTANCE)));
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
                + describe(seed)
                + " names database "
                + seed.getDatabase());
      }
      copies.add(withTimeout(seed, timeout));
    }
    return List.copyOf(copies);
  }

  /**
   * What a cluster is called in messages: {@code cluster 10.0.0.1:6379, 10.0.0.2:6379} (its seeds).
   */
  static String describeCluster(List<RedisURI> seeds) {
    return "cluster "
        + seeds.stream().map(RedisSession::describe).collect(Collectors.joining(", "));
  }

  /** The cluster's options: {@code given} as {@link #enforced}, with the topology refreshed. */
  static ClusterClientOptions enforcedForCluster(
      @Nullable ClientOptions given, Duration timeout, Duration connectTimeout) {
    ClientOptions base = enforced(given, timeout, connectTimeout);
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
                .enablePeriodicRefresh(TOPOLOGY_REFRESH_PERIOD)
                .enableAllAdaptiveRefreshTriggers()
                .adaptiveRefreshTriggersTimeout(ADAPTIVE_REFRESH_LIMIT)
                .build())
        .build();
  }

  /** The session once {@code connect} has connected; see {@link #connect}. */
  private static RedisSession connected(
      ClientResources used,
      boolean ownsResources,
      AbstractRedisClient client,
      String address,
      Duration timeout,
      RedisURI target,
      ClientOptions enforced,
      boolean inBackground,
      Supplier<StatefulConnection<byte[], byte[]>> connect) {
    StatefulConnection<byte[], byte[]> connected;
    try {
      connected = connect.get();
    } catch (RuntimeException e) {
      StowageException failure = connectFailure(address, e);
      if (!inBackground || !(failure instanceof CacheUnavailableException)) {
        shutdown(client, ownsResources ? used : null);
        throw failure;
      }
      System.getLogger("dev.stowage")
          .log(
              System.Logger.Level.WARNING,
              failure.getMessage()
                  + "; starting without it and trying again every "
                  + BACKGROUND_RETRY.toMillis()
                  + " ms");
      connected = null;
    }
    RedisSession session =
        new RedisSession(
            used, ownsResources, client, address, timeout, connected, target, enforced);
    if (connected == null) {
      session.retryInBackground();
    }
    return session;
  }

  /**
   * Connects, once more when Lettuce lost the reason of a failed handshake: when Redis refuses the
   * credentials, Lettuce (seen with 6.5) sometimes reports that its handshake handler was already
   * removed instead of Redis's reply (one test run in four here), and a second attempt reports the
   * reply, so a wrong password is told apart from an unreachable server.
   */
  private static StatefulConnection<byte[], byte[]> connectOnce(
      Supplier<? extends StatefulConnection<byte[], byte[]>> connect) {
    try {
      return connect.get();
    } catch (RuntimeException e) {
      if (!causeChain(e).contains(LOST_HANDSHAKE)) {
        throw e;
      }
      return connect.get();
    }
  }

  /** What Lettuce says when a failed handshake lost Redis's reply. */
  private static final String LOST_HANDSHAKE = "RedisHandshakeHandler not registered";

  /**
   * A copy of {@code uri} with {@code timeout}. {@code RedisURI.builder(uri)} copies neither the
   * sentinels nor the master's name, so they are added here, each sentinel copied too.
   */
  static RedisURI withTimeout(RedisURI uri, Duration timeout) {
    RedisURI.Builder builder = RedisURI.builder(uri).withTimeout(timeout);
    for (RedisURI sentinel : uri.getSentinels()) {
      builder.withSentinel(RedisURI.builder(sentinel).withTimeout(timeout).build());
    }
    if (uri.getSentinelMasterId() != null) {
      builder.withSentinelMasterId(uri.getSentinelMasterId());
    }
    return builder.build();
  }

  /** {@code given}, or Lettuce's defaults, with what this session's contract rests on. */
  static ClientOptions enforced(
      @Nullable ClientOptions given, Duration timeout, Duration connectTimeout) {
    ClientOptions base =
        given != null
            ? given
            : ClientOptions.builder()
                .socketOptions(SocketOptions.builder().keepAlive(true).build())
                .build();
    return base.mutate()
        .autoReconnect(true)
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .timeoutOptions(TimeoutOptions.enabled(timeout))
        .socketOptions(base.getSocketOptions().mutate().connectTimeout(connectTimeout).build())
        .build();
  }

  /**
   * The messages along a cause chain, each once, joined by colons. Lettuce's "Unable to connect to
   * host:port" keeps the server's own reply (such as {@code ERR DB index is out of range}) in a
   * cause.
   */
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
   * The address for messages: {@code host:port}, a socket's path, or, for Sentinel, the master's
   * name and the sentinels: {@code mymaster (sentinels 10.0.0.1:26379, 10.0.0.2:26379)}.
   */
  static String describe(RedisURI uri) {
    if (uri.getHost() != null) {
      return uri.getHost() + ":" + uri.getPort();
    }
    if (uri.getSocket() != null) {
      return uri.getSocket();
    }
    return uri.getSentinelMasterId()
        + " (sentinels "
        + uri.getSentinels().stream()
            .map(sentinel -> sentinel.getHost() + ":" + sentinel.getPort())
            .collect(Collectors.joining(", "))
        + ")";
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
    return cause(error, type, Collections.newSetFromMap(new IdentityHashMap<>()));
  }

  private static <T extends Throwable> @Nullable T cause(
      @Nullable Throwable error, Class<T> type, Set<Throwable> seen) {
    if (error == null || !seen.add(error)) {
      return null;
    }
    if (type.isInstance(error)) {
      return type.cast(error);
    }
    T found = cause(error.getCause(), type, seen);
    for (Throwable suppressed : error.getSuppressed()) {
      if (found != null) {
        break;
      }
      found = cause(suppressed, type, seen);
    }
    return found;
  }

  /** The address for messages, such as {@code 127.0.0.1:6380}. */
  public String address() {
    return address;
  }

  /** The command timeout. */
  public Duration timeout() {
    return timeout;
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
              + address
              + " has not been reached yet; trying again every "
              + BACKGROUND_RETRY.toMillis()
              + " ms");
    }
    return current;
  }

  /**
   * Which master serves each hash slot, as the topology known now says: on a cluster, the master's
   * address, or {@code null} for a slot no known master serves (and for every slot while a session
   * opened in the background has not reached Redis); on one server, {@code null} for every slot.
   * The topology is taken once, when this is called, so one bulk operation plans on one topology.
   */
  public IntFunction<@Nullable MasterAddress> slotMasters() {
    if (!(shared instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
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
    if (!(shared() instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
      throw new IllegalStateException("a master's own connection exists only on a Redis Cluster");
    }
    return cluster.getConnectionAsync(host, port);
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
    StatefulConnection<byte[], byte[]> current = shared();
    if (!(current instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
      return List.of(
          new Node(address, CompletableFuture.completedFuture(SharedCommands.async(current))));
    }
    List<Node> masters = new ArrayList<>();
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
        masters.add(new Node(host + ":" + port, commands));
      }
    }
    return masters;
  }

  /** A master and the commands of its own connection. */
  public record Node(
      String address, CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> commands) {}

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

  /** How often a session opened in the background tries to reach Redis until it first does. */
  public static final Duration BACKGROUND_RETRY = Duration.ofSeconds(1);

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

  private void retryInBackground() {
    resources
        .eventExecutorGroup()
        .schedule(
            () -> {
              if (closed || shared != null) {
                return;
              }
              CompletableFuture<? extends StatefulConnection<byte[], byte[]>> attempt =
                  client instanceof RedisClusterClient cluster
                      ? cluster.connectAsync(ByteArrayCodec.INSTANCE)
                      : ((RedisClient) client)
                          .connectAsync(ByteArrayCodec.INSTANCE, target)
                          .toCompletableFuture();
              attempt.whenComplete(
                  (connection, failure) -> {
                    if (connection == null) {
                      retryInBackground();
                      return;
                    }
                    synchronized (closeLock) {
                      if (closed) {
                        connection.closeAsync();
                        return;
                      }
                      shared = connection;
                    }
                    System.getLogger("dev.stowage")
                        .log(System.Logger.Level.INFO, "connected to Redis at " + address);
                    activationTasks.forEach(task -> ForkJoinPool.commonPool().execute(task));
                  });
            },
            BACKGROUND_RETRY.toMillis(),
            TimeUnit.MILLISECONDS);
  }

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
    requireNonNull(task, "task");
    activationTasks.add(task);
    listen();
  }

  /**
   * Runs {@code task} at once, on the Lettuce thread that saw it, each time Redis may have lost
   * what it held: when the shared connection drops, and before the {@linkplain #onActivation
   * activation tasks} when it connects again or a cluster's topology changed. It must be quick and
   * never block.
   */
  public void onDeactivation(Runnable task) {
    requireNonNull(task, "task");
    deactivationTasks.add(task);
    listen();
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

  /** Listens to the connection's events for the activation and deactivation tasks, once. */
  private void listen() {
    synchronized (closeLock) {
      if (activations == null) {
        RedisConnectionStateListener listener =
            isCluster()
                ? nodeReconnections()
                : new RedisConnectionStateListener() {
                  @Override
                  public void onRedisConnected(
                      RedisChannelHandler<?, ?> connection, SocketAddress remote) {
                    if (connection == shared && !closed) {
                      runDeactivationTasks();
                      runActivationTasks();
                    }
                  }

                  @Override
                  public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
                    if (connection == shared && !closed) {
                      runDeactivationTasks();
                    }
                  }
                };
        activations = listener;
        client.addListener(listener);
        if (isCluster()) {
          topologyChanges =
              resources
                  .eventBus()
                  .get()
                  .filter(event -> event instanceof ClusterTopologyChangedEvent)
                  .subscribe(
                      event -> {
                        if (!closed && shared != null) {
                          runDeactivationTasks();
                          runActivationTasks();
                        }
                      });
        }
      }
    }
  }

  private void runActivationTasks() {
    activationTasks.forEach(each -> ForkJoinPool.commonPool().execute(each));
  }

  private void runDeactivationTasks() {
    for (Runnable task : deactivationTasks) {
      try {
        task.run();
      } catch (RuntimeException e) {
        System.getLogger("dev.stowage")
            .log(
                System.Logger.Level.WARNING,
                "a task run when the connection to Redis at " + address + " changed failed",
                e);
      }
    }
  }

  /**
   * Runs the activation tasks when a connection this cluster client connected before connects
   * again.
   */
  private RedisConnectionStateListener nodeReconnections() {
    Map<RedisChannelHandler<?, ?>, Boolean> seen = Collections.synchronizedMap(new WeakHashMap<>());
    return new RedisConnectionStateListener() {
      @Override
      public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress remote) {
        if (seen.put(connection, Boolean.TRUE) != null && !closed && shared != null) {
          // Only a reconnection: the connections that ask for the topology come and go all the
          // time.
          runDeactivationTasks();
          runActivationTasks();
        }
      }
    };
  }

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
    if (isCluster()) {
      throw new UnsupportedOperationException(
          "client tracking on a Redis Cluster needs a connection per master;"
              + " Stowage does not open them");
    }
    RedisClient resp3 = RedisClient.create(resources, target);
    resp3.setOptions(options.mutate().protocolVersion(ProtocolVersion.RESP3).build());
    resp3.addListener(requireNonNull(listener, "listener"));
    resp3Clients.add(resp3);
    try {
      return resp3.connect(ByteArrayCodec.INSTANCE);
    } catch (RuntimeException e) {
      resp3Clients.remove(resp3);
      resp3.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw connectFailure(address, e);
    }
  }

  // ---------------------------------------------------------------- tracking on a cluster's
  // masters

  /**
   * The RESP3 clients of {@link #connectResp3(RedisURI, RedisConnectionStateListener)}, by their
   * connection.
   */
  private final Map<StatefulRedisConnection<byte[], byte[]>, RedisClient> nodeResp3Clients =
      new ConcurrentHashMap<>();

  /** The subscriptions of {@link #onTopologyChange}, disposed on close. */
  private final List<Disposable> topologyListeners = new CopyOnWriteArrayList<>();

  /**
   * The masters that serve slots now, as the shared cluster connection knows the topology, by node
   * id; each URI is the seed's (credentials, TLS, client name, timeout) with the node's host and
   * port. Empty before a session opened in the background first reaches Redis; on one server, the
   * server alone.
   */
  public Map<String, RedisURI> topology() {
    StatefulConnection<byte[], byte[]> current = shared;
    if (current == null || closed) {
      return Map.of();
    }
    if (!(current instanceof StatefulRedisClusterConnection<byte[], byte[]> cluster)) {
      return Map.of(address, target);
    }
    return mastersOf(cluster.getPartitions());
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
    if (!isCluster()) {
      return () -> {};
    }
    // The event comes before Lettuce reloads its partitions, so the new masters are taken from it.
    Disposable subscription =
        resources
            .eventBus()
            .get()
            .filter(event -> event instanceof ClusterTopologyChangedEvent)
            .subscribe(
                event -> {
                  if (!closed) {
                    listener.accept(mastersOf(((ClusterTopologyChangedEvent) event).after()));
                  }
                });
    topologyListeners.add(subscription);
    return () -> {
      subscription.dispose();
      topologyListeners.remove(subscription);
    };
  }

  private Map<String, RedisURI> mastersOf(Iterable<RedisClusterNode> nodes) {
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
    RedisClient resp3 = RedisClient.create(resources, node);
    resp3.setOptions(
        ClientOptions.copyOf(options).mutate().protocolVersion(ProtocolVersion.RESP3).build());
    resp3.addListener(listener);
    resp3Clients.add(resp3);
    CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connecting;
    try {
      connecting = resp3.connectAsync(ByteArrayCodec.INSTANCE, node).toCompletableFuture();
    } catch (RuntimeException e) {
      connecting = CompletableFuture.failedFuture(e);
    }
    return connecting.handle(
        (connection, failure) -> {
          if (failure != null) {
            resp3Clients.remove(resp3);
            resp3.shutdownAsync(0, 2, TimeUnit.SECONDS);
            throw connectFailure(describe(node), unwrap(failure));
          }
          nodeResp3Clients.put(connection, resp3);
          if (closed) {
            releaseResp3(connection);
          }
          return connection;
        });
  }

  /**
   * Closes a connection that {@link #connectResp3(RedisURI, RedisConnectionStateListener)} made,
   * without waiting.
   */
  public void releaseResp3(StatefulRedisConnection<byte[], byte[]> connection) {
    RedisClient resp3 = nodeResp3Clients.remove(requireNonNull(connection, "connection"));
    if (resp3 == null) {
      connection.closeAsync();
      return;
    }
    resp3Clients.remove(resp3);
    resp3.shutdownAsync(0, 2, TimeUnit.SECONDS);
  }

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
    CompletableFuture<T> future = sent.toCompletableFuture();
    if (!(sent instanceof RedisCommand<?, ?, ?> redisCommand)) {
      return future;
    }
    // A NOPERM reply names what the user may not do; keep which command it answered, for translate.
    return future.exceptionallyCompose(
        e ->
            CompletableFuture.failedFuture(
                e instanceof RedisCommandExecutionException
                        && String.valueOf(e.getMessage()).startsWith("NOPERM")
                    ? new PermissionRefused(
                        redisCommand.getType().toString(), (RedisCommandExecutionException) e)
                    : e));
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
    Throwable e = unwrap(error);
    String reply = e instanceof RedisCommandExecutionException ? e.getMessage() : null;
    return reply != null
        && (reply.startsWith("MOVED ") || reply.startsWith("ASK ") || reply.startsWith("TRYAGAIN"));
  }

  /**
   * Whether {@code error} is Redis's TRYAGAIN reply to a multi-key command on a slot being
   * migrated.
   */
  public static boolean isTryAgain(Throwable error) {
    Throwable e = unwrap(error);
    return e instanceof RedisCommandExecutionException
        && e.getMessage() != null
        && e.getMessage().startsWith("TRYAGAIN");
  }

  /** Whether {@code error} is Redis's WRONGTYPE reply: the key holds another type than expected. */
  public static boolean isWrongType(Throwable error) {
    Throwable e = unwrap(error);
    return e instanceof RedisCommandExecutionException
        && e.getMessage() != null
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
              + address
              + " did not answer "
              + what
              + " within "
              + TimeUnit.NANOSECONDS.toMillis(bound)
              + " ms",
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StowageException(
          "interrupted while waiting for Redis at " + address + " (" + what + ")", e);
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

  private static Throwable unwrap(Throwable error) {
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
    RedisConnectionStateListener listener = activations;
    if (listener != null) {
      client.removeListener(listener);
    }
    Disposable changes = topologyChanges;
    if (changes != null) {
      changes.dispose();
    }
    topologyListeners.forEach(Disposable::dispose);
    StatefulConnection<byte[], byte[]> current = shared;
    if (current != null) {
      current.close();
    }
    for (RedisClient resp3 : resp3Clients) {
      resp3.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
    shutdown(client, ownsResources ? resources : null);
  }

  /** Shuts the client down, and {@code ownResources} too unless it is {@code null}. */
  private static void shutdown(AbstractRedisClient client, @Nullable ClientResources ownResources) {
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    if (ownResources != null) {
      ownResources.shutdown(0, 2, TimeUnit.SECONDS);
    }
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
