package dev.stowage;

/**
 * Counters of one cache since it was built, taken by {@link RedisCache#stats()}. Each counter only
 * grows; the five are read one after another, not as one atomic snapshot.
 *
 * @param hits reads that found a value and decoded it
 * @param misses reads that found no value, including the ones counted in {@code decodeFailures}
 * @param decodeFailures values that were present but could not be decoded (corrupt, foreign, an
 *     unknown codec, a missing dictionary, a length or size past a limit, no room in the
 *     decompression budget in time), each returned as a miss
 * @param loads loader calls that returned
 * @param loadFailures loader calls that threw
 */
public record CacheStats(long hits, long misses, long decodeFailures, long loads, long loadFailures) {

  /** Hits over all reads, or 1.0 before the first read. */
  public double hitRate() {
    long reads = hits + misses;
    return reads == 0 ? 1.0 : (double) hits / reads;
  }
}
