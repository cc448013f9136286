package dev.stowage;

import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The asynchronous view of a {@link Feed}, from {@link Feed#async()}: each method starts the same
 * operation as its blocking counterpart and returns at once. Futures fail with the exceptions the
 * blocking methods throw ({@link CacheUnavailableException} when Redis is unreachable or too slow);
 * a value that cannot be encoded fails the future before anything is sent. Arguments out of range
 * throw at once, and so does {@code null} ({@link NullPointerException}). Futures complete on
 * Lettuce's I/O thread or on its computation threads, which decode large pages: do not block in
 * their callbacks. Thread-safe.
 *
 * @param <V> the type of the values
 */
public interface AsyncFeed<V> {

  /** See {@link Feed#name}; answered locally. */
  String name();

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
   * See {@link Feed#reserveScores}; completes with the first score reserved, or with an empty value
   * when Redis holds no counter.
   *
   * @throws IllegalArgumentException at once, if {@code count} is below 1 or {@code floor} is
   *     outside 0 to 2<sup>53</sup>
   */
  CompletableFuture<OptionalLong> reserveScores(int count, long floor);

  /**
   * See {@link Feed#raiseCounter}; completes with the counter's value afterwards.
   *
   * @throws IllegalArgumentException at once, if {@code atLeast} is outside 0 to 2<sup>53</sup>
   */
  CompletableFuture<Long> raiseCounter(long atLeast);

  /** See {@link Feed#decodeFailures}; answered locally. */
  long decodeFailures();

  /** The blocking view of the same feed. */
  Feed<V> synchronous();
}
