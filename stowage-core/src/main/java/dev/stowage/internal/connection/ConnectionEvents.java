package dev.stowage.internal.connection;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ForkJoinPool;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * The tasks a session runs when Redis may have lost what it held ({@link
 * RedisSession#onDeactivation}) and when its shared connection is active again ({@link
 * RedisSession#onActivation}), and the listeners that tell it so: the client's connection events
 * and, on a cluster, the topology's changes.
 */
final class ConnectionEvents {
  private final RedisSession session;
  private final List<Runnable> activationTasks = new CopyOnWriteArrayList<>();
  private final List<Runnable> deactivationTasks = new CopyOnWriteArrayList<>();
  private final Object lock = new Object();
  private @Nullable RedisConnectionStateListener listener;
  private @Nullable Disposable topologyChanges;

  ConnectionEvents(RedisSession session) {
    this.session = session;
  }

  void onActivation(Runnable task) {
    activationTasks.add(task);
    listen();
  }

  void onDeactivation(Runnable task) {
    deactivationTasks.add(task);
    listen();
  }

  /** Listens to the connection's events for the activation and deactivation tasks, once. */
  @SuppressWarnings("ReferenceEquality") // the connection the session holds now, not an equal one
  private void listen() {
    synchronized (lock) {
      if (listener != null) {
        return;
      }
      RedisConnectionStateListener listening =
          session.isCluster()
              ? nodeReconnections()
              : new RedisConnectionStateListener() {
                @Override
                public void onRedisConnected(
                    RedisChannelHandler<?, ?> connection, SocketAddress remote) {
                  if (connection == session.current() && !session.isClosed()) {
                    runDeactivationTasks();
                    runActivationTasks();
                  }
                }

                @Override
                public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
                  if (connection == session.current() && !session.isClosed()) {
                    runDeactivationTasks();
                  }
                }
              };
      listener = listening;
      session.connector().client().addListener(listening);
      if (session.isCluster()) {
        topologyChanges =
            session
                .resources()
                .eventBus()
                .get()
                .filter(event -> event instanceof ClusterTopologyChangedEvent)
                .subscribe(
                    event -> {
                      if (!session.isClosed() && session.current() != null) {
                        runDeactivationTasks();
                        runActivationTasks();
                      }
                    });
      }
    }
  }

  /** Runs the activation tasks on the common pool. */
  void runActivationTasks() {
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
                "a task run when the connection to Redis at "
                    + session.address()
                    + " changed failed",
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
        if (seen.put(connection, Boolean.TRUE) != null
            && !session.isClosed()
            && session.current() != null) {
          // Only a reconnection: the connections that ask for the topology come and go all the
          // time.
          runDeactivationTasks();
          runActivationTasks();
        }
      }
    };
  }

  /** Stops listening. */
  void close() {
    synchronized (lock) {
      if (listener != null) {
        session.connector().client().removeListener(listener);
      }
      if (topologyChanges != null) {
        topologyChanges.dispose();
      }
    }
  }
}
