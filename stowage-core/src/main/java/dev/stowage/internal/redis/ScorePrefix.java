package dev.stowage.internal.redis;

/**
 * The score at the start of every feed member: an unsigned LEB128 varint (seven bits per byte,
 * low group first, the high bit set on all bytes but the last), minimal, 1 to 8 bytes for scores
 * up to 2<sup>53</sup>. It makes members with equal values distinct and lets a member be traced
 * to its score without the score itself.
 */
final class ScorePrefix {
  /** The largest score: Redis keeps scores as doubles, exact up to 2^53. */
  static final long MAX_SCORE = 1L << 53;
  private static final int MAX_BYTES = 8;

  private ScorePrefix() {}

  static int size(long score) {
    int size = 1;
    while ((score >>>= 7) != 0) {
      size++;
    }
    return size;
  }

  /** The member for {@code score} and {@code envelope}: the prefix, then the envelope. */
  static byte[] member(long score, byte[] envelope) {
    byte[] member = new byte[size(score) + envelope.length];
    int offset = 0;
    long rest = score;
    while ((rest & ~0x7FL) != 0) {
      member[offset++] = (byte) ((rest & 0x7F) | 0x80);
      rest >>>= 7;
    }
    member[offset++] = (byte) rest;
    System.arraycopy(envelope, 0, member, offset, envelope.length);
    return member;
  }

  /**
   * The score a member starts with, or -1 if the prefix is truncated, not minimal, too long or
   * followed by nothing.
   */
  static long read(byte[] member) {
    long value = 0;
    for (int i = 0; i < MAX_BYTES && i < member.length; i++) {
      int b = member[i] & 0xFF;
      value |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        if (b == 0 && i > 0 || value > MAX_SCORE || i + 1 >= member.length) {
          return -1;
        }
        return value;
      }
    }
    return -1;
  }
}
