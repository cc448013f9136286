package dev.stowage.internal.nearcache;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.Futures;
import dev.stowage.internal.connection.RedisSession;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TrackingArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.push.PushMessage;
import java.lang.System.Logger.Level;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * One near cache's tracking on a Redis Cluster: a RESP3 connection of its own to every master, each
 * with {@code CLIENT TRACKING on BCAST PREFIX <prefix>}, so that a write to any key under the
 * prefix on any master drops the local copy, whichever connection read it (the reads go over the
 * session's cluster connection).
 *
 * <p>The store is on only while every master that serves slots has confirmed tracking on its
 * connection. A connection that drops, or a master that refuses, turns it off (emptied) until all
 * of them track again. Each change of the topology that Lettuce's refresh finds empties the store:
 * tracking is opened on new masters (such as a replica promoted after a failover, which may have
 * missed invalidations while it was one) and closed on those gone, and the store stays off until
 * the new ones have confirmed. Until a refresh has found a new master, its writes are not heard:
 * that is the period in which a near cache on a cluster may serve a stale value. Thread-safe.
 */
final class MasterTracking {
  private static final System.Logger LOG = System.getLogger("dev.stowage.nearcache");

  /**
   * How soon a master that could not be reached is tried again while the topology still names it.
   */
  private static final long RETRY_MILLIS = 1000;

  private final RedisSession session;
  private final NearStore store;
  private final String owner;

  /** The tracking connection to each master, by node id. */
  private final Map<String, Link> links = new ConcurrentHashMap<>();

  /** The masters that serve slots, by node id, as the last topology said. */
  private volatile Map<String, RedisURI> masters = Map.of();

  private volatile @Nullable Disposable topologyChanges;
  private volatile @Nullable String lastFailure;
  private volatile boolean closed;

  MasterTracking(RedisSession session, NearStore store, String owner) {
    this.session = requireNonNull(session, "session");
    this.store = requireNonNull(store, "store");
    this.owner = requireNonNull(owner, "owner");
  }

  /** Starts following the topology and connects to every master it names now. */
  void start() {
    // Subscribed before the topology is read, so that no change falls between the two.
    topologyChanges = session.onTopologyChange(current -> follow(current, true));
    follow(session.topology(), false);
  }

  /** Connects to the masters if the session had not reached the cluster when this started. */
  void sessionConnected() {
    if (masters.isEmpty()) {
      follow(session.topology(), false);
    }
  }

  /**
   * Tracks on every master of {@code current} and on no other node. After a topology change, or
   * whenever the masters differ from the last known ones, the store is emptied.
   */
  synchronized void follow(Map<String, RedisURI> current, boolean changed) {
    if (closed) {
      return;
    }
    boolean different = !current.equals(masters);
    masters = Map.copyOf(current);
    links
        .values()
        .removeIf(
            link -> {
              boolean gone = !link.uri.equals(current.get(link.nodeId));
              if (gone) {
                link.release();
              }
              return gone;
            });
    List<Link> added = new ArrayList<>();
    current.forEach(
        (nodeId, uri) -> {
          if (!links.containsKey(nodeId)) {
            Link link = new Link(nodeId, uri);
            links.put(nodeId, link);
            added.add(link);
          }
        });
    if (changed || different) {
      store.invalidateAll();
    }
    update();
    added.forEach(Link::connect);
  }

  /** Turns the store on if every master tracks, else off; either change empties it. */
  private synchronized void update() {
    Map<String, RedisURI> current = masters;
    boolean all = !closed && !current.isEmpty();
    for (String nodeId : current.keySet()) {
      Link link = links.get(nodeId);
      all &= link != null && link.tracking;
    }
    if (all != store.isTracking()) {
      store.tracking(all);
      if (all && lastFailure != null) {
        LOG.log(
            Level.INFO,
            owner + ": near cache on again: every master of the cluster tracks the keys read");
        lastFailure = null;
      }
    }
  }

  private void failed(String why) {
    update();
    if (!why.equals(lastFailure)) {
      LOG.log(Level.WARNING, owner + ": near cache off, every read goes to Redis: " + why);
    }
    lastFailure = why;
  }

  /** Whether the store is in use: every master confirmed tracking. */
  boolean isTracking() {
    return store.isTracking();
  }

  void close() {
    synchronized (this) {
      closed = true;
      links.values().forEach(Link::release);
      links.clear();
      store.tracking(false);
    }
    Disposable changes = topologyChanges;
    if (changes != null) {
      changes.dispose();
    }
  }

  /** The tracking connection to one master. */
  private final class Link implements RedisConnectionStateListener {
    private final String nodeId;
    private final RedisURI uri;
    private final String address;

    /** Counts the set-ups, so that the answer to a superseded one is ignored. */
    private final AtomicLong setUps = new AtomicLong();

    private @Nullable StatefulRedisConnection<byte[], byte[]> connection;
    private volatile boolean tracking;
    private boolean released;

    Link(String nodeId, RedisURI uri) {
      this.nodeId = nodeId;
      this.uri = uri;
      this.address = uri.getHost() + ":" + uri.getPort();
    }

    void connect() {
      CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connecting;
      try {
        connecting = session.connectResp3(uri, this);
      } catch (RuntimeException e) {
        // The session is closed.
        return;
      }
      Futures.whenDone(
          connecting,
          (connected, failure) -> {
            if (failure != null) {
              failed(
                  "the master at "
                      + address
                      + " did not set up a RESP3 connection for tracking ("
                      + causeOf(failure).getMessage()
                      + ")");
              CompletableFuture.delayedExecutor(RETRY_MILLIS, TimeUnit.MILLISECONDS)
                  .execute(this::retry);
              return;
            }
            synchronized (this) {
              if (released) {
                session.releaseResp3(connected);
                return;
              }
              connection = connected;
            }
            connected.addListener(this::pushed);
            setUp();
          });
    }

    /** Connects again if this master is still one the topology names and was never reached. */
    private void retry() {
      synchronized (this) {
        if (released || connection != null) {
          return;
        }
      }
      if (!closed && links.get(nodeId) == this) {
        connect();
      }
    }

    @Override
    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress remote) {
      // The first connection is set up when connect() gets it; this is for reconnections.
      if (current() != null) {
        setUp();
      }
    }

    @Override
    public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
      // Invalidations sent while the connection is down are lost: nothing kept stays valid.
      setUps.incrementAndGet();
      tracking = false;
      if (!isReleased() && !closed) {
        failed("lost the connection to the master at " + address);
      }
    }

    /**
     * Asks the master to broadcast the writes under the prefix, from scratch; on once it said yes.
     */
    private void setUp() {
      StatefulRedisConnection<byte[], byte[]> current = current();
      if (current == null || closed) {
        return;
      }
      long setUp = setUps.incrementAndGet();
      tracking = false;
      update();
      RedisAsyncCommands<byte[], byte[]> commands = current.async();
      // Redis refuses to switch a connection that already tracks in broadcast mode, as after a
      // replay.
      Tracking.switchOff(commands);
      commands
          .clientTracking(
              TrackingArgs.Builder.enabled()
                  .bcast()
                  .prefixes(StandardCharsets.UTF_8, store.prefix()))
          .whenComplete(
              (ok, failure) -> {
                if (setUp != setUps.get() || isReleased()) {
                  return;
                }
                if (failure != null) {
                  failed(
                      "the master at "
                          + address
                          + " refused CLIENT TRACKING ("
                          + failure.getMessage()
                          + ")");
                  return;
                }
                tracking = true;
                update();
              });
    }

    private void pushed(PushMessage message) {
      // A null key list: this master's data was flushed.
      Tracking.invalidations(message, store::invalidate, store::invalidateAll);
    }

    private synchronized @Nullable StatefulRedisConnection<byte[], byte[]> current() {
      return released ? null : connection;
    }

    private synchronized boolean isReleased() {
      return released;
    }

    /** Closes the connection: the master is gone from the topology, or the near cache is closed. */
    void release() {
      StatefulRedisConnection<byte[], byte[]> current;
      synchronized (this) {
        released = true;
        tracking = false;
        current = connection;
        connection = null;
      }
      if (current != null) {
        session.releaseResp3(current);
      }
    }
  }

  private static Throwable causeOf(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
  }
}
