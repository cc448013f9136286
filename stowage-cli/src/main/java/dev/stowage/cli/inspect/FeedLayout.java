package dev.stowage.cli.inspect;

import dev.stowage.Envelope;
import dev.stowage.StowageException;
import dev.stowage.StowageKeys;
import io.lettuce.core.ScoredValue;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the inspector needs to recognise a Stowage feed, on top of core's {@link
 * dev.stowage.FeedLayout}, which owns the layout: whether a sorted set looks like a feed's index,
 * which of its members name sealed buckets, which keys are sealed buckets, and which list elements
 * are feed entries.
 */
final class FeedLayout {
  private FeedLayout() {}

  /** The list of open bucket {@code bucket} of the feed indexed by {@code key}. */
  static byte[] bucketKey(byte[] key, long bucket) {
    return dev.stowage.FeedLayout.bucketKey(text(key), bucket).getBytes(StandardCharsets.UTF_8);
  }

  /** The string of sealed bucket {@code bucket} of the feed indexed by {@code key}. */
  static byte[] sealedKey(byte[] key, long bucket) {
    return dev.stowage.FeedLayout.sealedKey(text(key), bucket).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The key that holds the bucket an index member names: the string {@code key:s:<n>} for a sealed
   * bucket ({@code <n>:<count>}), the list {@code key:b:<n>} for an open one ({@code <n>}).
   *
   * @throws IllegalArgumentException if the member names no bucket ({@link #bucketNumber})
   */
  static byte[] keyOf(byte[] key, byte[] indexMember) {
    Long bucket = bucketNumber(indexMember);
    if (bucket == null) {
      throw new IllegalArgumentException("not a feed index member: '" + text(indexMember) + "'");
    }
    return sealedCount(indexMember) > 0 ? sealedKey(key, bucket) : bucketKey(key, bucket);
  }

  /**
   * The Redis type of the key {@link #keyOf} names: {@code string} for a sealed bucket, else {@code
   * list}.
   */
  static String typeOf(byte[] indexMember) {
    return sealedCount(indexMember) > 0 ? "string" : "list";
  }

  /** The score an element starts with, or -1: see {@link dev.stowage.FeedLayout#score}. */
  static long score(byte[] element) {
    return dev.stowage.FeedLayout.score(element);
  }

  /**
   * The envelope of an element that is a feed entry: a well-formed score, then a byte 0xC1 and an
   * envelope header that parses. Null for anything else, which is then read as a value of its own.
   */
  static byte @Nullable [] envelope(byte[] element) {
    byte[] envelope = dev.stowage.FeedLayout.envelope(element);
    if (envelope == null || (envelope[0] & 0xFF) != Envelope.MAGIC) {
      return null;
    }
    try {
      Envelope.readHeader(envelope);
      return envelope;
    } catch (StowageException e) {
      return null;
    }
  }

  /**
   * Whether the first members of a sorted set look like a feed's index: at least one, each naming a
   * bucket ({@link #bucketNumber}: an open bucket {@code <n>} or a sealed one {@code <n>:<count>})
   * whose score is the bucket's number. The caller still checks that the first bucket's key has the
   * type {@link #typeOf} says.
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

  /**
   * The bucket a member of an index names, or null when it is neither {@code <n>} (an open bucket)
   * nor {@code <n>:<count>} (a sealed one, {@link dev.stowage.FeedLayout#sealedCount}), {@code n} a
   * decimal integer from 0 to 2^53 / 64 without leading zeros.
   */
  static @Nullable Long bucketNumber(byte[] member) {
    int end = member.length;
    for (int i = 0; i < member.length; i++) {
      if (member[i] == ':') {
        if (sealedCount(member) < 0) {
          return null;
        }
        end = i;
        break;
      }
    }
    return decimal(member, 0, end);
  }

  /**
   * The number of entries an index member says its sealed bucket holds; -1 for an open bucket or
   * any other member.
   */
  static int sealedCount(byte[] member) {
    return member.length > 24
        ? -1
        : dev.stowage.FeedLayout.sealedCount(new String(member, StandardCharsets.ISO_8859_1));
  }

  /** A sealed bucket's key split into its feed's key and the bucket's number. */
  @SuppressWarnings("ArrayRecordComponent") // never compared: a parsed key name
  record SealedKey(byte[] feedKey, long bucket) {}

  /**
   * The feed and bucket a key names if it has the form of a sealed bucket's key, {@code
   * <feedKey>:s:<n>}; null otherwise. Only the feed's index says whether it is one.
   */
  static @Nullable SealedKey parseSealedKey(byte[] key) {
    byte[] infix = StowageKeys.FEED_SEALED_INFIX.getBytes(StandardCharsets.US_ASCII);
    int digits = key.length;
    while (digits > 0 && key[digits - 1] >= '0' && key[digits - 1] <= '9') {
      digits--;
    }
    int start = digits - infix.length;
    if (digits == key.length || start < 1) {
      return null;
    }
    for (int i = 0; i < infix.length; i++) {
      if (key[start + i] != infix[i]) {
        return null;
      }
    }
    Long bucket = decimal(key, digits, key.length);
    return bucket == null ? null : new SealedKey(Arrays.copyOf(key, start), bucket);
  }

  /**
   * Whether the members of an index at one bucket's score ({@code ZRANGEBYSCORE index n n}) say
   * that bucket {@code bucket} is sealed: one of them is {@code <n>:<count>}.
   */
  static boolean indexSaysSealed(@Nullable List<byte[]> membersAtScore, long bucket) {
    if (membersAtScore == null) {
      return false;
    }
    for (byte[] member : membersAtScore) {
      Long named = bucketNumber(member);
      if (named != null && named == bucket && sealedCount(member) > 0) {
        return true;
      }
    }
    return false;
  }

  /**
   * The decimal number of {@code bytes[from, to)}: no leading zeros, 0 to 2^53 / 64; null
   * otherwise.
   */
  private static @Nullable Long decimal(byte[] bytes, int from, int to) {
    int length = to - from;
    if (length <= 0 || length > 15 || (bytes[from] == '0' && length > 1)) {
      return null;
    }
    long value = 0;
    for (int i = from; i < to; i++) {
      byte b = bytes[i];
      if (b < '0' || b > '9') {
        return null;
      }
      value = value * 10 + (b - '0');
    }
    return value <= dev.stowage.FeedLayout.MAX_SCORE / dev.stowage.FeedLayout.BUCKET_SIZE
        ? value
        : null;
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
