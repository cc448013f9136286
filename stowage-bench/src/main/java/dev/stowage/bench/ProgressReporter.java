package dev.stowage.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Prints one line per finished configuration of a long run, with the time it took and an estimate
 * of the time left, for example {@code [ 12/100] kryo+zstd board 1.4s elapsed 17s ETA 2m05s}.
 *
 * <p>The estimate assumes the remaining configurations take as long on average as the finished ones
 * but the first, which also pays for the run's start-up (class loading, the JIT's first
 * compilations, servers starting) and can take many times as long as the next: the first line has
 * no estimate. Methods are synchronized, so a reporter may be shared between threads.
 */
public final class ProgressReporter {

  private final int total;
  private final PrintStream out;
  private final LongSupplier nanoClock;
  private final long startNanos;
  private long lastNanos;
  private long firstNanos;
  private int done;

  /**
   * A reporter for {@code total} configurations, printing to {@code out} and timing with {@link
   * System#nanoTime()}; the clock starts now.
   */
  public ProgressReporter(int total, PrintStream out) {
    this(total, out, System::nanoTime);
  }

  /**
   * A reporter with its own clock, for tests.
   *
   * @throws IllegalArgumentException if {@code total} is negative
   */
  public ProgressReporter(int total, PrintStream out, LongSupplier nanoClock) {
    if (total < 0) {
      throw new IllegalArgumentException("total must not be negative, not " + total);
    }
    this.total = total;
    this.out = Objects.requireNonNull(out, "out");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
    this.startNanos = nanoClock.getAsLong();
    this.lastNanos = startNanos;
  }

  /** Records that one more configuration finished and prints its line. */
  public synchronized void finished(String label) {
    Objects.requireNonNull(label, "label");
    long now = nanoClock.getAsLong();
    done++;
    Duration took = Duration.ofNanos(now - lastNanos);
    Duration elapsed = Duration.ofNanos(now - startNanos);
    lastNanos = now;
    if (done == 1) {
      firstNanos = took.toNanos();
    }
    int width = String.valueOf(total).length();
    StringBuilder line =
        new StringBuilder()
            .append('[')
            .append(String.format(Locale.ROOT, "%" + width + "d", done))
            .append('/')
            .append(total)
            .append("] ")
            .append(label)
            .append("  ")
            .append(format(took))
            .append("  elapsed ")
            .append(format(elapsed));
    int left = Math.max(0, total - done);
    if (left > 0 && done > 1) {
      Duration perConfiguration = elapsed.minusNanos(firstNanos).dividedBy(done - 1);
      line.append("  ETA ").append(format(perConfiguration.multipliedBy(left)));
    }
    out.println(line);
    out.flush();
  }

  /** How many configurations have finished. */
  public synchronized int done() {
    return done;
  }

  /** A short human duration: {@code 850ms}, {@code 1.4s}, {@code 2m05s}, {@code 1h03m}. */
  public static String format(Duration duration) {
    long millis = Math.max(0, duration.toMillis());
    if (millis < 1_000) {
      return millis + "ms";
    }
    if (millis < 10_000) {
      return String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
    }
    long seconds = Math.round(millis / 1000.0);
    if (seconds < 60) {
      return seconds + "s";
    }
    if (seconds < 3600) {
      return String.format(Locale.ROOT, "%dm%02ds", seconds / 60, seconds % 60);
    }
    long minutes = Math.round(seconds / 60.0);
    return String.format(Locale.ROOT, "%dh%02dm", minutes / 60, minutes % 60);
  }
}
