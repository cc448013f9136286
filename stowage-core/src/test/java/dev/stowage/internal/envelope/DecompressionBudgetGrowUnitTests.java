package dev.stowage.internal.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.EnvelopeException;
import java.time.Duration;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A decode that holds its payload's bytes and then needs more for the objects it builds: two such
 * decodes must never wait for each other while both hold bytes, or both fail although one at a time
 * fits.
 */
class DecompressionBudgetGrowUnitTests {
  @Test
  void twoReadsHoldingPayloadsThatEachNeedMoreTakeTurnsInsteadOfBothFailing() throws Exception {
    DecompressionBudget budget = DecompressionBudget.of(10, Duration.ofSeconds(5));
    CyclicBarrier bothHold = new CyclicBarrier(2);
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<?>[] reads = new Future<?>[2];
      for (int i = 0; i < 2; i++) {
        reads[i] =
            threads.submit(
                () -> {
                  budget.acquire(3); // the payload: 3 + 3 of 10
                  bothHold.await(5, TimeUnit.SECONDS);
                  budget.grow(3, 5); // its objects: 3 + 5 fits alone, 6 + 10 does not
                  Thread.sleep(50);
                  budget.release(8);
                  return null;
                });
      }
      long start = System.nanoTime();
      for (Future<?> read : reads) {
        read.get(10, TimeUnit.SECONDS);
      }
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(4));
    } finally {
      threads.shutdownNow();
    }
    assertThat(budget.inUse()).isZero();
  }

  @Test
  void aReadThatFindsNoRoomForItsObjectsStillHoldsItsPayloadForItsOwnerToGiveBack() {
    DecompressionBudget budget = DecompressionBudget.of(10, Duration.ofMillis(50));
    budget.acquire(4); // another read
    budget.acquire(3); // this read's payload
    assertThatThrownBy(() -> budget.grow(3, 7))
        .isInstanceOf(EnvelopeException.class)
        .hasMessage(
            "decoding the value would build about 7 bytes of objects and the decompression budget of 10 bytes"
                + " had 6 free for 50 ms: other reads were decoding");
    assertThat(budget.inUse()).isEqualTo(7);
    budget.release(3);
    budget.release(4);
    budget.grow(0, 64); // more than the whole budget goes alone
    assertThat(budget.inUse()).isEqualTo(64);
    budget.release(64);
  }
}
