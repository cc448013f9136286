package dev.stowage.cli.inspect;

import dev.stowage.Envelope;
import dev.stowage.StowageException;
import io.lettuce.core.ScoredValue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * What the inspector needs to recognise a Stowage feed, on top of core's {@link
 * dev.stowage.FeedLayout}, which owns the layout: whether a sorted set looks like a feed's index,
 * and which list elements are feed entries.
 */
final class FeedLayout {
  private FeedLayout() {}

  /** The list of bucket {@code bucket} of the feed indexed by {@code key}. */
  static byte[] bucketKey(byte[] key, String bucket) {
    return dev.stowage.FeedLayout.bucketKey(new String(key, StandardCharsets.UTF_8), Long.parseLong(bucket))
        .getBytes(StandardCharsets.UTF_8);
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
  static @Nullable Long bucketNumber(byte[] member) {
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
    return value <= dev.stowage.FeedLayout.MAX_SCORE / dev.stowage.FeedLayout.BUCKET_SIZE ? value : null;
  }
}
