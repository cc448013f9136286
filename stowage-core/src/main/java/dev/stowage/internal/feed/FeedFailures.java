package dev.stowage.internal.feed;

import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.redis.DecodeFailureLog;
import java.util.concurrent.atomic.LongAdder;

/**
 * What a feed could not read: the entries skipped because they could not be decoded and those lost
 * with a sealed bucket's missing string, counted and logged once per key. Thread-safe.
 */
final class FeedFailures {
  private final String feedKey;
  private final LongAdder count = new LongAdder();
  private final DecodeFailureLog log;

  FeedFailures(String feedKey, String owner) {
    this.feedKey = feedKey;
    this.log = new DecodeFailureLog(owner);
  }

  /** Entries skipped since the feed was built because they could not be decoded. */
  long count() {
    return count.sum();
  }

  /**
   * Counts, once, the entries of a sealed bucket whose string was found missing from Redis
   * (deleted, or evicted under {@code maxmemory}); the script that found it dropped it from the
   * index, so that pages and the feed's size agree again and no later page fails on it.
   */
  void lostBucket(long bucket, long entries) {
    count.add(entries);
    log.report(
        feedKey + " bucket " + bucket,
        "its sealed value is missing from Redis (deleted or"
            + " evicted), so its "
            + entries
            + " entries are lost; the bucket was dropped from the feed's index");
  }

  /** Skips {@code entries} of a sealed bucket that cannot be read. */
  void skipSealed(int entries, String reason) {
    count.add(entries);
    log.report(feedKey + " (" + entries + " entries of a sealed bucket)", reason);
  }

  /** Skips a member that cannot be decoded. */
  void skip(byte[] member, String reason) {
    count.increment();
    long score = FeedLayout.score(member);
    log.report(
        feedKey + (score < 0 ? " (a member of " + member.length + " bytes)" : " score " + score),
        reason);
  }

  /** Logs, once per bucket, that a bucket was left open: sealing is an optimisation. */
  void leftOpen(long bucket, String message) {
    log.report(feedKey + " bucket " + bucket, message);
  }
}
