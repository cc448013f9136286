package dev.stowage.internal.nearcache;

import static java.util.Objects.requireNonNull;

import dev.stowage.NearCache;
import dev.stowage.internal.Futures;
import dev.stowage.internal.connection.RedisSession;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.push.PushMessage;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The connections through which Redis tells a {@link dev.stowage.Stowage}'s near caches what
 * changed: server-assisted client-side caching ({@code CLIENT TRACKING}) over RESP3, whose
 * invalidations arrive as push messages on the connection that tracks.
 *
 * <p>One connection in the default mode serves every near cache that is not broadcast: their reads
 * go over it, so Redis remembers which keys it read and pushes an invalidation when any client
 * writes one. Each broadcast near cache has a connection of its own in {@code BCAST} mode with its
 * prefix, which only listens (reads go over the shared connection). A connection that drops, or one
 * on which Redis refuses RESP3 or tracking, turns its near caches off (emptied, nothing kept) with
 * one log line; when a connection becomes active again, tracking is set up anew and the near caches
 * are turned back on once Redis has said yes. Meanwhile, and for a read that the tracking
 * connection fails without an answer from Redis (killed, reconnecting), reads go over the shared
 * connection and are not kept: a tracking connection that breaks fails no read. Thread-safe.
 *
 * <p>A channel's reads and its invalidations share one connection in the default mode, so Redis
 * sends them in order; in broadcast mode they travel on two, and the stamps of {@link NearStore}
 * keep a reply that an invalidation overtook from being kept.
 *
 * <p>On a Redis Cluster every near cache tracks in broadcast mode, whatever its options say (its
 * reads go over the cluster connection, to whichever master serves the key), with a connection of
 * its own to every master: {@link MasterTracking}.
 */
