package dev.stowage.cli.json;

import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Passes bytes through while remembering the last {@value #WINDOW} of them, so that an error can be
 * shown with the line it is on without keeping the input in memory.
 */
final class RecentBytesInputStream extends FilterInputStream {
  static final int WINDOW = 1 << 16;
  private static final int MASK = WINDOW - 1;
  private final byte[] ring = new byte[WINDOW];
  private long total;

  RecentBytesInputStream(InputStream in) {
    super(in);
  }

  @Override
  public int read() throws IOException {
    int b = in.read();
    if (b >= 0) {
      ring[(int) (total++ & MASK)] = (byte) b;
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int n = in.read(buffer, offset, length);
    for (int i = 0; i < n; i++) {
      ring[(int) ((total + i) & MASK)] = buffer[offset + i];
    }
    if (n > 0) {
      total += n;
    }
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = 0;
    byte[] scratch = new byte[8192];
    while (skipped < n) {
      int r = read(scratch, 0, (int) Math.min(scratch.length, n - skipped));
      if (r < 0) {
        break;
      }
      skipped += r;
    }
    return skipped;
  }

  /** The byte at {@code position}, or -1 when it is no longer (or not yet) remembered. */
  int byteAt(long position) {
    return remembered(position) ? ring[(int) (position & MASK)] & 0xFF : -1;
  }

  /** The number of bytes read so far. */
  long total() {
    return total;
  }

  private boolean remembered(long position) {
    return position >= 0 && position < total && total - position <= WINDOW;
  }

  /**
   * The bytes of the line holding {@code position}: as much of it as is still remembered before the
   * position, and up to {@code after} bytes after it (reading further input if needed).
   *
   * @return the line's bytes, and the index of {@code position} in them; {@code truncatedStart}
   *     says whether the line began before what is remembered
   */
  Line lineAround(long position, int after) {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    long start = position;
    while (start > 0
        && remembered(start - 1)
        && ring[(int) ((start - 1) & MASK)] != '\n'
        && position - start < WINDOW / 2) {
      start--;
    }
    boolean truncatedStart =
        start > 0 && (!remembered(start - 1) || ring[(int) ((start - 1) & MASK)] != '\n');
    for (long p = start; p < total && p < position + after; p++) {
      if (!remembered(p)) {
        break;
      }
      byte b = ring[(int) (p & MASK)];
      if (b == '\n' || (b == '\r' && p >= position)) {
        return new Line(line.toByteArray(), (int) (position - start), truncatedStart);
      }
      line.write(b);
    }
    try {
      while (line.size() < position - start + after) {
        int b = in.read();
        if (b < 0 || b == '\n' || b == '\r') {
          break;
        }
        line.write(b);
      }
    } catch (IOException e) {
      // show what there is
    }
    return new Line(line.toByteArray(), (int) Math.max(0, position - start), truncatedStart);
  }

  /** Part of a line of input. */
  @SuppressWarnings("ArrayRecordComponent") // never compared: a line as read
  record Line(byte[] bytes, int index, boolean truncatedStart) {}
}
