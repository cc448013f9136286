package dev.stowage.internal.format;

import static java.util.Objects.requireNonNull;

import dev.stowage.EnvelopeException;
import dev.stowage.internal.envelope.EnvelopeCodec;
import java.util.Arrays;

/**
 * The header that starts every value Stowage writes, version 1. It is specified byte by byte, with
 * test vectors, in {@code docs/ENVELOPE.md}:
 *
 * <pre>
 * byte 0   0xC1, the magic byte (never valid in UTF-8, never used by MessagePack)
 * byte 1   version (high 4 bits, 1) | flags (low 4 bits; bit 0: a schema version follows)
 * byte 2   codec id, see {@link CodecIds}
 * byte 3   compression id, see {@link CompressionIds}
 * varint   dictionary id, only when the compression id is {@link CompressionIds#ZSTD_DICT} or
 *          {@link CompressionIds#ZSTD_DICT_MAGICLESS}
 * varint   schema version, only when flag bit 0 is set
 * ...      payload
 * </pre>
 *
 * <p>The varints are unsigned LEB128 in their minimal form, at most five bytes. This class only
 * reads headers; {@link EnvelopeCodec} writes and decodes whole values. It is stateless and
 * thread-safe.
 */
public final class Envelope {
  /** The first byte of every envelope. */
  public static final int MAGIC = 0xC1;

  /** The envelope version this library writes and reads. */
  public static final int VERSION = 1;

  /** Flag bit 0: a varint schema version follows the compression id (and the dictionary id). */
  public static final int FLAG_SCHEMA_VERSION = 0x1;

  /** The fixed part of the header: magic, version and flags, codec id, compression id. */
  public static final int FIXED_HEADER_SIZE = 4;

  /** The largest dictionary id: ids are unsigned 32-bit numbers. */
  public static final long MAX_DICTIONARY_ID = 0xFFFF_FFFFL;

  /** The largest schema version. */
  public static final int MAX_SCHEMA_VERSION = Integer.MAX_VALUE;

  private static final byte[] ABSENT_MARKER = {(byte) MAGIC, (byte) (VERSION << 4), 0, 0};

  private Envelope() {}

  /**
   * The value a cache stores for a key its loader found no value for ({@code c1 10 00 00}: codec id
   * 0, which no codec has, and no payload), when it caches absent keys. A new array each call.
   */
  public static byte[] absentMarker() {
    return ABSENT_MARKER.clone();
  }

  /** Whether {@code value} is the {@linkplain #absentMarker() absent marker}. */
  public static boolean isAbsentMarker(byte[] value) {
    return value != null && Arrays.equals(value, ABSENT_MARKER);
  }

  /**
   * Whether {@code value} starts with the envelope's magic byte. Such a value is never valid JSON,
   * MessagePack or UTF-8 text; whether its header is well formed is for {@link #readHeader} to say.
   */
  public static boolean isEnvelope(byte[] value) {
    requireNonNull(value, "value");
    return value.length > 0 && (value[0] & 0xFF) == MAGIC;
  }

  /**
   * Reads the header of a value.
   *
   * @throws EnvelopeException if the value does not start with the magic byte, is too short for its
   *     header, has another version or an unknown flag, names codec id 0 or an unknown compression
   *     id, or carries a varint that is truncated, too long, not minimal or too large
   */
  public static Header readHeader(byte[] value) {
    requireNonNull(value, "value");
    if (!isEnvelope(value)) {
      throw new EnvelopeException("not a Stowage value: " + describeStart(value));
    }
    if (value.length < FIXED_HEADER_SIZE) {
      throw new EnvelopeException(
          "truncated envelope: "
              + value.length
              + " bytes, but the header needs at least "
              + FIXED_HEADER_SIZE);
    }
    int version = (value[1] & 0xFF) >>> 4;
    int flags = value[1] & 0x0F;
    if (version != VERSION) {
      throw new EnvelopeException(
          "unsupported envelope version " + version + "; this reader knows version " + VERSION);
    }
    if ((flags & ~FLAG_SCHEMA_VERSION) != 0) {
      throw new EnvelopeException(
          "unknown envelope flags 0x"
              + Integer.toHexString(flags)
              + "; version 1 defines only bit 0 (schema version)");
    }
    int codecId = value[2] & 0xFF;
    if (codecId == 0) {
      throw new EnvelopeException("codec id 0 is reserved and never written");
    }
    int compressionId = value[3] & 0xFF;
    if (!CompressionIds.isKnown(compressionId)) {
      throw new EnvelopeException(
          "unknown compression id "
              + compressionId
              + "; version 1 defines 0 (none), 1 (lz4), 2 (zstd), 3 (zstd-dict) and 4 (zstd-dict-magicless)");
    }
    int offset = FIXED_HEADER_SIZE;
    long dictionaryId = -1;
    if (CompressionIds.hasDictionary(compressionId)) {
      dictionaryId =
          UnsignedVarint.read(value, offset, value.length, MAX_DICTIONARY_ID, "dictionary id");
      offset += UnsignedVarint.size(dictionaryId);
    }
    int schemaVersion = -1;
    if ((flags & FLAG_SCHEMA_VERSION) != 0) {
      schemaVersion =
          (int)
              UnsignedVarint.read(
                  value, offset, value.length, MAX_SCHEMA_VERSION, "schema version");
      offset += UnsignedVarint.size(schemaVersion);
    }
    return new Header(version, flags, codecId, compressionId, dictionaryId, schemaVersion, offset);
  }

  public static String describeStart(byte[] value) {
    if (value.length == 0) {
      return "the value is empty";
    }
    StringBuilder hex = new StringBuilder("it starts with");
    for (int i = 0; i < Math.min(4, value.length); i++) {
      hex.append(String.format(" %02x", value[i] & 0xFF));
    }
    return hex.append(", not the magic byte c1").toString();
  }

  /**
   * A parsed envelope header.
   *
   * @param version the envelope version, 1
   * @param flags the flag bits, 0 or {@link #FLAG_SCHEMA_VERSION}
   * @param codecId the codec that wrote the payload, 1 to 255
   * @param compressionId the compression of the payload, one of {@link CompressionIds}
   * @param dictionaryId the zstd dictionary id, or -1 unless the compression is zstd-dict or
   *     zstd-dict-magicless
   * @param schemaVersion the schema version, or -1 when the flag is not set
   * @param payloadOffset the index of the payload's first byte in the value
   */
  public record Header(
      int version,
      int flags,
      int codecId,
      int compressionId,
      long dictionaryId,
      int schemaVersion,
      int payloadOffset) {

    /** Whether the value names a zstd dictionary. */
    public boolean hasDictionary() {
      return dictionaryId >= 0;
    }

    /** Whether the value carries a schema version. */
    public boolean hasSchemaVersion() {
      return (flags & FLAG_SCHEMA_VERSION) != 0;
    }

    /** The codec's name, such as {@code "json"}; see {@link CodecIds#name(int)}. */
    public String codecName() {
      return CodecIds.name(codecId);
    }

    /** The compression's name, such as {@code "zstd-dict"}. */
    public String compressionName() {
      return CompressionIds.name(compressionId);
    }

    /** A short description for logs, such as {@code "json+zstd-dict(3a5f09c1) schema 2"}. */
    public String describe() {
      StringBuilder text = new StringBuilder(codecName()).append('+').append(compressionName());
      if (hasDictionary()) {
        text.append('(').append(CompressionIds.dictionaryHex(dictionaryId)).append(')');
      }
      if (hasSchemaVersion()) {
        text.append(" schema ").append(schemaVersion);
      }
      return text.toString();
    }
  }
}
