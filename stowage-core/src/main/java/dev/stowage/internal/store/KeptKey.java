package dev.stowage.internal.store;

import dev.stowage.CacheUnavailableException;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One key kept in Redis by {@link KeptKeys}, which saves it and confirms it. Its state is guarded
 * by itself, but for the volatile fields; {@link KeptKeys} changes it.
 */
public final class KeptKey {
  private final KeptKeys keys;
  final String what;
  final String meanwhile;
  final Supplier<? extends CompletableFuture<?>> save;

  /** The epoch in which Redis last confirmed the key; -1 before. */
  volatile long confirmedEpoch = -1;

  /** Why Redis refused the last save, if it did: a failure that waiting will not end. */
  volatile @Nullable String refusal;

  /** Why the last save failed, if it did. */
  volatile @Nullable String failure;

  int users;
  boolean inFlight;
  boolean again;
  @Nullable ScheduledFuture<?> retry;
  int failures;
  long attempts;

  /** What was logged about the failures since the last confirmation, null if nothing. */
  @Nullable String logged;

  KeptKey(
      KeptKeys keys, String what, String meanwhile, Supplier<? extends CompletableFuture<?>> save) {
    this.keys = keys;
    this.what = what;
    this.meanwhile = meanwhile;
    this.save = save;
  }

  /** What writes do while Redis refuses the key: those that wait for it go on without it. */
  String refusedMeanwhile() {
    return meanwhile.endsWith("wait for it")
        ? "values are written with it all the same (waiting would not help), and readers of another shape"
            + " cannot read them"
        : meanwhile;
  }

  /**
   * Whether Redis holds the key now, as far as this process knows: confirmed on this connection.
   */
  public boolean isConfirmed() {
    return confirmedEpoch == keys.epoch();
  }

  /** Why Redis refused to save the key (a failure that waiting will not end), or null. */
  public @Nullable String refusal() {
    return refusal;
  }

  /**
   * Waits at most {@code nanos} until the key is confirmed, returning early when Redis refused it
   * or the keys are closed.
   *
   * @return whether it is confirmed
   */
  public boolean awaitConfirmed(long nanos) {
    long deadline = System.nanoTime() + nanos;
    synchronized (this) {
      while (!isConfirmed() && refusal == null && !keys.isClosed() && users > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !waitNanos(left)) {
          break;
        }
      }
      return isConfirmed();
    }
  }

  /** Waits at most {@code nanos} until the key is confirmed or a first try to save it has ended. */
  void awaitSettled(long nanos) {
    long deadline = System.nanoTime() + nanos;
    synchronized (this) {
      while (!isConfirmed() && attempts == 0 && !keys.isClosed() && users > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0 || !waitNanos(left)) {
          return;
        }
      }
    }
  }

  /** Waits on this monitor; false if interrupted (the interrupt is kept). */
  private boolean waitNanos(long nanos) {
    try {
      TimeUnit.NANOSECONDS.timedWait(this, nanos);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Returns once a value that needs this key may be written: at once while it is confirmed, or when
   * Redis refused it (logged; waiting would not help). While the connection is down it throws at
   * once, as every command is rejected then. Otherwise it tries to save the key now, without the
   * retries' wait, and waits for that try, at most the command timeout: if Redis cannot take it
   * (still loading its data, say), it could not take the write either. Never waits on a Redis
   * client's thread, where the save's own reply would wait behind it.
   *
   * @throws CacheUnavailableException if the key is not confirmed in time, naming {@code owner}
   */
  public void awaitForWrite(String owner) {
    if (isConfirmed() || refusal != null) {
      return;
    }
    if (!keys.session().isConnectedNow() && !keys.isClosed()) {
      // Rejected here rather than by Lettuce, so that no reconnection can come between.
      throw new CacheUnavailableException(
          "Redis at "
              + keys.session().address()
              + " is unavailable ("
              + owner
              + "): not connected; "
              + what
              + " is saved again once it is");
    }
    // Netty's threads (Lettuce's event loops among them) are FastThreadLocalThreads.
    if (!(Thread.currentThread() instanceof FastThreadLocalThread)) {
      long next;
      synchronized (this) {
        // The try under way, or the one started here.
        next = attempts + 1;
      }
      keys.kick(this, false);
      long deadline = System.nanoTime() + keys.session().timeout().toNanos();
      synchronized (this) {
        while (!isConfirmed()
            && refusal == null
            && attempts < next
            && !keys.isClosed()
            && users > 0) {
          long left = deadline - System.nanoTime();
          if (left <= 0 || !waitNanos(left)) {
            break;
          }
        }
      }
      if (isConfirmed() || refusal != null) {
        return;
      }
    }
    if (keys.isClosed()) {
      throw new IllegalStateException("this Stowage is closed");
    }
    String reason = failure;
    throw new CacheUnavailableException(
        owner
            + ": "
            + what
            + " is not saved in Redis at "
            + keys.session().address()
            + " yet ("
            + (reason != null ? reason : "saving it again since the connection was lost")
            + "); the value"
            + " was not written, since readers of another shape could not read it");
  }

  @Override
  public String toString() {
    return what
        + (isConfirmed()
            ? ", confirmed"
            : refusal != null ? ", refused: " + refusal : ", not confirmed");
  }
}
