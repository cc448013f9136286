package dev.stowage.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;

/**
 * Fills Redis with many items for the seeds' full-scale runs: the calling thread makes one chunk at
 * a time and hands it to a {@link ChunkWriter}, which sends it in one pipelined batch and returns
 * at once; up to {@code window} chunks are in flight while the next ones are made, so making the
 * values and Redis storing them overlap. A line of progress (items, rate, time left) is printed
 * every five seconds. Memory stays bounded by the window: nothing is kept after Redis acknowledged
 * it.
 */
public final class BulkLoader {

  /** How often progress is printed. */
  static final Duration PROGRESS_EVERY = Duration.ofSeconds(5);

  private final String what;
  private final int chunk;
  private final int window;
  private final PrintStream progressOut;
  private final LongSupplier nanoClock;

  /**
   * A loader.
   *
   * @param what what is loaded, for the progress lines ({@code "people"}, {@code "keys"})
   * @param chunk items per chunk (one batch sent to Redis)
   * @param window chunks in flight at most
   * @param progressOut where progress lines go
   */
  public BulkLoader(String what, int chunk, int window, PrintStream progressOut) {
    this(what, chunk, window, progressOut, System::nanoTime);
  }

  BulkLoader(String what, int chunk, int window, PrintStream progressOut, LongSupplier nanoClock) {
    if (chunk < 1 || window < 1) {
      throw new IllegalArgumentException(
          "need chunk >= 1 and window >= 1, not " + chunk + " and " + window);
    }
    this.what = what;
    this.chunk = chunk;
    this.window = window;
    this.progressOut = progressOut;
    this.nanoClock = nanoClock;
  }

  /** Writes one chunk of items. */
  @FunctionalInterface
  public interface ChunkWriter {
    /**
     * Sends the items {@code first} to {@code first + count - 1} to Redis.
     *
     * @return a stage that completes when Redis has acknowledged all of them, exceptionally if it
     *     refused any
     */
    CompletionStage<?> write(long first, int count);
  }

  /**
   * How a load went.
   *
   * @param items how many items were written
   * @param took how long it took, from the first chunk made to the last acknowledged
   */
  public record Loaded(long items, Duration took) {
    /** Items per second. */
    public double perSecond() {
      double seconds = took.toNanos() / 1e9;
      return seconds <= 0 ? 0 : items / seconds;
    }
  }

  /**
   * Writes {@code items} items, chunk by chunk.
   *
   * @throws BenchmarkRunException when a chunk fails (the first failure is its cause) or Redis does
   *     not acknowledge a chunk within {@code timeout}
   */
  public Loaded load(long items, Duration timeout, ChunkWriter writer) {
    if (items < 0) {
      throw new IllegalArgumentException("items must be >= 0, not " + items);
    }
    Semaphore inFlight = new Semaphore(window);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    long start = nanoClock.getAsLong();
    long lastPrint = start;
    for (long first = 0; first < items; first += chunk) {
      acquire(inFlight, 1, timeout);
      rethrow(failure);
      int count = (int) Math.min(chunk, items - first);
      CompletionStage<?> written;
      try {
        written = writer.write(first, count);
      } catch (RuntimeException e) {
        inFlight.release();
        throw new BenchmarkRunException(
            "loading " + what + " failed at item " + first + ": " + e.getMessage(), e);
      }
      written.whenComplete(
          (ignored, error) -> {
            if (error != null) {
              failure.compareAndSet(null, error);
            }
            inFlight.release();
          });
      long now = nanoClock.getAsLong();
      if (now - lastPrint >= PROGRESS_EVERY.toNanos()) {
        lastPrint = now;
        progressOut.println(progressLine(first + count, items, Duration.ofNanos(now - start)));
      }
    }
    acquire(inFlight, window, timeout);
    rethrow(failure);
    return new Loaded(items, Duration.ofNanos(nanoClock.getAsLong() - start));
  }

  /** {@code [load] 1,200,000/15,000,000 people 400,000/s 0:03 so far, 0:35 left}. */
  String progressLine(long done, long items, Duration elapsed) {
    double seconds = Math.max(elapsed.toNanos(), 1) / 1e9;
    Duration left =
        done == 0
            ? Duration.ZERO
            : Duration.ofNanos((long) (elapsed.toNanos() * ((items - done) / (double) done)));
    return String.format(
        Locale.ROOT,
        "[load] %,d/%,d %s  %,.0f/s  %s so far, %s left",
        done,
        items,
        what,
        done / seconds,
        ProgressReporter.format(elapsed),
        ProgressReporter.format(left));
  }

  private void acquire(Semaphore inFlight, int permits, Duration timeout) {
    try {
      if (!inFlight.tryAcquire(permits, timeout.toNanos(), TimeUnit.NANOSECONDS)) {
        throw new BenchmarkRunException(
            "Redis did not acknowledge a chunk of " + chunk + " " + what + " within " + timeout,
            null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkRunException("interrupted while loading " + what, e);
    }
  }

  private void rethrow(AtomicReference<Throwable> failure) {
    Throwable error = failure.get();
    if (error != null) {
      throw new BenchmarkRunException("loading " + what + " failed: " + error, error);
    }
  }
}
