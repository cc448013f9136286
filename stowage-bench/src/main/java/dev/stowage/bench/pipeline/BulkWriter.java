package dev.stowage.bench.pipeline;

import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One way of writing a batch of items to Redis: one row of table T2. Implementations hold their
 * client for the whole run and are used from one thread.
 */
interface BulkWriter extends AutoCloseable {

  /** The row's name in the table. */
  String name();

  /** Why the row is there. */
  RowRole role();

  /** What the row configures (client, serializer), for the results. */
  Map<String, Object> params();

  /**
   * Writes every item under {@code keyPrefix + id}; returns once Redis has acknowledged them all.
   */
  void write(List<Item> items, String keyPrefix) throws Exception;

  /** Reads one item back the way this row's client would, or {@code null} if the key is absent. */
  @Nullable Item read(String key) throws Exception;

  @Override
  void close();
}
