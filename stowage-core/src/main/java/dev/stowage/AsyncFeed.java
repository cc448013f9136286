package dev.stowage;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous view of a {@link Feed}, from {@link Feed#async()}: each method starts the same
 * operation as its blocking counterpart and returns at once. Futures fail with the exceptions the
 * blocking methods throw ({@link CacheUnavailableException} when Redis is unreachable or too slow);
 * a value that cannot be encoded fails the future before anything is sent. Futures complete on
 * Lettuce's I/O thread, or, for a page of 4 KiB or more of stored values, on Lettuce's computation
 * threads, which decode it: do not block in their callbacks. Thread-safe.
 *
 * @param <V> the type of the values
 */
public interface AsyncFeed<V> {

  /** See {@link Feed#add}. */
  CompletableFuture<Long> add(V value);

  /** See {@link Feed#addAll}; the values are encoded in the calling thread. */
  CompletableFuture<List<Long>> addAll(List<? extends V> values);

  /** See {@link Feed#putAll}; the values are encoded in the calling thread. */
  CompletableFuture<Void> putAll(Map<Long, ? extends V> valuesByScore);

  /**
   * See {@link Feed#page}. Dictionaries the entries name that this process has not loaded are
   * loaded without blocking before the entries are decoded.
   *
   * @throws IllegalArgumentException at once, for a page or size out of range
   */
  CompletableFuture<List<Feed.Entry<V>>> page(int page, int size);

  /**
   * See {@link Feed#remove}.
   *
   * @throws IllegalArgumentException at once, for a score below 1 or above 2<sup>53</sup>
   */
  CompletableFuture<Boolean> remove(long score);

  /** See {@link Feed#size}. */
  CompletableFuture<Long> size();

  /** See {@link Feed#clear}. */
  CompletableFuture<Void> clear();

  /**
   * Reserves {@code count} consecutive scores for values to be stored later with {@link #putAll}
   * (for example once rows keyed by score are committed in a database), in one script: the counter
   * is first lifted to {@code floor} when it is below it (pass the highest score handed out, so
   * that scores only ever grow), then incremented. Completes with the first score reserved, or with
   * an empty value when Redis holds no counter: a counter lost with a restarted Redis is never
   * silently counted again from zero, which could hand out scores below entries that exist
   * elsewhere; restore it with {@link #raiseCounter} and reserve again.
   *
   * @throws IllegalArgumentException if {@code count} is below 1 or {@code floor} is outside 0 to
   *     2<sup>53</sup>
   */
  CompletableFuture<OptionalLong> reserveScores(int count, long floor);

  /**
   * Raises the counter to at least {@code atLeast}, creating it when missing and never lowering it.
   * Completes with the counter's value.
   *
   * @throws IllegalArgumentException if {@code atLeast} is outside 0 to 2<sup>53</sup>
   */
  CompletableFuture<Long> raiseCounter(long atLeast);

  /** The blocking view of the same feed. */
  Feed<V> synchronous();
}
