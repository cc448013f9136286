package dev.stowage.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * How a blocking view waits for its asynchronous operation: the operation's own work (decoding,
 * encoding, a loader) runs in the calling thread while it waits ({@link CallerRuns}), so a blocking
 * call uses no other thread for it, and the wait is bounded or not as the caller says.
 */
public final class Waiting {
  /** The bound of a wait that has none: one that runs a loader. */
  public static final long NO_BOUND = -1;

  private Waiting() {}

  /**
   * Starts an operation with an executor that runs its tasks in this thread, and waits for it.
   *
   * @param start starts the operation, given the executor its work is to run on
   * @param fallback runs the work left once this thread stops waiting, so that an operation others
   *     share always finishes
   * @param boundNanos how long to wait at most, or {@link #NO_BOUND}
   * @return the operation, complete (normally or not)
   * @throws InterruptedException if this thread is interrupted while it waits
   * @throws TimeoutException if the operation has not completed within {@code boundNanos}
   */
  public static <T> CompletableFuture<T> inCallerThread(
      Function<Executor, CompletableFuture<T>> start, Executor fallback, long boundNanos)
      throws InterruptedException, TimeoutException {
    CallerRuns caller = new CallerRuns(fallback);
    CompletableFuture<T> running = start.apply(caller);
    if (!caller.runUntil(running, boundNanos)) {
      throw new TimeoutException("not completed within " + boundNanos + " ns");
    }
    return running;
  }
}
