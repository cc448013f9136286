package dev.stowage.internal.compress;

import org.jspecify.annotations.Nullable;

/** Compresses payloads for one {@link dev.stowage.compress.Compression}. Thread-safe. */
public interface PayloadCompressor {

  /** The compression id written for values this compressor shrank. */
  int compressionId();

  /** The dictionary id written with them, or -1 without a dictionary. */
  long dictionaryId();

  /** Compresses {@code data} into the payload format of {@link #compressionId()}. */
  byte[] compress(byte[] data);

  /**
   * Compresses {@code data} into a new array that starts with {@code room} unwritten bytes (for a
   * header) followed by the compressed bytes, or returns {@code null}, allocating nothing, when the
   * compressed bytes take {@code limit} or more.
   */
  default byte @Nullable [] compressAfter(int room, byte[] data, int limit) {
    byte[] compressed = compress(data);
    if (compressed.length >= limit) {
      return null;
    }
    byte[] out = new byte[room + compressed.length];
    System.arraycopy(compressed, 0, out, room, compressed.length);
    return out;
  }
}
