package dev.stowage.nearcache;

import static org.awaitility.Awaitility.await;

import dev.stowage.RedisCache;
import java.time.Duration;

/** Waits for a near cache's tracking to be set up, by reading fresh keys until one is kept. */
final class TrackingProbe {
  private TrackingProbe() {}

  /**
   * Returns once a read of a fresh key is kept: put, read (a near miss, kept), read again (a near
   * hit). Each round takes a key never read before, so that no invalidation of an earlier read or
   * write of it can overtake the read after the put (on a busy machine one did, round after round).
   */
  static <V> void awaitTracking(RedisCache<String, V> cache, V value) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              String probe = "probe-" + System.nanoTime();
              long before = cache.stats().nearHits();
              cache.put(probe, value);
              cache.get(probe);
              cache.get(probe);
              boolean kept = cache.stats().nearHits() > before;
              cache.delete(probe);
              return kept;
            });
  }
}
