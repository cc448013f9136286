package dev.stowage;

import java.util.Objects;

/**
 * Counters of one cache since it was built, taken by {@link RedisCache#stats()}; {@link #of} makes
 * one, as a test or an adapter needs. Each counter only grows; they are read one after another, not
 * as one atomic snapshot.
 *
 * <p>A final class rather than a record, so that a counter can be added without breaking binary
 * compatibility. Immutable; equal when every counter is.
 */
public final class CacheStats {
  private final long hits;
  private final long misses;
  private final long decodeFailures;
  private final long loads;
  private final long loadFailures;
  private final long absentHits;
  private final long redisErrors;
  private final long loadNanos;
  private final long nearHits;
  private final long nearMisses;
  private final long puts;
  private final long deletes;
  private final long bytesBeforeCompression;
  private final long bytesWritten;
  private final long oversizedValues;

  private CacheStats(
      long hits,
      long misses,
      long decodeFailures,
      long loads,
      long loadFailures,
      long absentHits,
      long redisErrors,
      long loadNanos,
      long nearHits,
      long nearMisses,
      long puts,
      long deletes,
      long bytesBeforeCompression,
      long bytesWritten,
      long oversizedValues) {
    this.hits = hits;
    this.misses = misses;
    this.decodeFailures = decodeFailures;
    this.loads = loads;
    this.loadFailures = loadFailures;
    this.absentHits = absentHits;
    this.redisErrors = redisErrors;
    this.loadNanos = loadNanos;
    this.nearHits = nearHits;
    this.nearMisses = nearMisses;
    this.puts = puts;
    this.deletes = deletes;
    this.bytesBeforeCompression = bytesBeforeCompression;
    this.bytesWritten = bytesWritten;
    this.oversizedValues = oversizedValues;
  }

  /**
   * Counters with these values, in the order of the accessors below.
   *
   * @throws IllegalArgumentException if a counter is negative
   */
  public static CacheStats of(
      long hits,
      long misses,
      long decodeFailures,
      long loads,
      long loadFailures,
      long absentHits,
      long redisErrors,
      long loadNanos,
      long nearHits,
      long nearMisses,
      long puts,
      long deletes,
      long bytesBeforeCompression,
      long bytesWritten,
      long oversizedValues) {
    long[] all = {
      hits,
      misses,
      decodeFailures,
      loads,
      loadFailures,
      absentHits,
      redisErrors,
      loadNanos,
      nearHits,
      nearMisses,
      puts,
      deletes,
      bytesBeforeCompression,
      bytesWritten,
      oversizedValues
    };
    String[] names = {
      "hits",
      "misses",
      "decodeFailures",
      "loads",
      "loadFailures",
      "absentHits",
      "redisErrors",
      "loadNanos",
      "nearHits",
      "nearMisses",
      "puts",
      "deletes",
      "bytesBeforeCompression",
      "bytesWritten",
      "oversizedValues"
    };
    for (int i = 0; i < all.length; i++) {
      if (all[i] < 0) {
        throw new IllegalArgumentException(names[i] + " must be 0 or more, got " + all[i]);
      }
    }
    return new CacheStats(
        hits,
        misses,
        decodeFailures,
        loads,
        loadFailures,
        absentHits,
        redisErrors,
        loadNanos,
        nearHits,
        nearMisses,
        puts,
        deletes,
        bytesBeforeCompression,
        bytesWritten,
        oversizedValues);
  }

  /** Reads that found a value and decoded it. */
  public long hits() {
    return hits;
  }

  /** Reads that found no value, including the ones counted in {@code decodeFailures}. */
  public long misses() {
    return misses;
  }

  /**
   * Values that were present but could not be decoded (corrupt, foreign, an unknown codec, a
   * missing dictionary, a shape that cannot be read correctly, a length or size past a limit, no
   * room in the decompression budget in time), each returned as a miss.
   */
  public long decodeFailures() {
    return decodeFailures;
  }

  /** Loader calls that returned. */
  public long loads() {
    return loads;
  }

  /** Loader calls that threw. */
  public long loadFailures() {
    return loadFailures;
  }

