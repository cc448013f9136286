package dev.stowage.internal.cache;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/** A cache's loads, whatever its layout: how many ran, how many failed, and the time they took. */
final class LoadCounters {
  private final LongAdder loads = new LongAdder();
  private final LongAdder failures = new LongAdder();
  private final LongAdder nanos = new LongAdder();

  /** Runs a loader, counting the load or its failure and its time. */
  <T> T timed(Supplier<T> load) {
    long start = System.nanoTime();
    T value;
    try {
      value = load.get();
    } catch (RuntimeException | Error e) {
      failures.increment();
      throw e;
    } finally {
      nanos.add(System.nanoTime() - start);
    }
    loads.increment();
    return value;
  }

  /**
   * Starts an asynchronous loader on {@code executor} and counts the load, its failure and its time
   * once the stage it returns completes; a loader that returns null instead of a stage fails the
   * load with {@code whenNull}'s message.
   */
  <T> CompletableFuture<T> timedAsync(
      Supplier<? extends CompletionStage<? extends T>> loader,
      Executor executor,
      Supplier<String> whenNull) {
    long start = System.nanoTime();
    return CompletableFuture.supplyAsync(() -> requireNonNull(loader.get(), whenNull), executor)
        .thenCompose(stage -> stage.<T>thenApply(value -> value))
        .whenComplete(
            (value, failure) -> {
              nanos.add(System.nanoTime() - start);
              if (failure != null) {
                failures.increment();
              } else {
                loads.increment();
              }
            });
  }

  long loads() {
    return loads.sum();
  }

  long failures() {
    return failures.sum();
  }

  long nanos() {
    return nanos.sum();
  }
}
