package dev.stowage.internal.redis;

import dev.stowage.Envelope;
import dev.stowage.EnvelopeException;
import dev.stowage.compress.CompressionIds;
import dev.stowage.compress.DictionaryStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;

/**
 * Loads, without blocking, the dictionaries that values read from Redis name and this process has
 * not loaded yet, so that decoding them afterwards never waits for Redis: decoding may run on
 * Lettuce's I/O thread, where a blocking lookup on the same connection could only time out.
 */
final class DictionaryPreload {
  private DictionaryPreload() {}

  /**
   * Completes once every dictionary named by {@code values} is loaded, or known to be missing
   * (decoding then reports it). {@code envelopeStart} gives where a value's envelope starts, or -1
   * when it has none.
   */
  static CompletableFuture<Void> load(DictionaryStore store, Iterable<byte[]> values, ToIntFunction<byte[]> envelopeStart) {
    List<CompletableFuture<?>> loads = null;
    Set<Long> asked = null;
    for (byte[] value : values) {
      long id = unloaded(store, value, value == null ? -1 : envelopeStart.applyAsInt(value));
      if (id >= 0) {
        if (asked == null) {
          asked = new HashSet<>();
          loads = new ArrayList<>();
        }
        if (asked.add(id)) {
          loads.add(store.resolveAsync(id).exceptionally(e -> null));
        }
      }
    }
    return loads == null ? CompletableFuture.completedFuture(null)
        : CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
  }

  /** The id of the dictionary the envelope at {@code start} names when it is not loaded yet, else -1. */
  private static long unloaded(DictionaryStore store, byte[] value, int start) {
    if (value == null || start < 0 || value.length < start + Envelope.FIXED_HEADER_SIZE + 1
        || (value[start] & 0xFF) != Envelope.MAGIC || value[start + 3] != CompressionIds.ZSTD_DICT) {
      return -1;
    }
    try {
      byte[] envelope = start == 0 ? value : java.util.Arrays.copyOfRange(value, start, value.length);
      long id = Envelope.readHeader(envelope).dictionaryId();
      return store.isLoaded(id) ? -1 : id;
    } catch (EnvelopeException e) {
      return -1;
    }
  }
}
