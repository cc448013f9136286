package dev.stowage.internal.redis;

import java.util.concurrent.CompletableFuture;
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

  /** {@code load}, an asynchronous load begun at {@code startNanos}, counted once it completes. */
  <T> CompletableFuture<T> timedAsync(long startNanos, CompletableFuture<T> load) {
    return load.whenComplete((value, failure) -> {
      nanos.add(System.nanoTime() - startNanos);
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
