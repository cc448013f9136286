package dev.stowage.board;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Mono;

/**
 * Hands out post scores that only ever grow, so that a new post is scored above every post created
 * before it and is the first of the first page, across restarts of Redis and of this process. Every
 * mode reserves its scores here. Thread-safe.
 *
 * <p>Scores come from the Redis counter ({@code counter}/{@code board}, as in the seed), through
 * {@link #RESERVE_SCRIPT} in the seed modes and the same script of the feed ({@code
 * AsyncFeed.reserveScores}) in stowage mode: it first lifts the counter to the highest score this
 * process has handed out (a restarted or foreign counter may be behind it), and it refuses to count
 * when the counter is missing. A new or restarted Redis has lost the counter, and counting again
 * from 0 would hand out the scores of failed inserts, which sort among the oldest posts; so the
 * counter is raised first to the database's highest score (and this process's) and the reservation
 * made again. The scores of a failed insert are left unused and never handed out again.
 *
 * <p>While Redis is unreachable, stowage mode counts in the process with {@link #reserveLocally},
 * above the same floor and the database's highest score.
 */
final class BoardScores {
  /**
   * Lua, {@code KEYS[1]} the hash, {@code ARGV} the field, the number of scores and the floor:
   * returns {@value #NO_COUNTER} when the counter is missing, else raises it to the floor and
   * {@code HINCRBY}s it, returning the last score reserved. (An integer rather than nil: a RESP3
   * connection would receive a Lua {@code false} as a boolean.)
   */
  static final String RESERVE_SCRIPT =
      "local c = redis.call('HGET', KEYS[1], ARGV[1])"
          + " if not c then return -1 end"
          + " if tonumber(c) < tonumber(ARGV[3]) then redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end"
          + " return redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])";

  /** What {@link #RESERVE_SCRIPT} returns when Redis holds no counter. */
  static final long NO_COUNTER = -1;

  /** The SHA-1 of {@link #RESERVE_SCRIPT}, for {@code EVALSHA}. */
  static final String RESERVE_SHA = sha1(RESERVE_SCRIPT);

  /**
   * Lua, {@code KEYS[1]} the hash, {@code ARGV} the field and a score: raises the counter to the
   * score (creating it when missing), never lowers it; returns the counter.
   */
  static final String RAISE_SCRIPT =
      "local c = redis.call('HGET', KEYS[1], ARGV[1])"
          + " if not c or tonumber(c) < tonumber(ARGV[2]) then"
          + " redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) return tonumber(ARGV[2]) end"
          + " return tonumber(c)";

  /** Where the counter is kept: stowage mode's feed, or the seed's template. */
  interface Counter {
    /**
     * Reserves {@code count} scores above the counter and {@code floor}, as {@link #RESERVE_SCRIPT}
     * does. Emits the last one, or nothing when Redis holds no counter.
     */
    Mono<Long> reserve(int count, long floor);

    /** Raises the counter to at least {@code atLeast}, as {@link #RAISE_SCRIPT} does. */
    Mono<Long> raise(long atLeast);

    /**
     * The counter's hash and field, for messages: {@code counter/board} unless it lives elsewhere.
     */
    default String name() {
      return BoardKeys.COUNTER + "/" + BoardKeys.COUNTER_FIELD;
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

  private static String sha1(String script) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-1").digest(script.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JVM has no SHA-1", e);
    }
  }
}
