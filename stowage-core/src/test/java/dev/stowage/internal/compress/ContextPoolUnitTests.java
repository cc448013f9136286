package dev.stowage.internal.compress;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ContextPoolUnitTests {

  /**
   * A stand-in for a native context that notices being used by two threads at once or after
   * closing.
   */
  private static final class Context {
    final AtomicBoolean inUse = new AtomicBoolean();
    final AtomicBoolean closed = new AtomicBoolean();
  }

  private final AtomicInteger created = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private final ContextPool<Context> pool =
      new ContextPool<>(
          () -> {
            created.incrementAndGet();
            return new Context();
          },
          context -> {
            assertThat(context.closed.getAndSet(true)).as("closed twice").isFalse();
            closed.incrementAndGet();
          });

  @Test
  void oneThreadReusesOneContext() {
    Context first = pool.take();
    pool.give(first);
    for (int i = 0; i < 1000; i++) {
      Context context = pool.take();
      assertThat(context).isSameAs(first);
      pool.give(context);
    }
    assertThat(created).hasValue(1);
    assertThat(pool.idleCount()).isEqualTo(1);
  }

  @Test
  void contextsInUseAtOnceAreDistinctAndThoseBeyondTheSlotsAreClosed() {
    List<Context> taken = new ArrayList<>();
    for (int i = 0; i < ContextPool.SLOTS + 3; i++) {
      taken.add(pool.take());
    }
    assertThat(taken).doesNotHaveDuplicates();
    taken.forEach(pool::give);
    assertThat(pool.idleCount()).isEqualTo(ContextPool.SLOTS);
    assertThat(closed).hasValue(3);
    assertThat(taken.stream().filter(c -> c.closed.get())).hasSize(3);
  }

  @Test
  void aDiscardedContextIsClosedAndNotHandedOutAgain() {
    Context failed = pool.take();
    pool.discard(failed);
    assertThat(failed.closed).isTrue();
    assertThat(pool.take()).isNotSameAs(failed);
  }

  @Test
  void manyThreadsNeverShareAContext() throws Exception {
    int threads = 4 * ContextPool.SLOTS;
    ExecutorService executor = Executors.newFixedThreadPool(threads);
    CyclicBarrier start = new CyclicBarrier(threads);
    AtomicInteger shared = new AtomicInteger();
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(
            executor.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < 5_000; i++) {
                    Context context = pool.take();
                    if (!context.inUse.compareAndSet(false, true) || context.closed.get()) {
                      shared.incrementAndGet();
                    }
                    context.inUse.set(false);
                    pool.give(context);
                  }
                  return null;
                }));
      }
      for (Future<?> future : done) {
        future.get(60, TimeUnit.SECONDS);
      }
    } finally {
      executor.shutdownNow();
    }
    assertThat(shared).as("contexts used by two threads at once, or after closing").hasValue(0);
    assertThat(created.get()).isLessThanOrEqualTo(threads);
    assertThat(pool.idleCount()).isBetween(1, ContextPool.SLOTS);
    assertThat(created.get() - closed.get())
        .as("contexts neither idle nor closed")
        .isEqualTo(pool.idleCount());
  }
}
