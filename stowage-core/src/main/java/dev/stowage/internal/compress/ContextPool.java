package dev.stowage.internal.compress;

import java.lang.ref.Cleaner;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Keeps idle native contexts (zstd's are not thread-safe) for reuse, so that no context is shared
 * between threads and none is created per call in the steady state. zstd-jni's contexts hold
 * native memory and have no finalizer, so when a pool becomes unreachable its idle contexts are
 * closed by a {@link Cleaner}. Thread-safe.
 */
final class ContextPool<C> {
  private static final Cleaner CLEANER = Cleaner.create();
  private static final int MAX_IDLE = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());

  private final ConcurrentLinkedQueue<C> idle = new ConcurrentLinkedQueue<>();
  private final AtomicInteger idleCount = new AtomicInteger();
  private final Supplier<C> factory;
  private final Consumer<C> closer;

  ContextPool(Supplier<C> factory, Consumer<C> closer) {
    this.factory = factory;
    this.closer = closer;
    CLEANER.register(this, new IdleCloser<>(idle, closer));
  }

  /** An idle context, or a new one. */
  C take() {
    C context = idle.poll();
    if (context == null) {
      return factory.get();
    }
    idleCount.decrementAndGet();
    return context;
  }

  /** Returns a context that finished its work normally. */
  void give(C context) {
    if (idleCount.incrementAndGet() <= MAX_IDLE) {
      idle.offer(context);
    } else {
      idleCount.decrementAndGet();
      closer.accept(context);
    }
  }

  /** Closes a context that failed, rather than reusing it. */
  void discard(C context) {
    closer.accept(context);
  }

  /** Closes the idle contexts of a pool that is gone; it must not refer to the pool itself. */
  private record IdleCloser<C>(Queue<C> idle, Consumer<C> closer) implements Runnable {
    @Override
    public void run() {
      for (C context = idle.poll(); context != null; context = idle.poll()) {
        closer.accept(context);
      }
    }
  }
}
