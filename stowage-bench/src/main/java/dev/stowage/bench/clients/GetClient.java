package dev.stowage.bench.clients;

import dev.stowage.bench.RowRole;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One client configuration of table T4: reads the value of key number {@code index}. Thread-safe.
 */
interface GetClient extends AutoCloseable {

  String name();

  RowRole role();

  Map<String, Object> params();

  /** The item at key {@code index}, decoded, or {@code null} when the key is missing. */
  @Nullable Object get(long index) throws Exception;

  @Override
  void close();
}
