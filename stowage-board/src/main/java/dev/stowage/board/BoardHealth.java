package dev.stowage.board;

import static java.util.Objects.requireNonNull;

import dev.stowage.board.events.BoardEvents;
import dev.stowage.board.events.EventStatus;
import io.r2dbc.pool.PoolMetrics;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.boot.health.contributor.Status;
import reactor.core.publisher.Mono;

/**
 * The components of {@code /actuator/health}: {@code database} and {@code redis}.
 *
 * <p>The service's status is its database's: {@code DOWN} (HTTP 503) when the pool hands out no
 * connection that answers {@value RecoveringConnectionFactory#VALIDATION_QUERY} within the probe
 * timeout. Redis is shown as a component of its own; in stowage mode the service absorbs a Redis
 * outage (pages and posts come from the database, the feed refills once Redis answers), so Redis
 * not answering makes that component {@link #DEGRADED}, which ranks below {@code UP} ({@code
 * management.endpoint.health.status.order}) and leaves the service {@code UP}. The seed modes fail
 * without Redis, so there it is {@code DOWN}, and the service with it.
 */
final class BoardHealth {
  /**
   * A component that does not answer, without which the service still serves: Redis in stowage
   * mode.
   */
  static final Status DEGRADED =
      new Status("DEGRADED", "Redis does not answer; the service serves from the database");

  /**
   * How long the {@code redis} component waits for {@code PING}'s answer: a second beyond {@link
   * StowageBoardService#COMMAND_TIMEOUT}, after which Stowage gives up itself.
   */
  static final Duration REDIS_TIMEOUT = StowageBoardService.COMMAND_TIMEOUT.plusSeconds(1);

  private BoardHealth() {}

  /** {@code database}: a connection from the pool, and the validation query, within a bound. */
  static ReactiveHealthIndicator database(
      RecoveringConnectionFactory connections, PoolWatchdog watchdog, Duration timeout) {
    requireNonNull(connections, "connections");
    requireNonNull(watchdog, "watchdog");
    return () ->
        Mono.defer(
            () -> {
              long start = System.nanoTime();
              return connections
                  .probePool(timeout)
                  .then(
                      Mono.fromSupplier(
                          () ->
                              poolDetails(Health.up(), connections)
                                  .withDetail(
                                      "validation",
                                      RecoveringConnectionFactory.VALIDATION_QUERY
                                          + " answered in "
                                          + Duration.ofNanos(System.nanoTime() - start).toMillis()
                                          + " ms")
                                  .build()))
                  .onErrorResume(
                      e -> {
                        Health.Builder down =
                            poolDetails(Health.down(), connections)
                                .withDetail(
                                    "error",
                                    "no connection from the pool answered "
                                        + RecoveringConnectionFactory.VALIDATION_QUERY
                                        + " within "
                                        + timeout.toMillis()
                                        + " ms: "
                                        + PoolWatchdog.reason(e));
                        String problem = watchdog.problem();
                        if (problem != null) {
                          down.withDetail("watchdog", problem);
                        }
                        return Mono.just(down.build());
                      });
            });
  }

  /**
   * {@code database} on MongoDB: a {@code ping} within {@code timeout}, through the driver's own
   * pool (which reconnects by itself).
   */
  static ReactiveHealthIndicator mongo(MongoBoardStore store, Duration timeout) {
    requireNonNull(store, "store");
    return () ->
        Mono.defer(
            () -> {
              long start = System.nanoTime();
              return store
                  .ping()
                  .timeout(timeout)
                  .then(
                      Mono.fromSupplier(
                          () ->
                              Health.up()
                                  .withDetail("store", "MongoDB")
                                  .withDetail(
                                      "ping",
                                      Duration.ofNanos(System.nanoTime() - start).toMillis()
                                          + " ms")
                                  .build()))
                  .onErrorResume(
                      e ->
                          Mono.just(
                              Health.down()
                                  .withDetail("store", "MongoDB")
                                  .withDetail(
                                      "error",
                                      "no answer to ping within "
                                          + timeout.toMillis()
                                          + " ms: "
                                          + PoolWatchdog.reason(e))
                                  .build()));
            });
  }

  private static Health.Builder poolDetails(
      Health.Builder health, RecoveringConnectionFactory connections) {
    PoolMetrics metrics = connections.metrics();
    if (metrics != null) {
      Map<String, Integer> pool = new LinkedHashMap<>();
      pool.put("acquired", metrics.acquiredSize());
      pool.put("idle", metrics.idleSize());
      pool.put("pending", metrics.pendingAcquireSize());
      pool.put("max", metrics.getMaxAllocatedSize());
      health.withDetail("pool", pool);
    }
    return health.withDetail("replacements", connections.replacements());
  }

  /**
   * {@code redis}: a {@code PING} within {@code timeout}.
   *
   * @param ping completes when Redis has answered a {@code PING}, fails otherwise
   * @param absorbed whether the service serves without Redis (stowage mode): then a Redis that does
   *     not answer is {@link #DEGRADED}, else {@code DOWN}
   */
  static ReactiveHealthIndicator redis(
      String address, Mono<Void> ping, boolean absorbed, Duration timeout) {
    requireNonNull(address, "address");
    requireNonNull(ping, "ping");
    return () ->
        Mono.defer(
            () -> {
              long start = System.nanoTime();
              return ping.timeout(timeout)
                  .then(
                      Mono.fromSupplier(
                          () ->
                              Health.up()
                                  .withDetail("address", address)
                                  .withDetail(
                                      "ping",
                                      Duration.ofNanos(System.nanoTime() - start).toMillis()
                                          + " ms")
                                  .build()))
                  .onErrorResume(
                      e -> {
                        Health.Builder health =
                            Health.status(absorbed ? DEGRADED : Status.DOWN)
                                .withDetail("address", address)
                                .withDetail(
                                    "error",
                                    "no answer to PING within "
                                        + timeout.toMillis()
                                        + " ms: "
                                        + PoolWatchdog.reason(e));
                        if (absorbed) {
                          health.withDetail(
                              "effect",
                              "pages and posts are served from the database; the"
                                  + " feed refills once Redis answers");
                        }
                        return Mono.just(health.build());
                      });
            });
  }

  /**
   * {@code events}, when the service publishes events: how far behind the relay is. {@code UP}
   * while the broker takes events; {@link #DEGRADED} while the relay fails (the broker away) or the
   * backlog has reached its limit: posts are still accepted and their events wait in the outbox, so
   * the service stays {@code UP}. The details say how many wait and for how long.
   */
  static ReactiveHealthIndicator events(BoardEvents events) {
    requireNonNull(events, "events");
    return () ->
        Mono.fromSupplier(
            () -> {
              EventStatus status = events.status();
              boolean behind = status.lastError() != null || status.overLimit();
              Health.Builder health =
                  Health.status(behind ? DEGRADED : Status.UP)
                      .withDetail("pending", status.pending())
                      .withDetail("oldestPendingMs", status.oldestPendingAge().toMillis())
                      .withDetail("backlogLimit", status.backlogLimit())
                      .withDetail("published", status.published());
              if (status.lastError() != null) {
                health.withDetail("error", status.lastError());
              }
              if (behind) {
                health.withDetail(
                    "effect",
                    "posts are accepted; their events wait in the outbox and are"
                        + " published, in order, once the broker takes them");
              }
              return health.build();
            });
  }
}