  /**
   * Reads that found a key cached as absent ({@link RedisCache.Builder#cacheAbsent}), answered
   * without the loader; neither hits nor misses.
   */
  public long absentHits() {
    return absentHits;
  }

  /** Calls that failed because Redis was unreachable, too slow or refused a command. */
  public long redisErrors() {
    return redisErrors;
  }

  /** The time spent in loaders, in nanoseconds. */
  public long loadNanos() {
    return loadNanos;
  }

  /**
   * Reads answered by the {@linkplain RedisCache.Builder#nearCache near cache}, without Redis;
   * counted in {@code hits} too.
   */
  public long nearHits() {
    return nearHits;
  }

  /** Reads the near cache could not answer, which went to Redis. */
  public long nearMisses() {
    return nearMisses;
  }

  /**
   * Values stored, once Redis confirmed it: by {@code put}, {@code putAll} and loads (absent
   * markers are not counted).
   */
  public long puts() {
    return puts;
  }

  /**
   * Keys removed, as Redis counted them: by {@code delete}, {@code deleteAll} and {@code clear} (a
   * key that was not there is not counted).
   */
  public long deletes() {
    return deletes;
  }

  /**
   * The sizes of the values counted in {@code puts} as their codec encoded them, before compression
   * and without the envelope's header, added up.
   */
  public long bytesBeforeCompression() {
    return bytesBeforeCompression;
  }

  /**
   * The sizes of the same values as stored in Redis, compressed when that made them smaller and
   * with the envelope's header (none for legacy writes), added up; below {@code
   * bytesBeforeCompression} when compression pays.
   */
  public long bytesWritten() {
    return bytesWritten;
  }

  /**
   * On a {@linkplain CacheLayout#packed(long) packed} cache, the entries stored whose value (or
   * key) was longer than the server's {@code hash-max-listpack-value}, each of which made its
   * bucket a hashtable instead of a listpack; 0 on the key-per-value layout.
   */
  public long oversizedValues() {
    return oversizedValues;
  }

  /** The mean time a loader call took, in nanoseconds, or 0 before the first. */
  public double averageLoadNanos() {
    long calls = loads + loadFailures;
    return calls == 0 ? 0 : (double) loadNanos / calls;
  }

  /** Hits over all reads, or 1.0 before the first read. */
  public double hitRate() {
    long reads = hits + misses;
    return reads == 0 ? 1.0 : (double) hits / reads;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof CacheStats that
        && hits == that.hits
        && misses == that.misses
        && decodeFailures == that.decodeFailures
        && loads == that.loads
        && loadFailures == that.loadFailures
        && absentHits == that.absentHits
        && redisErrors == that.redisErrors
        && loadNanos == that.loadNanos
        && nearHits == that.nearHits
        && nearMisses == that.nearMisses
        && puts == that.puts
        && deletes == that.deletes
        && bytesBeforeCompression == that.bytesBeforeCompression
        && bytesWritten == that.bytesWritten
        && oversizedValues == that.oversizedValues;
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        hits,
        misses,
        decodeFailures,
        loads,
        loadFailures,
        absentHits,
        redisErrors,
        loadNanos,
        nearHits,
        nearMisses,
        puts,
        deletes,
        bytesBeforeCompression,
        bytesWritten,
        oversizedValues);
  }

  @Override
  public String toString() {
    return "CacheStats["
        + "hits="
        + hits
        + ", misses="
        + misses
        + ", decodeFailures="
        + decodeFailures
        + ", loads="
        + loads
        + ", loadFailures="
        + loadFailures
        + ", absentHits="
        + absentHits
        + ", redisErrors="
        + redisErrors
        + ", loadNanos="
        + loadNanos
        + ", nearHits="
        + nearHits
        + ", nearMisses="
        + nearMisses
        + ", puts="
        + puts
        + ", deletes="
        + deletes
        + ", bytesBeforeCompression="
        + bytesBeforeCompression
        + ", bytesWritten="
        + bytesWritten
        + ", oversizedValues="
        + oversizedValues
        + "]";
  }
}
