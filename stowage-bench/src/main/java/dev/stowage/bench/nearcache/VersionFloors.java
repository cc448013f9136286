package dev.stowage.bench.nearcache;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per key, the oldest version that a read starting now may still return, and the count of reads
 * that returned an older one.
 *
 * <p>A key's floor is raised when a write of it has completed and the client under test has been
 * seen to return the new version ({@link #observed}); a read that took the floor before it was sent
 * ({@link #beforeRead}) and returned an older version is a <b>stale read</b>. When the client did
 * not return the new version within the bound, the floor is raised anyway, marked as timed out
 * ({@link #timedOut}), and an older version read after that is counted apart, as a stale read after
 * a timeout: the write was complete long before, but the client had never shown it.
 *
 * <p>A floor is one {@code long}: the version shifted left by one, and the low bit set when it was
 * raised by a timeout, so that a read takes it in one volatile load. Thread-safe.
 */
final class VersionFloors {

  private final AtomicLongArray words;
  private final LongAdder stale = new LongAdder();
  private final LongAdder staleAfterTimeout = new LongAdder();

  /**
   * Floors at {@code versions}: the versions Redis holds, which a client that has read nothing yet
   * must return.
   */
  VersionFloors(long[] versions) {
    words = new AtomicLongArray(versions.length);
    for (int i = 0; i < versions.length; i++) {
      words.set(i, versions[i] << 1);
    }
  }

  /** What a read of {@code index} takes before it is sent, to pass to {@link #afterRead}. */
  long beforeRead(int index) {
    return words.get(index);
  }

  /**
   * Counts the read if {@code version} is older than the floor {@code word} it started with;
   * returns whether it was.
   */
  boolean afterRead(long word, long version) {
    if (version >= (word >>> 1)) {
      return false;
    }
    if ((word & 1) == 0) {
      stale.increment();
    } else {
      staleAfterTimeout.increment();
    }
    return true;
  }

  /** The client returned {@code version} of {@code index} after its write completed. */
  void observed(int index, long version) {
    raise(index, version << 1);
  }

  /**
   * The client did not return {@code version} of {@code index} within the bound after its write
   * completed.
   */
  void timedOut(int index, long version) {
    raise(index, version << 1 | 1);
  }

  /** The version of {@code index}'s floor. */
  long floor(int index) {
    return words.get(index) >>> 1;
  }

  /** Stale reads counted since the last {@link #resetCounts}. */
  long staleReads() {
    return stale.sum();
  }

  /** Stale reads after a timeout counted since the last {@link #resetCounts}. */
  long staleReadsAfterTimeout() {
    return staleAfterTimeout.sum();
  }

  /** Starts counting again from 0; the floors stay. */
  void resetCounts() {
    stale.reset();
    staleAfterTimeout.reset();
  }

  private void raise(int index, long word) {
    words.accumulateAndGet(
        index, word, (old, raised) -> (raised >>> 1) > (old >>> 1) ? raised : old);
  }
}
