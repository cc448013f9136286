package dev.stowage.internal.nearcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.NearCache;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * How long {@link NearStore} keeps a value: what is left of its key's TTL, within expireAfterWrite.
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
    store.keep("items:1", store.stamp("items:1"), "one", 1, System.nanoTime(), NearStore.NO_TTL);
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
    store.keep("items:2", store.stamp("items:2"), "two", 1, System.nanoTime(), NearStore.NO_TTL);
    assertThat(store.get("items:1")).isEqualTo("one");
    await()
        .atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> store.get("items:1") == null && store.get("items:2") == null);
  }

  @Test
  void aReadThatWentOverAConnectionThatDoesNotTrackIsNotKept() {
    NearStore store = tracking(NearCache.maximumSize(10));
    store.keep("items:1", store.stamp("items:1"), "one", 1, System.nanoTime(), NearStore.NO_TTL);
    long stamp = store.stamp("items:1");
    store.untracked("items:1");
    store.keep("items:1", stamp, "one again", 1, System.nanoTime(), NearStore.NO_TTL);
    assertThat(store.get("items:1"))
        .as("the copy kept before stays; the untracked read is not kept")
        .isEqualTo("one");
  }
}
