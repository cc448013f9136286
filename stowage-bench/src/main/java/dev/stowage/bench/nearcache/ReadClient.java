package dev.stowage.bench.nearcache;

import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import java.util.Map;
import java.util.Optional;

/** One row's client: reads item number {@code index}, from its near cache or from Redis. Thread-safe. */
interface ReadClient extends AutoCloseable {

  String name();

  RowRole role();

  /** What the row is: client, near cache, notes. */
  Map<String, Object> params();

  /** The item at {@code index}, decoded, or {@code null} when Redis holds none. */
  Item get(int index) throws Exception;

  /** Reads answered in the process and reads that went to Redis since the client was made, when the client counts them. */
  Optional<NearCounts> nearCounts();

  @Override
  void close();

  /**
   * Reads a near cache answered and reads it sent to Redis.
   *
   * @param hits answered in the process
   * @param misses sent to Redis
   */
  record NearCounts(long hits, long misses) {

    /** The reads counted since {@code earlier}. */
    NearCounts minus(NearCounts earlier) {
      return new NearCounts(hits - earlier.hits, misses - earlier.misses);
    }

    /** Hits over all reads, or 0 before the first. */
    double hitRatio() {
      long reads = hits + misses;
      return reads == 0 ? 0 : (double) hits / reads;
    }
  }
}
