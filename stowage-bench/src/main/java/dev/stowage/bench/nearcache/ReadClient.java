package dev.stowage.bench.nearcache;

import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import java.util.Map;
import java.util.OptionalLong;
import org.jspecify.annotations.Nullable;

/**
 * One row's client: reads item number {@code index}, from its near cache or from Redis.
 * Thread-safe.
 */
interface ReadClient extends AutoCloseable {

  String name();

  RowRole role();

  /** What the row is: client, near cache, notes. */
  Map<String, Object> params();

  /** The item at {@code index}, decoded, or {@code null} when Redis holds none. */
  @Nullable Item get(int index) throws Exception;

  /**
   * The reads that the client's near cache could not answer and sent to Redis since it was made, or
   * empty when the client does not count them. Only misses are counted, so that counting costs a
   * hit nothing; the bench knows how many reads it made.
   */
  OptionalLong redisReads();

  @Override
  void close();
}
