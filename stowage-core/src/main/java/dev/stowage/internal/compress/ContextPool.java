package dev.stowage.internal.compress;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Keeps idle native contexts (zstd's are not thread-safe) for reuse, so that no context is shared
 * between threads and none is created per call in the steady state. Idle contexts sit in a fixed
 * array of slots taken and returned with one atomic swap each, so that taking and giving back a
 * context allocates nothing; a thread starts at a slot picked from its id, so that threads seldom
 * contend for one. A context given back when every slot is full is closed.
 *
 * <p>Not a {@link ThreadLocal}: a cache's compressor lives as long as its dictionary, and a context
 * held per thread would stay, with its native memory, in every thread that ever wrote, after the
 * compressor is gone. zstd-jni's contexts have no finalizer, so when a pool becomes unreachable its
 * idle contexts are closed by a {@link Cleaner}. Thread-safe.
 */
final class ContextPool<C> {
  private static final Cleaner CLEANER = Cleaner.create();

  /** Idle contexts kept: enough for every core to have one while others are in use. */
  static final int SLOTS = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());

  private final AtomicReferenceArray<@Nullable C> idle = new AtomicReferenceArray<>(SLOTS);
  private final Supplier<C> factory;
  private final Consumer<C> closer;

  ContextPool(Supplier<C> factory, Consumer<C> closer) {
    this.factory = factory;
    this.closer = closer;
    CLEANER.register(this, new IdleCloser<>(idle, closer));
  }

  /** An idle context, or a new one. */
  C take() {
    int start = home();
    for (int i = 0; i < SLOTS; i++) {
      int slot = (start + i) % SLOTS;
      if (idle.getPlain(slot) != null) {
        C context = idle.getAndSet(slot, null);
        if (context != null) {
          return context;
        }
      }
    }
    return factory.get();
  }

  /** Returns a context that finished its work normally. */
  void give(C context) {
    int start = home();
    for (int i = 0; i < SLOTS; i++) {
      int slot = (start + i) % SLOTS;
      if (idle.getPlain(slot) == null && idle.compareAndSet(slot, null, context)) {
        return;
      }
    }
    closer.accept(context);
  }

  /** Closes a context that failed, rather than reusing it. */
  void discard(C context) {
    closer.accept(context);
  }

  /** How many contexts are idle now; for tests. */
  int idleCount() {
    int count = 0;
    for (int slot = 0; slot < SLOTS; slot++) {
      if (idle.get(slot) != null) {
        count++;
      }
    }
    return count;
  }

  private static int home() {
    return (int) (Thread.currentThread().getId() % SLOTS);
  }

  /** Closes the idle contexts of a pool that is gone; it must not refer to the pool itself. */
  private record IdleCloser<C>(AtomicReferenceArray<@Nullable C> idle, Consumer<C> closer)
      implements Runnable {
    @Override
    public void run() {
      for (int slot = 0; slot < idle.length(); slot++) {
        C context = idle.getAndSet(slot, null);
        if (context != null) {
          closer.accept(context);
        }
      }
    }
  }
}
