package dev.stowage.internal.feed;

import dev.stowage.StowageException;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.format.StowageKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;

/**
 * The keys of a feed's buckets, for the scripts' {@code KEYS}: every key a script touches arrives
 * there, three per bucket (its list, its sealed string and its hold), with the bucket numbers in
 * the same order in {@code ARGV} ({@code functions.lua}, {@code bucket_keys}). Thread-safe.
 *
 * <p>Where a write or a read knows its scores (put, remove, seal), it passes exactly their buckets.
 * Where the buckets depend on what Redis holds (an append's scores come from the counter; a page, a
 * count and a clear walk the index), it passes the buckets it expects from what it last saw: the
 * counter after the last append and the index's buckets as a script last returned them, and a
 * bucket or two above. A script that reaches a bucket it was not given changes nothing and returns
 * the counter or the index instead, and is sent again with their keys ({@link #MAX_ROUNDS} times at
 * most): one more round trip, the first time a feed object appends or reads, and when other writers
 * have moved the counter past what it expected.
 */
final class BucketKeys {
  /** Scores per bucket: {@link FeedLayout#BUCKET_SIZE}. */
  static final int BUCKET = FeedLayout.BUCKET_SIZE;

  /** Times a script is sent again with the buckets it asked for before the operation fails. */
  static final int MAX_ROUNDS = 10;

  /** Scores past the counter whose buckets an append passes besides its own. */
  static final int LOOKAHEAD = 2 * BUCKET;

  /** Buckets of the index a page passes at least, from the newest. */
  private static final int PAGE_BUCKETS = 64;

  private final String feedKey;

  /** The counter as last seen, -1 before any. */
  private final AtomicLong counter = new AtomicLong(-1);

  /** The index's bucket numbers as last seen, newest first. */
  private volatile long[] known = new long[0];

  /** How many of {@link #known} a page passes: as deep as a page has reached. */
  private volatile int pageDepth = PAGE_BUCKETS;

  BucketKeys(String feedKey) {
    this.feedKey = feedKey;
  }

  /** {@code fixed}, then the list, sealed string and hold of each of {@code buckets}. */
  byte[][] keys(long[] buckets, byte[]... fixed) {
    byte[][] keys = Arrays.copyOf(fixed, fixed.length + 3 * buckets.length);
    int i = fixed.length;
    for (long bucket : buckets) {
      keys[i++] = utf8(FeedLayout.bucketKey(feedKey, bucket));
      keys[i++] = utf8(FeedLayout.sealedKey(feedKey, bucket));
      keys[i++] = utf8(StowageKeys.feedSealHold(feedKey, bucket));
    }
    return keys;
  }

  /** Adds to {@code argv} the number of buckets, then each bucket's number. */
  static void addNumbers(List<byte[]> argv, long[] buckets) {
    argv.add(utf8(Integer.toString(buckets.length)));
    for (long bucket : buckets) {
      argv.add(utf8(Long.toString(bucket)));
    }
  }

  /** The distinct buckets of {@code scores}. */
  static long[] ofScores(LongStream scores) {
    return scores.map(FeedLayout::bucketOf).distinct().toArray();
  }

  /**
   * The buckets an append of {@code n} scores expects to write into: those after the counter as
   * last seen, and {@code lookahead} scores more; none before the counter was seen.
   */
  long[] forAppend(int n, long lookahead) {
    long c = counter.get();
    if (c < 0) {
      return new long[0];
    }
    long last = Math.min(FeedLayout.MAX_SCORE, c + n + lookahead);
    return LongStream.rangeClosed(FeedLayout.bucketOf(c + 1), FeedLayout.bucketOf(last)).toArray();
  }

  /** The counter as a script read it, replacing what was seen before. */
  void counterIs(long value) {
    counter.set(value);
  }

  /** A score an append was given: the counter is at least there. */
  void counterAtLeast(long value) {
    counter.accumulateAndGet(value, Math::max);
  }

  /** The buckets a page passes: the newest of those seen in the index, and those above. */
  long[] forPage() {
    long[] all = known;
    return withNewest(Arrays.copyOf(all, Math.min(all.length, pageDepth)));
  }

  /** The buckets a count or a clear passes: all those seen in the index, and those above. */
  long[] forIndex() {
    return withNewest(known);
  }

  /**
   * {@code buckets}, newest first, with the two above the newest, and the counter's bucket and the
   * two above it: where appends open new buckets.
   */
  private long[] withNewest(long[] buckets) {
    long top = buckets.length == 0 ? -1 : buckets[0];
    long c = counter.get();
    LongStream.Builder above = LongStream.builder();
    if (top >= 0) {
      above.add(top + 1).add(top + 2);
    }
    if (c >= 0) {
      long bucket = FeedLayout.bucketOf(c);
      above.add(bucket).add(bucket + 1).add(bucket + 2);
    }
    return merged(buckets, above.build().toArray());
  }

  /**
   * Takes the index's members that a page's script returned, from the newest: later pages pass
   * their buckets.
   */
  void pageReached(List<Object> reply) {
    long[] seen = numbers(reply);
    pageDepth = Math.max(pageDepth, seen.length);
    if (seen.length == 0) {
      known = new long[0];
      return;
    }
    // The reply is the index from its newest bucket down: a bucket seen before among those and
    // missing from it has left the index, and would take the place of one a page needs.
    long lowest = Arrays.stream(seen).min().orElseThrow();
    known = merged(seen, Arrays.stream(known).filter(bucket -> bucket < lowest).toArray());
  }

  /** Takes the whole index, as a count or a clear script returned it. */
  void indexIs(List<Object> reply) {
    known = merged(new long[0], numbers(reply));
  }

  /** After a clear: the index is empty. */
  void cleared() {
    known = new long[0];
  }

  /**
   * Fails an operation whose script asked for other buckets at each of its {@link #MAX_ROUNDS}
   * rounds.
   */
  static void checkRounds(int round, String what) {
    if (round >= MAX_ROUNDS) {
      throw new StowageException(
          what
              + ": the feed's buckets changed each of the "
              + round
              + " times the script was sent with the keys it asked for; nothing was changed");
    }
  }

  /** The bucket numbers of index members (from the reply's second element on). */
  private static long[] numbers(List<Object> reply) {
    List<Long> numbers = new ArrayList<>(reply.size());
    for (int i = 1; i < reply.size(); i++) {
      String member = new String((byte[]) reply.get(i), StandardCharsets.US_ASCII);
      int colon = member.indexOf(':');
      numbers.add(Long.parseLong(colon < 0 ? member : member.substring(0, colon)));
    }
    return numbers.stream().mapToLong(Long::longValue).toArray();
  }

  /** The union of two sets of bucket numbers, newest first. */
  private static long[] merged(long[] a, long[] b) {
    return LongStream.concat(Arrays.stream(a), Arrays.stream(b))
        .boxed()
        .distinct()
        .sorted((x, y) -> Long.compare(y, x))
        .mapToLong(Long::longValue)
        .toArray();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
