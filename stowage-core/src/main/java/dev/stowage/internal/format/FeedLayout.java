package dev.stowage.internal.format;

import dev.stowage.Feed;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * How a {@link Feed} is stored in Redis, for tools that read feeds without the library's classes
 * (the inspector) or need their keys (ACL rules, Cluster hash tags). Part of the stored format:
 * none of it ever changes. The keys' names are defined, with every other key Stowage writes, in
 * {@link StowageKeys}.
 *
 * <p>A feed under key {@code K} is a sorted set {@code K} that indexes its buckets (member: the
 * bucket number in decimal; score: the same number) and, per bucket {@code n}, a list {@code
 * K:b:<n>} holding the entries with scores {@code n * 64} to {@code n * 64 + 63} in ascending
 * order. Each element of a list is a <em>member</em>: the entry's score as an unsigned LEB128
 * varint (seven bits per byte, low group first, the high bit set on all bytes but the last;
 * minimal, 1 to 8 bytes, at most 2<sup>53</sup>), followed at once by the value's envelope.
 *
 * <p><b>Sealed buckets.</b> Once a bucket holds all its scores (64, or 63 for bucket 0, as no entry
 * has score 0), a writer may <em>seal</em> it: its members are stored together in one envelope,
 * compressed as one frame, in the string {@code K:s:<n>} ({@link StowageKeys#feedSealedBucket}),
 * its list is deleted, and its index member becomes {@code <n>:<count>} (score still {@code n}), so
 * that a page can skip it without reading it. The envelope's payload ({@link #sealedPayload}) is,
 * for each member in ascending score order, the member's length as an unsigned LEB128 varint
 * followed by the member; each member's own envelope is usually uncompressed, since the frame
 * around them compresses better than each value alone. The outer envelope's codec and schema fields
 * are those of the writer and say nothing about the payload. A write into a sealed bucket opens it
 * again first: its members go back into the list, uncompressed, and the string and the {@code
 * :<count>} member go. A writer that finds bucket {@code n} sealed also sets {@code K:h:<n>}
 * ({@link StowageKeys#feedSealHold}), a string that expires a second later, while which no writer
 * seals that bucket; readers never read it. A sealed payload is at most 256 KiB, and readers refuse
 * a larger one without decompressing it.
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

  /**
   * The key of sealed bucket {@code bucket} of the feed under {@code feedKey}: {@code
   * feedKey:s:bucket}, as {@link StowageKeys#feedSealedBucket} names it.
   */
  public static String sealedKey(String feedKey, long bucket) {
    return StowageKeys.feedSealedBucket(feedKey, bucket);
  }

  /** The index member of a sealed bucket: {@code <bucket>:<count>}. */
  public static String sealedIndexMember(long bucket, int count) {
    return bucket + ":" + count;
  }

  /**
   * The number of entries an index member says a sealed bucket holds, or -1 when the member names
   * an open bucket (a plain bucket number) or is not a feed's index member.
   */
  public static int sealedCount(String indexMember) {
    int colon = indexMember.indexOf(':');
    if (colon <= 0 || colon == indexMember.length() - 1 || indexMember.length() - colon > 3) {
      return -1;
    }
    int count = 0;
    for (int i = colon + 1; i < indexMember.length(); i++) {
      char c = indexMember.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      count = count * 10 + (c - '0');
    }
    return count >= 1 && count <= BUCKET_SIZE ? count : -1;
  }

  /**
   * The payload of a sealed bucket's envelope: each member's length as an unsigned varint, then the
   * member, in the order given (ascending scores).
   */
  public static byte[] sealedPayload(List<byte[]> members) {
    int size = 0;
    for (byte[] member : members) {
      size += prefixSize(member.length) + member.length;
    }
    byte[] payload = new byte[size];
    int offset = 0;
    for (byte[] member : members) {
      long rest = member.length;
      while ((rest & ~0x7FL) != 0) {
        payload[offset++] = (byte) ((rest & 0x7F) | 0x80);
        rest >>>= 7;
      }
      payload[offset++] = (byte) rest;
      System.arraycopy(member, 0, payload, offset, member.length);
      offset += member.length;
    }
    return payload;
  }

  /**
   * The members of a sealed bucket's payload ({@link #sealedPayload}), in their order.
   *
   * @throws IllegalArgumentException if the payload is not a sequence of length-prefixed members (a
   *     truncated or overlong length, or more than {@link #BUCKET_SIZE} members)
   */
  public static List<byte[]> sealedMembers(byte[] payload) {
    List<byte[]> members = new ArrayList<>(BUCKET_SIZE);
    int offset = 0;
    while (offset < payload.length) {
      long length = 0;
      int shift = 0;
      while (true) {
        if (offset >= payload.length || shift > 28) {
          throw new IllegalArgumentException(
              "a sealed bucket's member length is truncated or too long at byte " + offset);
        }
        int b = payload[offset++] & 0xFF;
        length |= (long) (b & 0x7F) << shift;
        if ((b & 0x80) == 0) {
          break;
        }
        shift += 7;
      }
      if (length > payload.length - offset) {
        throw new IllegalArgumentException(
            "a sealed bucket's member of "
                + length
                + " bytes runs past the end, at byte "
                + offset);
      }
      if (members.size() == BUCKET_SIZE) {
        throw new IllegalArgumentException(
            "a sealed bucket holds more than " + BUCKET_SIZE + " members");
      }
      members.add(Arrays.copyOfRange(payload, offset, offset + (int) length));
      offset += (int) length;
    }
    return members;
  }

  /**
   * The bucket number {@code text} spells: a decimal integer without leading zeros, from 0 to
   * {@link #MAX_SCORE} / {@link #BUCKET_SIZE}; -1 for any other text.
   */
  public static long bucketNumber(String text) {
    int length = text.length();
    if (length == 0 || length > 15 || (text.charAt(0) == '0' && length > 1)) {
      return -1;
    }
    long value = 0;
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value <= MAX_SCORE / BUCKET_SIZE ? value : -1;
  }

  /** {@code text} as UTF-8 bytes, for keys. */
  static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
