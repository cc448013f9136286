package dev.stowage.board;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Replaces the database connection pool when it is broken: every {@code interval}, it asks the pool
 * for a connection and a {@value RecoveringConnectionFactory#VALIDATION_QUERY} (within {@code
 * probeTimeout}). When that has failed for {@code replaceAfter} (twice the pool's {@code
 * max-acquire-time} by default) and no caller got a connection from the pool meanwhile (a pool that
 * is only busy still hands connections out), it opens a connection to the database without the
 * pool: if that one answers, the pool is what is broken, and {@link
 * RecoveringConnectionFactory#replacePool} puts a new one in its place. If the database does not
 * answer either, nothing is replaced (a new pool would not help): the watchdog logs it once and
 * checks again, and replaces the pool only if it still hands out nothing once the database answers.
 * So there is at most one replacement per {@code replaceAfter}, and none while the database is
 * down.
 *
 * <p>Checks run one at a time on a daemon thread of its own. Thread-safe.
 */
final class PoolWatchdog implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(PoolWatchdog.class);

  private final RecoveringConnectionFactory connections;
  private final Duration probeTimeout;
  private final Duration replaceAfter;
  private final ScheduledExecutorService checks;

  /**
   * When the pool's probes began to fail, by {@link System#nanoTime()}; meaningful while failing.
   */
  private long failingSince;

  /** {@link RecoveringConnectionFactory#handedOut()} when they began to fail. */
  private long handedOutThen;

  private boolean failing;
  private boolean databaseDownLogged;

  /** What the last check saw wrong, for the health endpoint; null when the pool answered. */
  private volatile @Nullable String problem;

  /**
   * Starts checking the pool every {@code interval}.
   *
   * @throws IllegalArgumentException if a duration is not positive
   */
  PoolWatchdog(
      RecoveringConnectionFactory connections,
      Duration interval,
      Duration probeTimeout,
      Duration replaceAfter) {
    this.connections = requireNonNull(connections, "connections");
    this.probeTimeout = positive(probeTimeout, "stowage.board.db-watchdog.probe-timeout");
    this.replaceAfter = positive(replaceAfter, "stowage.board.db-watchdog.replace-after");
    positive(interval, "stowage.board.db-watchdog.interval");
    this.checks =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "board-pool-watchdog");
              thread.setDaemon(true);
              return thread;
            });
    long millis = interval.toMillis();
    var unusedTask =
        checks.scheduleWithFixedDelay(this::checkLogged, millis, millis, TimeUnit.MILLISECONDS);
  }

  private static Duration positive(Duration value, String property) {
    if (value.isNegative() || value.isZero()) {
      throw new IllegalArgumentException(property + " must be positive, such as 2s; got " + value);
    }
    return value;
  }

  /** What the last check saw wrong with the pool or the database, or null if nothing. */
  @Nullable String problem() {
    return problem;
  }

  private void checkLogged() {
    try {
      check();
    } catch (RuntimeException e) {
      // A scheduled task that throws is never run again: log and keep watching.
      log.warn("The database pool watchdog's check failed; it checks again", e);
    }
  }

  /** One check; runs on the watchdog's thread only. */
  void check() {
    Throwable poolFailure = failure(() -> connections.probePool(probeTimeout).block());
    long now = System.nanoTime();
    if (poolFailure == null) {
      failing = false;
      databaseDownLogged = false;
      problem = null;
      return;
    }
    long handedOut = connections.handedOut();
    if (!failing || handedOut != handedOutThen) {
      // The first failure, or a caller got a connection since (a busy pool, not a broken one).
      failing = true;
      failingSince = now;
      handedOutThen = handedOut;
    }
    Duration failingFor = Duration.ofNanos(now - failingSince);
    String seen =
        "the pool handed out no connection for "
            + failingFor.toMillis()
            + " ms (last: "
            + reason(poolFailure)
            + "; "
            + poolCounts()
            + ")";
    problem = seen;
    if (failingFor.compareTo(replaceAfter) < 0) {
      return;
    }
    Throwable databaseFailure = failure(() -> connections.probeDatabase(probeTimeout).block());
    if (databaseFailure != null) {
      problem = seen + "; the database does not answer either (" + reason(databaseFailure) + ")";
      if (!databaseDownLogged) {
        databaseDownLogged = true;
        log.warn(
            "The database does not answer ({}) and {}: the pool is not replaced while the"
                + " database is down; health is DOWN until it answers",
            reason(databaseFailure),
            seen);
      }
      return;
    }
    connections.replacePool(seen);
    failing = false;
    databaseDownLogged = false;
    problem = null;
  }

  private String poolCounts() {
    var metrics = connections.metrics();
    return metrics == null
        ? "no pool metrics"
        : "acquired "
            + metrics.acquiredSize()
            + " of "
            + metrics.getMaxAllocatedSize()
            + ", "
            + metrics.pendingAcquireSize()
            + " waiting";
  }

  /** What a probe failed with, in a few words. */
  static String reason(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null && !(cause instanceof TimeoutException)) {
      cause = cause.getCause();
    }
    if (cause instanceof TimeoutException) {
      return "no answer in time";
    }
    return cause.getClass().getSimpleName() + ": " + cause.getMessage();
  }

  private static @Nullable Throwable failure(Runnable probe) {
    try {
      probe.run();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  /** Stops checking. */
  @Override
  public void close() {
    checks.shutdownNow();
  }
}
