package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link BulkLoader}: chunks, the in-flight window, failures and progress, with writers the test
 * completes itself.
 */
class BulkLoaderUnitTests {

  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final PrintStream progress = new PrintStream(printed, true, StandardCharsets.UTF_8);

  @Test
  void everyItemIsWrittenOnceInChunksAndTheLastChunkIsShort() {
    List<long[]> chunks = new ArrayList<>();
    BulkLoader.Loaded loaded =
        new BulkLoader("keys", 1_000, 2, progress)
            .load(
                10_500,
                Duration.ofSeconds(5),
                (first, count) -> {
                  chunks.add(new long[] {first, count});
                  return CompletableFuture.completedFuture(null);
                });
    assertThat(loaded.items()).isEqualTo(10_500);
    assertThat(chunks).hasSize(11);
    long next = 0;
    for (long[] chunk : chunks) {
      assertThat(chunk[0]).isEqualTo(next);
      next += chunk[1];
    }
    assertThat(next).isEqualTo(10_500);
    assertThat(chunks.get(10)[1]).isEqualTo(500);
  }

  @Test
  void noMoreThanTheWindowIsInFlightAndTheLoadWaitsForTheLast() {
    Deque<CompletableFuture<Void>> pending = new ArrayDeque<>();
    AtomicLong most = new AtomicLong();
    Thread completer =
        new Thread(
            () -> {
              // Acknowledges chunks only once three are in flight, oldest first, as Redis answers
              // in order.
              long acknowledged = 0;
              while (acknowledged < 20) {
                CompletableFuture<Void> oldest;
                synchronized (pending) {
                  while (pending.size() < 3 && acknowledged + pending.size() < 20) {
                    try {
                      pending.wait();
                    } catch (InterruptedException e) {
                      return;
                    }
                  }
                  most.accumulateAndGet(pending.size(), Math::max);
                  oldest = pending.pollFirst();
                }
                if (oldest != null) {
                  oldest.complete(null);
                  acknowledged++;
                }
              }
            });
    completer.start();
    BulkLoader.Loaded loaded =
        new BulkLoader("keys", 10, 3, progress)
            .load(
                200,
                Duration.ofSeconds(10),
                (first, count) -> {
                  CompletableFuture<Void> stage = new CompletableFuture<>();
                  synchronized (pending) {
                    pending.addLast(stage);
                    pending.notifyAll();
                  }
                  return stage;
                });
    assertThat(loaded.items()).isEqualTo(200);
    assertThat(most.get()).isEqualTo(3);
    synchronized (pending) {
      assertThat(pending).as("load() returned only after every chunk was acknowledged").isEmpty();
    }
  }

  @Test
  void aRefusedChunkFailsTheLoadWithItsCause() {
    IllegalStateException refused =
        new IllegalStateException("OOM command not allowed when used memory > 'maxmemory'");
    assertThatThrownBy(
            () ->
                new BulkLoader("people", 100, 4, progress)
                    .load(
                        1_000,
                        Duration.ofSeconds(5),
                        (first, count) ->
                            first == 300
                                ? CompletableFuture.failedFuture(refused)
                                : CompletableFuture.completedFuture(null)))
        .isInstanceOf(BenchmarkRunException.class)
        .hasMessageContaining("loading people failed")
        .hasMessageContaining("maxmemory")
        .hasCause(refused);
  }

  @Test
  void aChunkNeverAcknowledgedFailsAfterTheTimeout() {
    assertThatThrownBy(
            () ->
                new BulkLoader("keys", 100, 1, progress)
                    .load(
                        1_000, Duration.ofMillis(200), (first, count) -> new CompletableFuture<>()))
        .isInstanceOf(BenchmarkRunException.class)
        .hasMessageContaining("did not acknowledge a chunk of 100 keys within PT0.2S");
  }

  @Test
  void progressSaysHowFarHowFastAndHowLongIsLeft() {
    AtomicLong clock = new AtomicLong();
    BulkLoader loader = new BulkLoader("people", 1_000, 1, progress, clock::get);
    loader.load(
        10_000,
        Duration.ofSeconds(5),
        (first, count) -> {
          clock.addAndGet(Duration.ofSeconds(2).toNanos());
          return CompletableFuture.completedFuture(null);
        });
    String lines = printed.toString(StandardCharsets.UTF_8);
    assertThat(lines.lines()).hasSizeGreaterThanOrEqualTo(3);
    assertThat(lines).contains("[load] 3,000/10,000 people  500/s");
    assertThat(loader.progressLine(2_500, 10_000, Duration.ofSeconds(10)))
        .isEqualTo(
            "[load] 2,500/10,000 people  250/s  "
                + ProgressReporter.format(Duration.ofSeconds(10))
                + " so far, "
                + ProgressReporter.format(Duration.ofSeconds(30))
                + " left");
  }
}
