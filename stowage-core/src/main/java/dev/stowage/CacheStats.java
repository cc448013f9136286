package dev.stowage;

/**
 * Counters of one cache since it was built, taken by {@link RedisCache#stats()}. Each counter only
 * grows; they are read one after another, not as one atomic snapshot.
 *
 * @param hits reads that found a value and decoded it
 * @param misses reads that found no value, including the ones counted in {@code decodeFailures}
 * @param decodeFailures values that were present but could not be decoded (corrupt, foreign, an
 *     unknown codec, a missing dictionary, a shape that cannot be read correctly, a length or size
 *     past a limit, no room in the decompression budget in time), each returned as a miss
 * @param loads loader calls that returned
 * @param loadFailures loader calls that threw
 * @param absentHits reads that found a key cached as absent ({@link
 *     RedisCache.Builder#cacheAbsent}), answered without the loader; neither hits nor misses
 * @param redisErrors calls that failed because Redis was unreachable, too slow or refused a command
 * @param loadNanos the time spent in loaders, in nanoseconds
 * @param nearHits reads answered by the {@linkplain RedisCache.Builder#nearCache near cache},
 *     without Redis; counted in {@code hits} too
 * @param nearMisses reads the near cache could not answer, which went to Redis
 * @param puts values stored, once Redis confirmed it: by {@code put}, {@code putAll} and loads
 *     (absent markers are not counted)
 * @param deletes keys removed, as Redis counted them: by {@code delete}, {@code deleteAll} and
 *     {@code clear} (a key that was not there is not counted)
 * @param bytesBeforeCompression the sizes of the values counted in {@code puts} as their codec
 *     encoded them, before compression and without the envelope's header, added up
 * @param bytesWritten the sizes of the same values as stored in Redis, compressed when that made
 *     them smaller and with the envelope's header (none for legacy writes), added up; below {@code
 *     bytesBeforeCompression} when compression pays
 * @param oversizedValues on a {@linkplain CacheLayout#packed(long) packed} cache, the entries
 *     stored whose value (or key) was longer than the server's {@code hash-max-listpack-value},
 *     each of which made its bucket a hashtable instead of a listpack; 0 on the key-per-value
 *     layout
 */
public record CacheStats(
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
}
