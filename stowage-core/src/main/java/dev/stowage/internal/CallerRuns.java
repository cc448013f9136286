package dev.stowage.internal;

import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;

/**
 * An executor whose tasks run in the thread that made it, while that thread waits for an operation:
 * how a blocking method runs its share of an asynchronous operation (decoding, encoding, a loader)
 * in the calling thread, as its contract says, while the operation itself stays the asynchronous
 * one.
 *
 * <p>Once the caller stops waiting (the operation done, or the wait given up), tasks still queued
 * or submitted later go to the fallback executor, so an operation that others share (a load other
 * callers wait for) always finishes.
 */
public final class CallerRuns implements Executor {
  private final Thread caller = Thread.currentThread();
  private final Queue<Runnable> tasks = new ConcurrentLinkedQueue<>();
  private final Executor fallback;
  private volatile boolean waiting = true;

  /** An executor for the current thread; {@code fallback} runs what it leaves. */
  public CallerRuns(Executor fallback) {
    this.fallback = fallback;
  }

  @Override
  public void execute(Runnable task) {
    if (!waiting) {
      fallback.execute(task);
      return;
    }
    tasks.add(task);
    if (waiting) {
      LockSupport.unpark(caller);
    } else {
      handOver();
    }
  }

  /**
   * Runs the tasks submitted here until {@code operation} completes, or for at most {@code
   * timeoutNanos} when that is not negative; then hands what is left to the fallback. Called once,
   * by the thread that made this executor.
   *
   * @return whether the operation completed
   * @throws InterruptedException if the thread is interrupted meanwhile
   */
  public boolean runUntil(CompletableFuture<?> operation, long timeoutNanos)
      throws InterruptedException {
    Futures.whenDone(operation, (result, failure) -> LockSupport.unpark(caller));
    long deadline = System.nanoTime() + timeoutNanos;
    try {
      while (true) {
        for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
          task.run();
        }
        if (operation.isDone()) {
          return true;
        }
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
        if (timeoutNanos < 0) {
          LockSupport.park(this);
        } else {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          LockSupport.parkNanos(this, left);
        }
      }
    } finally {
      waiting = false;
      handOver();
    }
  }

  private void handOver() {
    for (Runnable task = tasks.poll(); task != null; task = tasks.poll()) {
      fallback.execute(task);
    }
  }
}
