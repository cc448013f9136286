package dev.stowage.cli.inspect;

import dev.stowage.Inspector;
import dev.stowage.StowageException;
import io.lettuce.core.ScoredValue;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the inspector needs to recognise a Stowage feed, on top of what {@link Inspector} reads of
 * the stored format: whether a sorted set looks like a feed's index, which of its members name
 * sealed buckets, which keys are sealed buckets, and which list elements are feed entries.
 */
final class FeedLayout {
  private static final byte[] SEALED_INFIX =
      Inspector.Keys.FEED_SEALED_INFIX.getBytes(StandardCharsets.US_ASCII);

  private FeedLayout() {}

  /**
   * The key that holds the bucket an index member names: the string {@code key:s:<n>} for a sealed
   * bucket ({@code <n>:<count>}), the list {@code key:b:<n>} for an open one ({@code <n>}).
   *
   * @throws IllegalArgumentException if the member names no bucket ({@link #bucketNumber})
   */
  static byte[] keyOf(byte[] key, byte[] indexMember) {
    Inspector.FeedBucket bucket =
        Inspector.feedBucket(indexMember)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "not a feed index member: '" + text(indexMember) + "'"));
    return bucket.key(text(key)).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The Redis type of the key {@link #keyOf} names: {@code string} for a sealed bucket, else {@code
   * list}.
   */
  static String typeOf(byte[] indexMember) {
    return sealedCount(indexMember) > 0 ? "string" : "list";
  }

  /** The score an element starts with, or -1: see {@link Inspector#feedEntryScore}. */
  static long score(byte[] element) {
    return Inspector.feedEntryScore(element).orElse(-1);
  }

  /**
   * The envelope of an element that is a feed entry: a well-formed score, then an envelope whose
   * header parses. Null for anything else, which is then read as a value of its own.
   */
  static byte @Nullable [] envelope(byte[] element) {
    byte[] envelope = Inspector.feedEntryValue(element).orElse(null);
    if (envelope == null) {
      return null;
    }
    try {
      return Inspector.header(envelope).isPresent() ? envelope : null;
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
   * nor {@code <n>:<count>} (a sealed one), as {@link Inspector#feedBucket} reads it.
   */
  static @Nullable Long bucketNumber(byte[] member) {
    return Inspector.feedBucket(member).map(Inspector.FeedBucket::bucket).orElse(null);
  }

  /**
   * The number of entries an index member says its sealed bucket holds; -1 for an open bucket or
   * any other member.
   */
  static int sealedCount(byte[] member) {
    return Inspector.feedBucket(member)
        .filter(Inspector.FeedBucket::sealed)
        .map(Inspector.FeedBucket::sealedCount)
        .orElse(-1);
  }

  /** A sealed bucket's key split into its feed's key and the bucket's number. */
  @SuppressWarnings("ArrayRecordComponent") // never compared: a parsed key name
  record SealedKey(byte[] feedKey, long bucket) {}

  /**
   * The feed and bucket a key names if it has the form of a sealed bucket's key, {@code
   * <feedKey>:s:<n>}; null otherwise. Only the feed's index says whether it is one.
   */
  static @Nullable SealedKey parseSealedKey(byte[] key) {
    int digits = key.length;
    while (digits > 0 && key[digits - 1] >= '0' && key[digits - 1] <= '9') {
      digits--;
    }
    int start = digits - SEALED_INFIX.length;
    if (digits == key.length || start < 1) {
      return null;
    }
    for (int i = 0; i < SEALED_INFIX.length; i++) {
      if (key[start + i] != SEALED_INFIX[i]) {
        return null;
      }
    }
    // The digits alone read as an open bucket's index member: the same number rules.
    Long bucket = bucketNumber(Arrays.copyOfRange(key, digits, key.length));
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

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
