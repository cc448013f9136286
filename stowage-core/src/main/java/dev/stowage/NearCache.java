package dev.stowage;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * How a cache or feed keeps decoded values in the process, in front of Redis: given to {@link
 * RedisCache.Builder#nearCache(NearCache)} or {@link Feed.Builder#nearCache(NearCache)}. Immutable;
 * each method returns a copy.
 *
 * <pre>{@code
 * RedisCache<String, Item> items = stowage.cache("items", Item.class)
 *     .nearCache(NearCache.maximumSize(10_000).expireAfterWrite(Duration.ofMinutes(5)))
 *     .build();
 * }</pre>
 *
 * <p>A value is kept only while Redis says it has not changed: the reads go over a connection for
 * which Redis tracks the keys read ({@code CLIENT TRACKING}, RESP3) and pushes an invalidation when
 * any client writes one of them; the local copy is dropped then. A read whose reply may be older
 * than an invalidation received meanwhile is not kept. When the tracking connection drops, or Redis
 * cannot track (older than 6, or {@code HELLO}/{@code CLIENT} refused), every near cache of the
 * {@link Stowage} is emptied and reads go to Redis until tracking is back; one log line says why.
 * The process's own writes drop the local copy before they return. Values that fail to decode are
 * never kept. A kept value is shared by every caller that reads it: keep values immutable.
 *
 * <p>A copy never outlives its key in Redis: each read that may be kept also reads the key's
 * remaining time to live ({@code PTTL}, in the same round trip), and the copy goes when that time,
 * counted from before the read was sent, has passed, whoever gave the key its TTL (the cache's
 * {@link RedisCache.Builder#ttl}, another process, an {@code EXPIRE}), with or without {@link
 * #expireAfterWrite}, which bounds it further. (Redis tells a tracking client of an expired key
 * only once it removes it, which may be minutes later.) An {@code EXPIRE}, {@code PERSIST} or any
 * other change of a key's TTL drops the copy as a write does. A feed's pages are kept without a
 * time bound: a feed's keys have no TTL.
 *
 * <p>On a Redis Cluster a near cache always tracks in {@linkplain #broadcast() broadcast mode}, on
 * a connection of its own to every master, and keeps values only while every master that serves
 * slots tracks; a connection lost to any of them empties it until all are back, and so does every
 * change of the topology. <b>Warning:</b> a new master (a replica promoted after a failover, a node
 * added) is tracked only once a topology refresh has found it, at most 30 seconds later (sooner
 * when a redirection or a reconnection triggers the refresh); if a master is cut off by a network
 * split rather than killed, writes to its replacement are not heard until then, and a stale value
 * may be served for that long.
 *
 * <p>Needs Caffeine ({@code com.github.ben-manes.caffeine:caffeine}) on the classpath.
 */
public final class NearCache {
  /** Entries a near cache keeps unless {@link #maximumSize} says otherwise. */
  public static final long DEFAULT_MAXIMUM_SIZE = 10_000;

  private final long maximumSize;
  private final long maximumWeight;
  private final @Nullable Duration expireAfterWrite;
  private final boolean broadcast;

  private NearCache(
      long maximumSize,
      long maximumWeight,
      @Nullable Duration expireAfterWrite,
      boolean broadcast) {
    this.maximumSize = maximumSize;
    this.maximumWeight = maximumWeight;
    this.expireAfterWrite = expireAfterWrite;
    this.broadcast = broadcast;
  }

  /** A near cache of {@link #DEFAULT_MAXIMUM_SIZE} entries, default tracking, no time limit. */
  public static NearCache defaults() {
    return new NearCache(DEFAULT_MAXIMUM_SIZE, -1, null, false);
  }

  /**
   * A near cache of at most {@code entries} entries (a feed's entries are its pages).
   *
   * @throws IllegalArgumentException if {@code entries} is below 1
   */
  public static NearCache maximumSize(long entries) {
    if (entries < 1) {
      throw new IllegalArgumentException(
          "a near cache's maximumSize must be at least 1, got " + entries);
    }
    return new NearCache(entries, -1, null, false);
  }

  /**
   * A near cache bounded by the stored size of its values: at most {@code bytes} bytes of the
   * values' Redis form (their envelopes) in all.
   *
   * @throws IllegalArgumentException if {@code bytes} is below 1
   */
  public static NearCache maximumWeight(long bytes) {
    if (bytes < 1) {
      throw new IllegalArgumentException(
          "a near cache's maximumWeight must be at least 1 byte, got " + bytes);
    }
    return new NearCache(-1, bytes, null, false);
  }

  /**
   * The same, with each entry dropped {@code limit} after it was kept, whatever Redis says (and
   * sooner if its key's time to live in Redis ends first).
   *
   * @throws IllegalArgumentException if {@code limit} is under a millisecond
   */
  public NearCache expireAfterWrite(Duration limit) {
    requireNonNull(limit, "limit");
    if (limit.isNegative() || limit.toMillis() < 1) {
      throw new IllegalArgumentException(
          "a near cache's expireAfterWrite must be at least 1 ms, got " + limit);
    }
    return new NearCache(maximumSize, maximumWeight, limit, broadcast);
  }

  /**
   * The same, in broadcast mode: Redis pushes an invalidation for every write to a key under the
   * cache's key prefix (a feed's key), whoever read it, instead of remembering which keys this
   * process read. Better for keys read by many processes, as Redis keeps no table of readers; a
   * write to any key under the prefix drops the local copy of that key.
   */
  public NearCache broadcast() {
    return new NearCache(maximumSize, maximumWeight, expireAfterWrite, true);
  }

  /** The most entries, or -1 when bounded by weight. */
  public long maximumEntries() {
    return maximumSize;
  }

  /** The most bytes, or -1 when bounded by entries. */
  public long maximumBytes() {
    return maximumWeight;
  }

  /** The time limit of an entry, if any. */
  public Optional<Duration> timeLimit() {
    return Optional.ofNullable(expireAfterWrite);
  }

  /** Whether Redis broadcasts the writes under the prefix. */
  public boolean isBroadcast() {
    return broadcast;
  }

  @Override
  public String toString() {
    return "NearCache["
        + (maximumSize > 0 ? maximumSize + " entries" : maximumWeight + " bytes")
        + (expireAfterWrite == null ? "" : ", " + expireAfterWrite)
        + (broadcast ? ", broadcast" : "")
        + "]";
  }
}
