package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.EnvelopeException;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.internal.store.SchemaStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * Loads, without blocking, what values read from Redis name and this process has not loaded yet
 * (their zstd dictionaries and writer schemas), so that decoding them afterwards never waits for
 * Redis: decoding may run on Lettuce's I/O thread, where a blocking lookup on the same connection
 * could only time out. Thread-safe.
 */
public final class EnvelopePreload {
  private final DictionaryStore dictionaries;
  private final SchemaStore schemas;

  public EnvelopePreload(DictionaryStore dictionaries, SchemaStore schemas) {
    this.dictionaries = requireNonNull(dictionaries, "dictionaries");
    this.schemas = requireNonNull(schemas, "schemas");
  }

  /**
   * Completes once every dictionary and schema named by {@code values} is loaded, or known to be
   * missing (decoding then reports it). {@code envelopeStart} gives where a value's envelope
   * starts, or -1 when it has none.
   */
  public CompletableFuture<Void> load(
      Iterable<byte[]> values, ToIntFunction<byte[]> envelopeStart) {
    List<CompletableFuture<?>> loads = null;
    Set<Long> asked = null;
    for (byte[] value : values) {
      Envelope.Header header = header(value, value == null ? -1 : envelopeStart.applyAsInt(value));
      if (header == null) {
        continue;
      }
      if (header.hasDictionary() && !dictionaries.isLoaded(header.dictionaryId())) {
        if (asked == null || loads == null) {
          asked = new HashSet<>();
          loads = new ArrayList<>();
        }
        if (asked.add(header.dictionaryId())) {
          loads.add(dictionaries.resolveAsync(header.dictionaryId()).exceptionally(e -> null));
        }
      }
      if (header.hasSchemaVersion() && !schemas.isLoaded(header.schemaVersion())) {
        if (asked == null || loads == null) {
          asked = new HashSet<>();
          loads = new ArrayList<>();
        }
        // Schema fingerprints are 28 bits: kept apart from dictionary ids by the sign.
        if (asked.add(-1L - header.schemaVersion())) {
          loads.add(schemas.resolveAsync(header.schemaVersion()).exceptionally(e -> null));
        }
      }
    }
    return loads == null
        ? CompletableFuture.completedFuture(null)
        : CompletableFuture.allOf(loads.toArray(CompletableFuture[]::new));
  }

  /** The header of the envelope at {@code start} when it may name something to load, else null. */
  private static Envelope.@Nullable Header header(byte[] value, int start) {
    if (value == null
        || start < 0
        || value.length < start + Envelope.FIXED_HEADER_SIZE + 1
        || (value[start] & 0xFF) != Envelope.MAGIC
        || (!CompressionIds.hasDictionary(value[start + 3])
            && (value[start + 1] & Envelope.FLAG_SCHEMA_VERSION) == 0)) {
      return null;
    }
    try {
      return Envelope.readHeader(
          start == 0 ? value : Arrays.copyOfRange(value, start, value.length));
    } catch (EnvelopeException e) {
      return null;
    }
  }
}
