package dev.stowage.cli.inspect;

import dev.stowage.Envelope;
import dev.stowage.StowageException;
import io.lettuce.core.ScoredValue;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * How a Stowage feed is stored, as far as the inspector reads it. A feed under key {@code K} is a
 * sorted set {@code K} indexing its buckets (member: the bucket number in decimal; score: the same
 * number) and, per bucket {@code n}, a list {@code K:b:<n>} holding the entries with scores
 * {@code n * 64} to {@code n * 64 + 63} in ascending order. Each element of a list is the entry's
 * score as an unsigned LEB128 varint (seven bits per byte, low group first; minimal, 1 to 8 bytes,
 * at most 2<sup>53</sup>) followed at once by the value's envelope.
 */
final class FeedLayout {
  /** Scores per bucket. */
  static final int BUCKET = 64;
  /** The largest score a feed stores. */
  static final long MAX_SCORE = 1L << 53;
  private static final int MAX_PREFIX_BYTES = 8;

  private FeedLayout() {}

  /** The list of bucket {@code bucket} of the feed indexed by {@code key}. */
  static byte[] bucketKey(byte[] key, String bucket) {
    byte[] suffix = (":b:" + bucket).getBytes(StandardCharsets.UTF_8);
    byte[] bucketKey = Arrays.copyOf(key, key.length + suffix.length);
    System.arraycopy(suffix, 0, bucketKey, key.length, suffix.length);
    return bucketKey;
  }

  /**
   * The score an element starts with, or -1 when it does not start with a well-formed score: a
   * truncated, overlong or not minimal varint, a score above 2<sup>53</sup>, or nothing after it.
   */
  static long score(byte[] element) {
    long value = 0;
    for (int i = 0; i < MAX_PREFIX_BYTES && i < element.length; i++) {
      int b = element[i] & 0xFF;
      value |= (long) (b & 0x7F) << (7 * i);
      if ((b & 0x80) == 0) {
        boolean minimal = b != 0 || i == 0;
        return minimal && value <= MAX_SCORE && i + 1 < element.length ? value : -1;
      }
    }
    return -1;
  }

  /** The number of bytes of the varint for {@code score}. */
  static int prefixSize(long score) {
    int size = 1;
    for (long rest = score >>> 7; rest != 0; rest >>>= 7) {
      size++;
    }
    return size;
  }

  /**
   * The envelope of an element that is a feed entry: a well-formed score, then a byte 0xC1 and an
   * envelope header that parses. Null for anything else, which is then read as a value of its own.
   */
  static byte[] envelope(byte[] element) {
    long score = score(element);
    if (score < 0) {
      return null;
    }
    int offset = prefixSize(score);
    if ((element[offset] & 0xFF) != Envelope.MAGIC) {
      return null;
    }
    byte[] envelope = Arrays.copyOfRange(element, offset, element.length);
    try {
      Envelope.readHeader(envelope);
      return envelope;
    } catch (StowageException e) {
      return null;
    }
  }

  /**
   * Whether the first members of a sorted set look like a feed's index: at least one, each a
   * decimal integer from 0 up, written without leading zeros, whose score is the same number. The
   * caller still checks that the first bucket's key is a list.
   */
  static boolean looksLikeIndex(List<ScoredValue<byte[]>> firstMembers) {
    if (firstMembers.isEmpty()) {
      return false;
    }
    for (ScoredValue<byte[]> member : firstMembers) {
      Long bucket = bucketNumber(member.getValue());
      if (bucket == null || member.getScore() != (double) bucket) {
        return false;
      }
    }
    return true;
  }

  /** The bucket a member of an index names, or null when it is not a decimal integer from 0 to 2^53 / 64. */
  static Long bucketNumber(byte[] member) {
    if (member.length == 0 || member.length > 15 || (member[0] == '0' && member.length > 1)) {
      return null;
    }
    long value = 0;
    for (byte b : member) {
      if (b < '0' || b > '9') {
        return null;
      }
      value = value * 10 + (b - '0');
    }
    return value <= MAX_SCORE / BUCKET ? value : null;
  }
}
