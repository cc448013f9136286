package dev.stowage.bench.nearcache;

import dev.stowage.samples.Item;
import java.util.concurrent.CompletionStage;

/**
 * Writes new versions of the items behind a row's client, on a connection of its own. Thread-safe.
 */
interface ItemWriter extends AutoCloseable {

  /** Writes {@code item} at {@code index}; completes when Redis has acknowledged it. */
  CompletionStage<?> write(int index, Item item);

  /** How the writes reach Redis, for the row's params. */
  String describe();

  @Override
  void close();
}
