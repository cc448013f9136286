package dev.stowage.internal.store;

import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Ids that Redis did not hold a moment ago, remembered for a while, so that many values naming a
 * missing dictionary or schema cost one lookup, not one each. Thread-safe.
 *
 * @param <K> the type of the ids
 */
public final class RecentlyMissing<K> {
  private final long forNanos;
  private final ConcurrentMap<K, Long> until = new ConcurrentHashMap<>();

  /** Remembers each missing id for {@code period}. */
  public RecentlyMissing(Duration period) {
    this.forNanos = period.toNanos();
  }

  /** Whether {@code id} was found missing less than the period ago. */
  public boolean isMissing(K id) {
    Long deadline = until.get(id);
    if (deadline == null) {
      return false;
    }
    if (System.nanoTime() - deadline < 0) {
      return true;
    }
    until.remove(id, deadline);
    return false;
  }

  /** Redis did not hold {@code id} just now. */
  public void missing(K id) {
    until.put(id, System.nanoTime() + forNanos);
  }

  /** {@code id} exists now. */
  public void found(K id) {
    until.remove(id);
  }
}
