package dev.stowage.board;

import static java.util.Objects.requireNonNull;

import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.PoolMetrics;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.ConnectionFactoryMetadata;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The service's {@link ConnectionFactory}: an r2dbc-pool {@link ConnectionPool} that can be
 * replaced by a new one while the service runs, for when the pool stops handing out connections
 * (its permits leaked, as an {@code OutOfMemoryError} in its release path leaves it) though the
 * database answers. {@link PoolWatchdog} decides when; every caller of {@link #create()} after a
 * replacement gets its connection from the new pool.
 *
 * <p>Spring Boot's R2DBC auto-configuration backs off when a {@code ConnectionFactory} bean exists,
 * so this is the only pool. It does not implement {@code Wrapped}: nothing may hold on to the pool
 * it wraps now, which a later replacement retires.
 *
 * <p>Thread-safe.
 */
final class RecoveringConnectionFactory implements ConnectionFactory, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(RecoveringConnectionFactory.class);

  /** What a probe runs on the connection it gets: the database answering, not just a socket. */
  static final String VALIDATION_QUERY = "SELECT 1";

  private final ConnectionFactory database;
  private final Supplier<ConnectionPool> pools;

  /** The pool handing out connections now; replaced under this object's lock. */
  private volatile ConnectionPool current;

  /** Connections handed out by {@link #create()}, over every pool. */
  private final AtomicLong handedOut = new AtomicLong();

  private final AtomicInteger replacements = new AtomicInteger();

  /**
   * @param database opens connections to the database itself, not pooled: what {@link
   *     #probeDatabase} uses
   * @param pools builds a new pool over {@code database}, called now and at each replacement
   */
  RecoveringConnectionFactory(ConnectionFactory database, Supplier<ConnectionPool> pools) {
    this.database = requireNonNull(database, "database");
    this.pools = requireNonNull(pools, "pools");
    this.current = requireNonNull(pools.get(), "the first pool");
  }

  /** A connection from the current pool; closing it gives it back to the pool it came from. */
  @Override
  public Mono<Connection> create() {
    return Mono.defer(() -> Mono.<Connection>from(current.create()))
        .doOnNext(connection -> handedOut.incrementAndGet());
  }

  @Override
  public ConnectionFactoryMetadata getMetadata() {
    return database.getMetadata();
  }

  /**
   * Takes a connection from the current pool, runs {@value #VALIDATION_QUERY} and gives it back,
   * all within {@code timeout}.
   *
   * @return a Mono that completes empty, or fails with what went wrong ({@link
   *     java.util.concurrent.TimeoutException} when the pool handed out no connection in time)
   */
  Mono<Void> probePool(Duration timeout) {
    return validate(create(), timeout);
  }

  /**
   * Opens a connection to the database without the pool, runs {@value #VALIDATION_QUERY} and closes
   * it, all within {@code timeout}: whether the database itself answers.
   */
  Mono<Void> probeDatabase(Duration timeout) {
    return validate(Mono.from(database.create()), timeout);
  }

  private static Mono<Void> validate(Mono<? extends Connection> connection, Duration timeout) {
    return Mono.usingWhen(
            connection,
            open ->
                Mono.from(open.createStatement(VALIDATION_QUERY).execute())
                    .flatMap(result -> Mono.from(result.map((row, metadata) -> 1)))
                    .then(),
            Connection::close)
        .timeout(timeout);
  }

  /**
   * Puts a new pool in place of the current one and disposes the old one (its idle connections are
   * closed now, those still handed out when they come back). Logs one warning with {@code seen}.
   *
   * @param seen what made the caller replace the pool, for the warning
   */
  void replacePool(String seen) {
    ConnectionPool old;
    int count;
    synchronized (this) {
      old = current;
      current = pools.get();
      count = replacements.incrementAndGet();
    }
    log.warn(
        "The database connection pool was replaced (replacement {} since start): {}; a new"
            + " connection to the database opened and answered, so the old pool ({}) was disposed"
            + " and requests now get their connections from a new one.",
        count,
        seen,
        describe(old));
    old.disposeLater().onErrorResume(e -> Mono.empty()).subscribe();
  }

  /** How many times the pool was replaced since start. */
  int replacements() {
    return replacements.get();
  }

  /** Connections handed out by {@link #create()} since start, over every pool. */
  long handedOut() {
    return handedOut.get();
  }

  /** The current pool's counts, or null when r2dbc-pool keeps none. */
  @Nullable PoolMetrics metrics() {
    return current.getMetrics().orElse(null);
  }

  /** {@code acquired a, idle i, pending p, max m} for a pool. */
  static String describe(ConnectionPool pool) {
    return pool.getMetrics()
        .map(
            m ->
                "acquired "
                    + m.acquiredSize()
                    + ", idle "
                    + m.idleSize()
                    + ", pending "
                    + m.pendingAcquireSize()
                    + ", max "
                    + m.getMaxAllocatedSize())
        .orElse("no metrics");
  }

  /** Disposes the current pool. */
  @Override
  public synchronized void close() {
    current.dispose();
  }
}