public final class Tracking implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger("dev.stowage.nearcache");

  private final RedisSession session;
  private final List<Channel> channels = new CopyOnWriteArrayList<>();
  private final List<MasterTracking> clusterChannels = new CopyOnWriteArrayList<>();
  private @Nullable Channel shared;
  private volatile boolean closed;

  public Tracking(RedisSession session) {
    this.session = requireNonNull(session, "session");
    // A channel that could not connect (Redis not reached yet) tries again when the session
    // connects.
    session.onActivation(
        () -> {
          channels.stream()
              .filter(channel -> channel.connection == null && !closed)
              .forEach(Channel::connect);
          clusterChannels.forEach(MasterTracking::sessionConnected);
        });
  }

  /**
   * A near cache's store, tracked in the mode its options say. {@code prefix} is the cache's key
   * prefix or the feed's key; {@code pages} for a feed, whose pages depend on every key under it.
   */
  public synchronized Reader register(
      NearCache options, String prefix, boolean pages, String owner) {
    NearStore store = new NearStore(options, prefix, pages);
    if (session.isCluster()) {
      MasterTracking masters = new MasterTracking(session, store, owner);
      clusterChannels.add(masters);
      masters.start();
      return new Reader(store, session, null);
    }
    Channel channel;
    if (options.isBroadcast() || pages) {
      channel = new Channel(prefix, owner);
      channels.add(channel);
      channel.connect();
    } else {
      if (shared == null) {
        shared = new Channel(null, "the near caches of " + session.address());
        channels.add(shared);
        shared.connect();
      }
      channel = shared;
    }
    channel.stores.add(store);
    if (channel.isTracking()) {
      store.tracking(true);
    }
    return new Reader(store, session, channel.prefix == null ? channel : null);
  }

  /** What a cache or feed reads its near-cached keys through: its store and its connection. */
  public static final class Reader {
    private final NearStore store;
    private final RedisSession session;

    /**
     * The default-mode channel whose connection the reads go over, or null when they use the shared
     * one.
     */
    private final @Nullable Channel readsOver;

    private Reader(NearStore store, RedisSession session, @Nullable Channel readsOver) {
      this.store = store;
      this.session = session;
      this.readsOver = readsOver;
    }

    public NearStore store() {
      return store;
    }

    /**
     * Whether reads may go over any connection: in broadcast mode (every near cache on a cluster)
     * Redis invalidates the prefix's keys whoever read them, so reads need no connection of their
     * own.
     */
    public boolean readsAnywhere() {
      return readsOver == null;
    }

    /**
     * Dispatches a read that Redis must track: on the tracking connection in the default mode while
     * it tracks, else on the shared connection (broadcast mode tracks whatever connection reads). A
     * read that goes to the shared connection in the default mode, because the tracking connection
     * is not tracking or failed it without an answer from Redis (killed, reconnecting), runs {@code
     * untracked} first, which must fail the stamps of its keys: Redis does not track what it reads,
     * so nothing it reads may be kept. A tracking connection that breaks thus fails no read while
     * the shared connection works.
     */
    public <T> CompletableFuture<T> dispatch(
        Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command,
        Runnable untracked) {
      if (readsOver == null) {
        return session.dispatch(command);
      }
      StatefulRedisConnection<byte[], byte[]> connection = readsOver.connection;
      if (connection == null || !readsOver.tracking || !connection.isOpen()) {
        untracked.run();
        return session.dispatch(command);
      }
      CompletableFuture<T> sent;
      try {
        sent = command.apply(connection.async()).toCompletableFuture();
      } catch (RuntimeException e) {
        sent = CompletableFuture.failedFuture(e);
      }
      return sent.exceptionallyCompose(
          failure -> {
            if (!lostWithItsConnection(failure)) {
              return CompletableFuture.failedFuture(failure);
            }
            untracked.run();
            return session.dispatch(command);
          });
    }
  }

  /**
   * Whether a command failed without an answer from Redis or its time running out: its connection
   * broke or was not connected (a reply, such as {@code WRONGTYPE} or {@code NOSCRIPT}, is the
   * command's own; a timeout would only be waited for again).
   */
  static boolean lostWithItsConnection(Throwable failure) {
    Throwable e = Futures.unwrap(failure);
    return !(e instanceof RedisCommandExecutionException)
        && !(e instanceof RedisCommandTimeoutException)
        && (e instanceof RedisException
            || e instanceof IOException
            || e instanceof CancellationException);
  }

  /** One tracking connection and the stores it serves. */
  private final class Channel {
    /** The broadcast prefix, or null in the default mode. */
    private final @Nullable String prefix;

    private final String owner;
    private final List<NearStore> stores = new CopyOnWriteArrayList<>();
    private volatile @Nullable StatefulRedisConnection<byte[], byte[]> connection;
    private volatile boolean tracking;
    private volatile @Nullable String lastFailure;

    Channel(@Nullable String prefix, String owner) {
      this.prefix = prefix;
      this.owner = owner;
    }

    boolean isTracking() {
      return tracking;
    }

    synchronized void connect() {
      if (connection != null) {
        return;
      }
      try {
        StatefulRedisConnection<byte[], byte[]> connected =
            session.connectResp3(
                new RedisConnectionStateListener() {
                  @Override
                  public void onRedisDisconnected(RedisChannelHandler<?, ?> which) {
                    // Invalidations sent while the connection is down are lost: nothing kept stays
                    // valid.
                    off();
                  }

                  @Override
                  public void onRedisConnected(
                      RedisChannelHandler<?, ?> which, SocketAddress remote) {
                    if (connection != null) {
                      setUp();
                    }
                  }
                });
        connected.addListener(this::pushed);
        connection = connected;
        setUp();
      } catch (RuntimeException e) {
        failed(
            "Redis at "
                + session.address()
                + " did not set up a RESP3 connection for tracking ("
                + e.getMessage()
                + ")");
      }
    }

    /** Asks Redis to track, from scratch; the stores are on once it said yes. */
    void setUp() {
      StatefulRedisConnection<byte[], byte[]> current = connection;
      if (current == null || closed) {
        return;
      }
      off();
      TrackingArgs args =
          prefix == null
              ? TrackingArgs.Builder.enabled()
              : TrackingArgs.Builder.enabled().bcast().prefixes(StandardCharsets.UTF_8, prefix);
      RedisAsyncCommands<byte[], byte[]> commands = current.async();
      switchOff(commands);
      commands
          .clientTracking(args)
          .whenComplete(
              (ok, failure) -> {
                if (failure != null) {
                  failed(
                      "Redis at "
                          + session.address()
                          + " refused CLIENT TRACKING ("
                          + failure.getMessage()
                          + ")");
                  return;
                }
                tracking = true;
                stores.forEach(store -> store.tracking(true));
                if (lastFailure != null) {
                  LOG.log(Level.INFO, owner + ": near cache on again: Redis tracks the keys read");
                  lastFailure = null;
                }
              });
    }

    void off() {
      tracking = false;
      stores.forEach(store -> store.tracking(false));
    }

    private void failed(String why) {
      off();
      if (!why.equals(lastFailure)) {
        LOG.log(Level.WARNING, owner + ": near cache off, every read goes to Redis: " + why);
      }
      lastFailure = why;
    }

    private void pushed(PushMessage message) {
      // A null key list: the database was flushed.
      invalidations(
          message,
          key -> stores.forEach(store -> store.invalidate(key)),
          () -> stores.forEach(NearStore::invalidateAll));
    }

    void close() {
      StatefulRedisConnection<byte[], byte[]> current = connection;
      if (current != null) {
        Futures.closingInBackground(current.closeAsync(), "a tracking connection");
      }
    }
  }

  /**
   * Sends {@code CLIENT TRACKING off} ahead of the {@code CLIENT TRACKING on} that sets tracking up
   * from scratch on the same connection (Redis refuses to switch a connection that already tracks).
   */
  @SuppressWarnings("FutureReturnValueIgnored") // its reply does not matter: the CLIENT TRACKING on
  // sent right behind it on the same connection decides, and fails if this one could not run
  static void switchOff(RedisAsyncCommands<byte[], byte[]> commands) {
    commands.clientTracking(TrackingArgs.Builder.enabled(false));
  }

  @Override
  public void close() {
    closed = true;
    channels.forEach(Channel::close);
    clusterChannels.forEach(MasterTracking::close);
  }

  /**
   * Hands an {@code invalidate} push's keys to {@code invalidate}, one by one, or calls {@code
   * invalidateAll} when it names none (the server's data was flushed); other pushes are ignored.
   */
  static void invalidations(
      PushMessage message, Consumer<String> invalidate, Runnable invalidateAll) {
    if (!"invalidate".equals(message.getType())) {
      return;
    }
    List<Object> content =
        message.getContent(buffer -> StandardCharsets.UTF_8.decode(buffer).toString());
    Object keys = content.size() > 1 ? content.get(1) : null;
    if (keys instanceof List<?> list) {
      for (Object key : list) {
        invalidate.accept(String.valueOf(key));
      }
    } else {
      invalidateAll.run();
    }
  }
}
