package dev.stowage.internal.format;

import dev.stowage.EnvelopeException;

/**
 * Unsigned LEB128 varints as the envelope writes them: seven bits per byte, least significant group
 * first, the high bit set on every byte but the last. Readers accept only the minimal encoding, at
 * most five bytes, so every value has exactly one encoding.
 */
public final class UnsignedVarint {
  /** The longest varint the envelope accepts: five bytes hold 35 bits. */
  public static final int MAX_BYTES = 5;

  private UnsignedVarint() {}

  /** The number of bytes {@code value} takes: 1 to 5. */
  public static int size(long value) {
    requireEncodable(value);
    int size = 1;
    while ((value >>>= 7) != 0) {
      size++;
    }
    return size;
  }

  /**
   * Writes {@code value} at {@code offset} and returns the offset after it.
   *
   * @throws IllegalArgumentException if the value is negative or above {@code 0xFFFFFFFF}
   */
  public static int write(long value, byte[] target, int offset) {
    requireEncodable(value);
    while ((value & ~0x7FL) != 0) {
      target[offset++] = (byte) ((value & 0x7F) | 0x80);
      value >>>= 7;
    }
    target[offset++] = (byte) value;
    return offset;
  }

  /**
   * Reads the varint at {@code offset}, which must end before {@code end}. The caller learns its
   * length from {@link #size(long)}, since the encoding is minimal.
   *
   * @param what names the field in error messages, such as {@code "dictionary id"}
   * @throws EnvelopeException if the varint is truncated, longer than five bytes, not minimally
   *     encoded or larger than {@code maxValue}
   */
  public static long read(byte[] source, int offset, int end, long maxValue, String what) {
    long value = 0;
    for (int i = 0; i < MAX_BYTES; i++) {
      int position = offset + i;
      if (position >= end) {
        throw new EnvelopeException(
            "truncated " + what + " varint: the value ends after " + i + " of its bytes");
      }
      int b = source[position] & 0xFF;
      value |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        if (b == 0 && i > 0) {
          throw new EnvelopeException(
              what + " varint is not minimally encoded (it ends in a zero byte)");
        }
        if (value > maxValue) {
          throw new EnvelopeException(
              what + " varint overflows: " + value + " is more than " + maxValue);
        }
        return value;
      }
    }
    throw new EnvelopeException(what + " varint is longer than " + MAX_BYTES + " bytes");
  }

  private static void requireEncodable(long value) {
    if (value < 0 || value > 0xFFFF_FFFFL) {
      throw new IllegalArgumentException(
          "a varint in the envelope holds 0 to 4294967295, got " + value);
    }
  }
}
