package dev.stowage.bench.cluster;

import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One client on one topology: one row of the cluster table. It writes and reads items in bulk, and
 * reads one at a time from many threads at once ({@link #get}); the bulk calls come from one
 * thread.
 */
interface BulkClient extends AutoCloseable {

  /** The client's part of the row's name, such as {@code redisson-RBatch}. */
  String client();

  /** Why the row is there. */
  RowRole role();

  /** What the row configures (client, serializer), for the results. */
  Map<String, Object> params();

  /**
   * Writes every item under {@code keyPrefix + id}, without a TTL; returns once Redis acknowledged
   * them all.
   */
  void putAll(List<Item> items, String keyPrefix) throws Exception;

  /**
   * Reads the items of these ids from {@code keyPrefix + id} in bulk, in the order of {@code ids},
   * a missing one as {@code null}.
   */
  List<@Nullable Item> getAll(List<Long> ids, String keyPrefix) throws Exception;

  /** Reads one item, or {@code null} if the key is absent; called from many threads at once. */
  @Nullable Item get(String keyPrefix, long id) throws Exception;

  @Override
  void close();
}
