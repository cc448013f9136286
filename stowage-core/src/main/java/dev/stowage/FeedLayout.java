package dev.stowage;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link Feed} is stored in Redis, for tools that read feeds without the library's classes
 * (the inspector) or need their keys (ACL rules, Cluster hash tags). Part of the stored format:
 * none of it ever changes. The keys' names are defined, with every other key Stowage writes, in
 * {@link StowageKeys}.
 *
 * <p>A feed under key {@code K} is a sorted set {@code K} that indexes its buckets (member: the
 * bucket number in decimal; score: the same number) and, per bucket {@code n}, a list
 * {@code K:b:<n>} holding the entries with scores {@code n * 64} to {@code n * 64 + 63} in
 * ascending order. Each element of a list is a <em>member</em>: the entry's score as an unsigned
 * LEB128 varint (seven bits per byte, low group first, the high bit set on all bytes but the last;
 * minimal, 1 to 8 bytes, at most 2<sup>53</sup>), followed at once by the value's envelope.
 */
public final class FeedLayout {
  /** Consecutive scores per bucket. */
  public static final int BUCKET_SIZE = 64;
  /** The largest score: Redis keeps scores as doubles, exact up to 2<sup>53</sup>. */
  public static final long MAX_SCORE = 1L << 53;
  private static final int MAX_PREFIX_BYTES = 8;

  private FeedLayout() {}

  /** The bucket that holds {@code score}. */
  public static long bucketOf(long score) {
    return score / BUCKET_SIZE;
  }

  /**
   * The key of bucket {@code bucket} of the feed under {@code feedKey}: {@code feedKey:b:bucket},
   * as {@link StowageKeys#feedBucket} names it.
   */
  public static String bucketKey(String feedKey, long bucket) {
    return StowageKeys.feedBucket(feedKey, bucket);
  }

  /** The number of bytes of the varint for {@code score}. */
  public static int prefixSize(long score) {
    int size = 1;
    for (long rest = score >>> 7; rest != 0; rest >>>= 7) {
      size++;
    }
    return size;
  }

  /**
   * A member: the score's varint, then the envelope.
   *
   * @throws IllegalArgumentException if the score is outside 0 to {@link #MAX_SCORE}
   */
  public static byte[] member(long score, byte[] envelope) {
    if (score < 0 || score > MAX_SCORE) {
      throw new IllegalArgumentException("a feed's scores are 0 to 2^53, got " + score);
    }
    byte[] member = new byte[prefixSize(score) + envelope.length];
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
   * The score a member starts with, or -1 when it does not start with a well-formed score: a
   * truncated, overlong or not minimal varint, a score above 2<sup>53</sup>, or nothing after it.
   */
  public static long score(byte[] member) {
    long value = 0;
    for (int i = 0; i < MAX_PREFIX_BYTES && i < member.length; i++) {
      int b = member[i] & 0xFF;
      value |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        boolean minimal = b != 0 || i == 0;
        return minimal && value <= MAX_SCORE && i + 1 < member.length ? value : -1;
      }
    }
    return -1;
  }

  /** What follows a member's score (its envelope), or null when the score is malformed. */
  public static byte @Nullable [] envelope(byte[] member) {
    long score = score(member);
    return score < 0 ? null : Arrays.copyOfRange(member, prefixSize(score), member.length);
  }

  /** {@code text} as UTF-8 bytes, for keys. */
  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
