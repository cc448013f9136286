package dev.stowage.internal.nearcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.NearCache;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * How long {@link NearStore} keeps a value (what is left of its key's TTL, within
 * expireAfterWrite), and how invalidations hide it.
 */
class NearStoreUnitTests {
  private static NearStore tracking(NearCache options) {
    NearStore store = new NearStore(options, "items:", false);
    store.tracking(true);
    return store;
  }

  @Test
  void aValueWithoutATtlStaysAndOneWithAnUnknownTtlIsNotKept() {
    NearStore store = tracking(NearCache.maximumSize(10));
    keepNow(store, "items:1", "one");
    store.keep(
        "items:2", store.stamp("items:2"), "two", 1, System.nanoTime(), NearStore.UNKNOWN_TTL);
    assertThat(store.get("items:1")).isEqualTo("one");
    assertThat(store.get("items:2")).isNull();
  }

  @Test
  void aValueGoesWhenItsTtlCountedFromBeforeTheReadWasSentHasPassed() {
    NearStore store = tracking(NearCache.maximumSize(10).expireAfterWrite(Duration.ofMinutes(5)));
    long sentAt = System.nanoTime();
    store.keep("items:1", store.stamp("items:1"), "one", 1, sentAt, 200);
    assertThat(store.get("items:1")).isEqualTo("one");
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> store.get("items:1") == null);
    assertThat(System.nanoTime() - sentAt)
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(200));
  }

  @Test
  void aValueWhoseTtlRanOutWhileItWasReadIsNotKept() {
    NearStore store = tracking(NearCache.maximumSize(10));
    long sentAt = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(50);
    store.keep("items:1", store.stamp("items:1"), "one", 1, sentAt, 50);
    assertThat(store.get("items:1")).isNull();
  }

  @Test
  void expireAfterWriteStillBoundsAValueWithALongerTtl() {
    NearStore store = tracking(NearCache.maximumSize(10).expireAfterWrite(Duration.ofMillis(100)));
    store.keep("items:1", store.stamp("items:1"), "one", 1, System.nanoTime(), 60_000);
    keepNow(store, "items:2", "two");
    assertThat(store.get("items:1")).isEqualTo("one");
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> store.get("items:1") == null && store.get("items:2") == null);
  }

  @Test
  void aReadThatWentOverAConnectionThatDoesNotTrackIsNotKept() {
    NearStore store = tracking(NearCache.maximumSize(10));
    keepNow(store, "items:1", "one");
    long stamp = store.stamp("items:1");
    store.untracked("items:1");
    keepReadAt(store, "items:1", stamp, "one again");
    assertThat(store.get("items:1"))
        .as("the copy kept before stays; the untracked read is not kept")
        .isEqualTo("one");
  }

  @Test
  void anInvalidationHidesTheValueAtOnceAndAReadAfterItIsKeptAgain() {
    NearStore store = tracking(NearCache.maximumSize(10));
    long before = store.stamp("items:1");
    keepReadAt(store, "items:1", before, "one");
    store.invalidate("items:1");
    assertThat(store.get("items:1")).isNull();
    keepReadAt(store, "items:1", before, "one, read before");
    assertThat(store.get("items:1")).as("a read sent before the invalidation").isNull();
    keepNow(store, "items:1", "two");
    assertThat(store.get("items:1")).isEqualTo("two");
    assertThat(store.hits()).isEqualTo(1);
  }

  @Test
  void anInvalidationOfAnotherKeyOfTheSameStripeLeavesAConfirmedValue() {
    NearStore store = tracking(NearCache.maximumSize(10_000));
    keepNow(store, "items:1", "one");
    // Some other key shares the stripe of items:1; its invalidations move the same counter.
    String neighbour = null;
    for (int i = 2; neighbour == null; i++) {
      String candidate = "items:" + i;
      if (store.stripeOf(candidate) == store.stripeOf("items:1")) {
        neighbour = candidate;
      }
    }
    store.invalidate(neighbour);
    assertThat(store.get("items:1")).isEqualTo("one");
  }

  /**
   * Readers that keep what they read race an invalidator: once an invalidation has returned, no
   * value read before it is seen. Each value is the stamp its read took.
   */
  @Test
  void noValueReadBeforeAnInvalidationIsSeenOnceItHasReturned() throws Exception {
    NearStore store = tracking(NearCache.maximumSize(100));
    String key = "items:raced";
    AtomicBoolean running = new AtomicBoolean(true);
    Thread[] keepers = new Thread[2];
    for (int t = 0; t < keepers.length; t++) {
      keepers[t] =
          new Thread(
              () -> {
                while (running.get()) {
                  long stamp = store.stamp(key);
                  Thread.onSpinWait();
                  store.keep(key, stamp, stamp, 1, System.nanoTime(), NearStore.NO_TTL);
                }
              });
      keepers[t].start();
    }
    try {
      for (int i = 0; i < 200_000; i++) {
        store.invalidate(key);
        long after = store.stamp(key);
        Object seen = store.get(key);
        if (seen != null) {
          assertThat((Long) seen)
              .as("a value read before invalidation %s", i)
              .isGreaterThanOrEqualTo(after);
        }
      }
    } finally {
      running.set(false);
      for (Thread keeper : keepers) {
        keeper.join();
      }
    }
  }

  /**
   * Invalidations run on a connection's event loop, where waiting for Caffeine's maintenance held
   * up every reply behind them (hundreds of milliseconds under callers that never wait): they must
   * not write to Caffeine at all, which this store's maintenance executor would see.
   */
  @Test
  void invalidationsLeaveCaffeinesMaintenanceAlone() {
    AtomicInteger maintenance = new AtomicInteger();
    NearStore store =
        new NearStore(
            NearCache.maximumSize(10_000),
            "items:",
            false,
            task -> {
              maintenance.incrementAndGet();
              task.run();
            });
    store.tracking(true);
    for (int i = 0; i < 1_000; i++) {
      String key = "items:" + i;
      store.keep(key, store.stamp(key), "value " + i, 1, System.nanoTime(), NearStore.NO_TTL);
    }
    await()
        .atMost(Duration.ofSeconds(5))
        .until(
            () -> {
              int before = maintenance.get();
              store.get("items:0");
              return maintenance.get() == before;
            });
    int before = maintenance.get();
    for (int i = 0; i < 1_000; i++) {
      store.invalidate("items:" + i);
    }
    assertThat(maintenance.get()).as("maintenance runs caused by invalidations").isEqualTo(before);
    for (int i = 0; i < 1_000; i++) {
      assertThat(store.get("items:" + i)).isNull();
    }
  }

  @Test
  void anExpireAfterWriteOfCenturiesIsNoLimitAndNoOverflow() {
    // A thousand years is more nanoseconds than a long holds.
    NearStore store =
        tracking(NearCache.maximumSize(10).expireAfterWrite(Duration.ofDays(365L * 1000)));
    store.keep("items:1", store.stamp("items:1"), "one", 1, System.nanoTime(), 60_000);
    keepNow(store, "items:2", "two");
    assertThat(store.get("items:1")).isEqualTo("one");
    assertThat(store.get("items:2")).isEqualTo("two");
  }

  @Test
  void aDropRemovesTheValueAndFailsAReadSentBeforeIt() {
    NearStore store = tracking(NearCache.maximumSize(10));
    keepNow(store, "items:1", "one");
    long before = store.stamp("items:1");
    store.drop("items:1");
    assertThat(store.get("items:1")).isNull();
    keepReadAt(store, "items:1", before, "one, read before");
    assertThat(store.get("items:1")).isNull();
  }

  /** Keeps {@code value} as a reply to a read sent now, without a TTL. */
  private static void keepNow(NearStore store, String key, Object value) {
    keepReadAt(store, key, store.stamp(key), value);
  }

  /** Keeps {@code value} as a reply to a read sent at {@code stamp}, without a TTL. */
  private static void keepReadAt(NearStore store, String key, long stamp, Object value) {
    store.keep(key, stamp, value, 1, System.nanoTime(), NearStore.NO_TTL);
  }
}
