package dev.stowage.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class CallerRunsUnitTests {

  @Test
  void runsTheOperationsWorkInTheWaitingThread() throws Exception {
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      CallerRuns caller = new CallerRuns(Runnable::run);
      List<Thread> ranIn = new CopyOnWriteArrayList<>();
      // A reply completing on another thread, and work that follows it on the caller's executor.
      CompletableFuture<String> operation =
          CompletableFuture.supplyAsync(() -> "reply", other)
              .thenApplyAsync(
                  reply -> {
                    ranIn.add(Thread.currentThread());
                    return reply + " decoded";
                  },
                  caller);

      assertThat(caller.runUntil(operation, -1)).isTrue();
      assertThat(operation.join()).isEqualTo("reply decoded");
      assertThat(ranIn).containsExactly(Thread.currentThread());
    } finally {
      other.shutdownNow();
    }
  }

  @Test
  void workLeftWhenTheCallerStopsWaitingGoesToTheFallback() throws Exception {
    ExecutorService fallback = Executors.newSingleThreadExecutor();
    try {
      CallerRuns caller = new CallerRuns(fallback);
      CompletableFuture<String> reply = new CompletableFuture<>();
      List<Thread> ranIn = new CopyOnWriteArrayList<>();
      CompletableFuture<String> operation =
          reply.thenApplyAsync(
              value -> {
                ranIn.add(Thread.currentThread());
                return value;
              },
              caller);

      assertThat(caller.runUntil(operation, TimeUnit.MILLISECONDS.toNanos(20)))
          .as("gave up")
          .isFalse();
      reply.complete("late");

      assertThat(operation.get(5, TimeUnit.SECONDS)).isEqualTo("late");
      assertThat(ranIn).hasSize(1).doesNotContain(Thread.currentThread());
    } finally {
      fallback.shutdownNow();
    }
  }
}
