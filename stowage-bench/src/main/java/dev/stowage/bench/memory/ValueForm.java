package dev.stowage.bench.memory;

import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * How a record becomes a Redis value and back: a codec, bare or inside Stowage's envelope with a
 * compression.
 *
 * @param codec the codec's name, such as {@code json}
 * @param compression {@code bare} (no envelope) or the envelope's compression
 * @param encode record to bytes
 * @param decode bytes to record
 * @param dictionary the zstd dictionary the values need, stored in Redis beside them, or {@code
 *     null}
 */
@SuppressWarnings("ArrayRecordComponent") // never compared: the dictionary is carried, not a key
record ValueForm(
    String codec,
    String compression,
    Function<Object, byte[]> encode,
    Function<byte[], Object> decode,
    byte @Nullable [] dictionary) {

  /** {@code codec} or {@code codec+compression}. */
  String label() {
    return compression.equals("bare") ? codec : codec + "+" + compression;
  }
}
