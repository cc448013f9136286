package dev.stowage.internal.format;

/** Writes envelope version 1 headers in front of payloads. Stateless and thread-safe. */
public final class EnvelopeWriter {
  private EnvelopeWriter() {}

  /** The size of the header for these fields. */
  public static int headerSize(int compressionId, long dictionaryId, int schemaVersion) {
    int size = Envelope.FIXED_HEADER_SIZE;
    if (CompressionIds.hasDictionary(compressionId)) {
      size += UnsignedVarint.size(dictionaryId);
    }
    if (schemaVersion >= 0) {
      size += UnsignedVarint.size(schemaVersion);
    }
    return size;
  }

  /**
   * Returns header and payload as one array.
   *
   * @param dictionaryId written only when the compression id is zstd-dict or zstd-dict-magicless
   * @param schemaVersion written, with its flag, when it is 0 or more; -1 for none
   */
  public static byte[] write(
      int codecId, int compressionId, long dictionaryId, int schemaVersion, byte[] payload) {
    int headerSize = headerSize(compressionId, dictionaryId, schemaVersion);
    byte[] value = new byte[headerSize + payload.length];
    writeHeader(value, codecId, compressionId, dictionaryId, schemaVersion);
    System.arraycopy(payload, 0, value, headerSize, payload.length);
    return value;
  }

  /**
   * Writes the header into the first {@link #headerSize} bytes of {@code value}, whose payload
   * follows it already.
   *
   * @param dictionaryId written only when the compression id is zstd-dict or zstd-dict-magicless
   * @param schemaVersion written, with its flag, when it is 0 or more; -1 for none
   */
  public static void writeHeader(
      byte[] value, int codecId, int compressionId, long dictionaryId, int schemaVersion) {
    if (codecId < 1 || codecId > 255) {
      throw new IllegalArgumentException("codec id must be 1 to 255, got " + codecId);
    }
    if (!CompressionIds.isKnown(compressionId)) {
      throw new IllegalArgumentException("unknown compression id " + compressionId);
    }
    value[0] = (byte) Envelope.MAGIC;
    int flags = schemaVersion >= 0 ? Envelope.FLAG_SCHEMA_VERSION : 0;
    value[1] = (byte) (Envelope.VERSION << 4 | flags);
    value[2] = (byte) codecId;
    value[3] = (byte) compressionId;
    int offset = Envelope.FIXED_HEADER_SIZE;
    if (CompressionIds.hasDictionary(compressionId)) {
      offset = UnsignedVarint.write(dictionaryId, value, offset);
    }
    if (schemaVersion >= 0) {
      UnsignedVarint.write(schemaVersion, value, offset);
    }
  }
}
