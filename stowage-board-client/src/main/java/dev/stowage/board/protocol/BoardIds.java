package dev.stowage.board.protocol;

import java.util.regex.Pattern;

/**
 * Post ids: 24 lower-case hex digits like the seed's MongoDB ids, made of the creation second (8
 * digits) and the score (16 digits). The score is unique, so the id is too.
 */
public final class BoardIds {
  private static final Pattern FORMAT = Pattern.compile("[0-9a-f]{24}");

  private BoardIds() {}

  /** The id of the post created at {@code epochSecond} with {@code score}. */
  public static String of(long epochSecond, long score) {
    return String.format("%08x%016x", epochSecond & 0xffffffffL, score);
  }

  /** The score inside a well-formed id, or {@code -1} when {@code id} is not one. */
  public static long scoreOf(String id) {
    if (id == null || !FORMAT.matcher(id).matches()) {
      return -1;
    }
    return Long.parseUnsignedLong(id.substring(8), 16);
  }
}
