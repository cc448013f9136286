package dev.stowage.bench.http;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.load.Outcome;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fills a board service with {@code records} posts through {@code POST /boards/bulk}, in batches of
 * {@value #BATCH} with {@value #IN_FLIGHT} in flight, printing progress. The posts come from {@link
 * BoardPostMaker} with its default seed, so every service preloaded by one instance (or by any run)
 * gets the same posts; the batches are made once and kept. Not thread-safe.
 */
public final class BoardPreload {

  /** Posts per {@code POST /boards/bulk}. */
  public static final int BATCH = 1000;

  private static final int IN_FLIGHT = 2;
  private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(5);

  private final int records;
  private final PrintStream progress;
  private final List<byte[]> batches = new ArrayList<>();
  private final BoardPostMaker maker = new BoardPostMaker(BoardPostMaker.DEFAULT_SEED);

  /**
   * A preload of {@code records} posts.
   *
   * @throws IllegalArgumentException if {@code records} is below 1
   */
  public BoardPreload(int records, PrintStream progress) {
    if (records < 1) {
      throw new IllegalArgumentException("records must be at least 1, not " + records);
    }
    this.records = records;
    this.progress = Objects.requireNonNull(progress, "progress");
  }

  /** The number of posts each preload sends. */
  public int records() {
    return records;
  }

  /**
   * Sends every batch to {@code board} through {@code client}.
   *
   * @param label names the service in progress lines and errors
   * @throws BenchmarkRunException at the first batch that fails, with the last lines of the
   *     service's log
   */
  public void load(String label, HttpLoadClient client, BoardProcess board) {
    int count = (records + BATCH - 1) / BATCH;
    long start = System.nanoTime();
    long lastPrint = start;
    List<CompletableFuture<Outcome>> inFlight = new ArrayList<>();
    int sent = 0;
    for (int i = 0; i < count; i++) {
      inFlight.add(client.postJson("/boards/bulk", batch(i)).toCompletableFuture());
      if (inFlight.size() >= IN_FLIGHT) {
        sent += await(label, inFlight.remove(0), board);
      }
      long now = System.nanoTime();
      if (now - lastPrint >= PROGRESS_NANOS) {
        lastPrint = now;
        print(label, sent, start, now);
      }
    }
    while (!inFlight.isEmpty()) {
      sent += await(label, inFlight.remove(0), board);
    }
    print(label, records, start, System.nanoTime());
  }

  private int await(String label, CompletableFuture<Outcome> batch, BoardProcess board) {
    Outcome outcome = batch.join();
    if (!outcome.success()) {
      throw new BenchmarkRunException(
          "preloading the board service ("
              + label
              + ") failed: "
              + outcome.failure()
              + "; last lines of "
              + board.log()
              + ":\n"
              + board.lastLogLines(),
          null);
    }
    return BATCH;
  }

  private void print(String label, int done, long start, long now) {
    Duration elapsed = Duration.ofNanos(now - start);
    String eta =
        done > 0 && done < records
            ? "  ETA "
                + ProgressReporter.format(elapsed.multipliedBy(records - done).dividedBy(done))
            : "";
    progress.printf(
        "[preload %s] %,d/%,d posts  %s%s%n",
        label, Math.min(done, records), records, ProgressReporter.format(elapsed), eta);
  }

  /** Batch {@code index}, made on first use and kept for the next service. */
  private byte[] batch(int index) {
    while (batches.size() <= index) {
      int remaining = records - batches.size() * BATCH;
      batches.add(maker.posts(Math.min(BATCH, remaining)));
    }
    return batches.get(index);
  }
}
