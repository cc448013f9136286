package dev.stowage.internal.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Sends the chunks of a bulk operation with at most {@value #IN_FLIGHT} chunks in flight: a chunk is
 * sent when an earlier one completes. Redis stays busy, since the next chunks are already on the
 * wire, yet no command waits behind more than a few chunks, so every command's timeout keeps its
 * meaning however many keys the operation has. The first failure fails the whole operation, and
 * no chunk is sent after it.
 */
final class ChunkWindow {
  /** Chunks in flight at once. */
  static final int IN_FLIGHT = 4;

  private final int chunks;
  private final IntFunction<CompletableFuture<?>> send;
  private final AtomicInteger next = new AtomicInteger();
  private final AtomicInteger finished = new AtomicInteger();
  private final CompletableFuture<Void> done = new CompletableFuture<>();

  private ChunkWindow(int chunks, IntFunction<CompletableFuture<?>> send) {
    this.chunks = chunks;
    this.send = send;
  }

  /**
   * Sends chunks {@code 0} to {@code chunks - 1} through {@code send}, which dispatches one chunk
   * and returns the future of its commands.
   */
  static CompletableFuture<Void> run(int chunks, IntFunction<CompletableFuture<?>> send) {
    ChunkWindow window = new ChunkWindow(chunks, send);
    if (chunks == 0) {
      window.done.complete(null);
    }
    for (int i = 0; i < Math.min(IN_FLIGHT, chunks); i++) {
      window.sendNext();
    }
    return window.done;
  }

  private void sendNext() {
    if (done.isDone()) {
      return;
    }
    int chunk = next.getAndIncrement();
    if (chunk >= chunks) {
      return;
    }
    CompletableFuture<?> sent;
    try {
      sent = send.apply(chunk);
    } catch (RuntimeException | Error e) {
      done.completeExceptionally(e);
      return;
    }
    sent.whenComplete((result, error) -> {
      if (error != null) {
        done.completeExceptionally(error);
      } else if (finished.incrementAndGet() == chunks) {
        done.complete(null);
      } else {
        sendNext();
      }
    });
  }
}
