package dev.stowage.board;

import dev.stowage.AsyncFeed;
import dev.stowage.CacheUnavailableException;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

/**
 * Hands out post scores that only ever grow, so that a new post is scored above every post created
 * before it and is the first of the first page, across restarts of Redis and of this process. Every
 * mode reserves its scores here. Thread-safe.
 *
 * <p>Scores come from the Redis counter ({@code counter}/{@code board}, as in the seed), through
 * the feed's script ({@link AsyncFeed#reserveScores}) in every mode (the seed modes build a feed
 * for its counter alone): it first lifts the counter to the highest score this process has handed
 * out (a restarted or foreign counter may be behind it), and it refuses to count when the counter
 * is missing. A new or restarted Redis has lost the counter, and counting again from 0 would hand
 * out the scores of failed inserts, which sort among the oldest posts; so the counter is raised
 * first to the database's highest score (and this process's) and the reservation made again. The
 * scores of a failed insert are left unused and never handed out again.
 *
 * <p>While Redis is unreachable, stowage mode counts in the process with {@link #reserveLocally},
 * above the same floor and the database's highest score.
 */
final class BoardScores {
  /** How often a seed mode's counter tries again while the connection comes back. */
  private static final Duration RECONNECTION_POLL = Duration.ofMillis(50);

  /** Where the counter is kept: a feed's counter hash. */
  interface Counter {
    /**
     * Reserves {@code count} scores above the counter and {@code floor}, as {@link
     * AsyncFeed#reserveScores} does. Emits the last one, or nothing when Redis holds no counter.
     */
    Mono<Long> reserve(int count, long floor);

    /** Raises the counter to at least {@code atLeast}, as {@link AsyncFeed#raiseCounter} does. */
    Mono<Long> raise(long atLeast);

    /**
     * The counter's hash and field, for messages: {@code counter/board} unless it lives elsewhere.
     */
    default String name() {
      return BoardKeys.COUNTER + "/" + BoardKeys.COUNTER_FIELD;
    }

    /**
     * The counter of {@code feed}, through core's scripts ({@link AsyncFeed#reserveScores}, {@link
     * AsyncFeed#raiseCounter}), named {@code name} in messages.
     */
    static Counter of(AsyncFeed<?> feed, String name) {
      return new Counter() {
        @Override
        public Mono<Long> reserve(int count, long floor) {
          return Mono.fromFuture(() -> feed.reserveScores(count, floor))
              .flatMap(
                  first ->
                      first.isPresent() ? Mono.just(first.getAsLong() + count - 1) : Mono.empty());
        }

        @Override
        public Mono<Long> raise(long atLeast) {
          return Mono.fromFuture(() -> feed.raiseCounter(atLeast));
        }

        @Override
        public String name() {
          return name;
        }
      };
    }

    /**
     * {@code counter}, whose calls wait, up to {@code atMost}, while the connection comes back
     * after a restart of Redis: core rejects commands at once while it reconnects, where the seed's
     * template queued them. For the seed modes, which do not absorb Redis failures.
     */
    static Counter waitingForReconnection(Counter counter, Duration atMost) {
      long attempts = Math.max(1, atMost.toMillis() / RECONNECTION_POLL.toMillis());
      Retry whileReconnecting =
          Retry.fixedDelay(attempts, RECONNECTION_POLL)
              .filter(e -> e instanceof CacheUnavailableException)
              .onRetryExhaustedThrow((spec, signal) -> signal.failure());
      return new Counter() {
        @Override
        public Mono<Long> reserve(int count, long floor) {
          return counter.reserve(count, floor).retryWhen(whileReconnecting);
        }

        @Override
        public Mono<Long> raise(long atLeast) {
          return counter.raise(atLeast).retryWhen(whileReconnecting);
        }

        @Override
        public String name() {
          return counter.name();
        }
      };
    }
  }

  /** The counter was missing again right after it was restored: Redis keeps losing it. */
  static final class CounterLostException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    CounterLostException(String message) {
      super(message);
    }
  }

  private final Counter counter;
  private final BoardStore repository;

  /** The highest score this process has handed out, or seen in the database. */
  private final AtomicLong highest = new AtomicLong();

  BoardScores(Counter counter, BoardStore repository) {
    this.counter = counter;
    this.repository = repository;
  }

  /**
   * Reserves {@code count} consecutive scores from the Redis counter and emits the first. Fails as
   * the counter does when Redis fails, with {@link CounterLostException} when the counter vanishes
   * again right after it was restored, or as the database does when the counter must be restored.
   */
  Mono<Long> reserve(int count) {
    return Mono.defer(() -> counter.reserve(count, highest.get()))
        .switchIfEmpty(
            Mono.defer(
                () ->
                    restoreCounter().then(Mono.defer(() -> counter.reserve(count, highest.get())))))
        .switchIfEmpty(
            Mono.error(
                () ->
                    new CounterLostException(
                        "the score counter ("
                            + counter.name()
                            + ") vanished again right after it was restored")))
        .map(
            last -> {
              highest.accumulateAndGet(last, Math::max);
              return last - count + 1;
            });
  }

  /**
   * Reserves {@code count} consecutive scores without Redis and emits the first: above the
   * database's highest score and every score this process handed out.
   */
  Mono<Long> reserveLocally(int count) {
    return repository
        .maxScore()
        .map(
            max -> {
              highest.accumulateAndGet(max, Math::max);
              return highest.addAndGet(count) - count + 1;
            });
  }

  /**
   * Raises the Redis counter to the database's highest score and this process's: after Redis lost
   * it, after a score was found taken, and after a refill.
   */
  Mono<Long> restoreCounter() {
    return repository
        .maxScore()
        .flatMap(max -> counter.raise(highest.accumulateAndGet(max, Math::max)));
  }

  /** The highest score this process has handed out or seen in the database. */
  long highest() {
    return highest.get();
  }
}
