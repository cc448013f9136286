package dev.stowage.internal.compress;

/** Compresses payloads for one {@link dev.stowage.compress.Compression}. Thread-safe. */
public interface PayloadCompressor {

  /** The compression id written for values this compressor shrank. */
  int compressionId();

  /** The dictionary id written with them, or -1 without a dictionary. */
  long dictionaryId();

  /** Compresses {@code data} into the payload format of {@link #compressionId()}. */
  byte[] compress(byte[] data);
}
