package dev.stowage.cli.inspect;

import java.util.function.LongSupplier;

/**
 * How far a {@code SCAN} has got, and about how long it has left: an estimate, as keys come and go
 * while it runs.
 *
 * <p>The share of the keyspace walked is read from the cursor. Redis walks its hash table in
 * reverse-binary order, so the cursor with its bits reversed, as a fraction of 2<sup>64</sup>,
 * grows from 0 towards 1 whatever the table's size and whatever the pattern matches. Should the
 * cursor ever go back (a server that numbers its cursors otherwise), the estimate becomes the keys
 * seen over {@code DBSIZE} taken at the start, and stays so. With {@code --limit} the share is at
 * least the keys seen over the limit. The time left is the time so far times what is left over what
 * is done, shown once a second has passed and 1% is done.
 */
final class ScanProgress {
  private static final double TWO_TO_THE_64 = 0x1p64;
  private final long databaseKeys;
  private final Long limit;
  private final LongSupplier nanoTime;
  private final long start;
  private long keys;
  private double walked;
  private boolean cursorUsable = true;
  private boolean finished;

  /**
   * @param databaseKeys {@code DBSIZE} when the scan started, or -1 when it could not be had
   * @param limit {@code --limit}, or null
   * @param nanoTime the clock, {@code System::nanoTime} outside tests
   */
  ScanProgress(long databaseKeys, Long limit, LongSupplier nanoTime) {
    this.databaseKeys = databaseKeys;
    this.limit = limit;
    this.nanoTime = nanoTime;
    this.start = nanoTime.getAsLong();
  }

  /**
   * Records a page.
   *
   * @param keysSoFar the keys counted so far
   * @param cursor the cursor {@code SCAN} returned, in decimal; {@code "0"} when the walk is done
   */
  void update(long keysSoFar, String cursor) {
    keys = keysSoFar;
    if ("0".equals(cursor)) {
      finished = true;
      return;
    }
    double position = cursorPosition(cursor);
    if (position < walked || Double.isNaN(position)) {
      cursorUsable = false;
    }
    walked = Math.max(walked, position);
  }

  /** The share of the walk done, from 0 to 1; below 1 until the cursor comes back as 0. */
  double fraction() {
    if (finished) {
      return 1;
    }
    double done =
        cursorUsable
            ? walked
            : databaseKeys <= 0 ? 0 : Math.min(0.99, (double) keys / databaseKeys);
    if (limit != null) {
      done = Math.max(done, Math.min(0.99, (double) keys / limit));
    }
    return Math.min(done, 0.99);
  }

  /** Where a cursor stands in the walk: its bits reversed, over 2^64; NaN if it is not a number. */
  static double cursorPosition(String cursor) {
    long value;
    try {
      value = Long.parseUnsignedLong(cursor);
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
    long reversed = Long.reverse(value);
    double unsigned = reversed >= 0 ? reversed : (reversed >>> 1) * 2.0 + (reversed & 1);
    return unsigned / TWO_TO_THE_64;
  }

  /**
   * The line to show, such as {@code scanned 12,386 keys · 50% of 100,000 in the database · about
   * 12s left}.
   */
  String line() {
    double done = fraction();
    StringBuilder line =
        new StringBuilder(
            String.format("scanned %,d keys · %d%%", keys, (int) Math.floor(done * 100)));
    if (databaseKeys >= 0) {
      line.append(String.format(" of %,d in the database", databaseKeys));
    }
    long elapsed = nanoTime.getAsLong() - start;
    if (!finished && done >= 0.01 && elapsed >= 1_000_000_000L) {
      long left = Math.round(elapsed / 1e9 * (1 - done) / done);
      line.append(" · about ").append(duration(left)).append(" left");
    }
    return line.toString();
  }

  /** {@code 42s}, {@code 3m 05s} or {@code 2h 07m}. */
  static String duration(long seconds) {
    if (seconds < 60) {
      return seconds + "s";
    }
    if (seconds < 3600) {
      return String.format("%dm %02ds", seconds / 60, seconds % 60);
    }
    return String.format("%dh %02dm", seconds / 3600, seconds % 3600 / 60);
  }
}
