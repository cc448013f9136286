package dev.stowage.board;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Whether one connection of the HTTP API or the TCP endpoint is idle (waiting for its next request,
 * nothing being read, answered or held unsent) and since when, so that a newcomer beyond the
 * maximum of connections can take the place of the longest idle one ({@link #chooseIdlest}). The
 * connection publishes its state from its event loop; newcomers read it from any thread.
 * Thread-safe.
 */
public final class Idleness {
  /** What {@link #since()} returns while the connection is busy or once it has been chosen. */
  public static final long BUSY = Long.MIN_VALUE;

  private final AtomicBoolean chosen = new AtomicBoolean();
  private volatile long since = BUSY;

  /** Busy: a request is being read or answered, or a response is unsent. */
  public void busy() {
    since = BUSY;
  }

  /** Idle from now on, waiting for the next request. */
  public void idle() {
    idleSince(System.nanoTime());
  }

  /** Idle since {@code nanoTime} (in {@link System#nanoTime()}). */
  public void idleSince(long nanoTime) {
    since = nanoTime;
  }

  /**
   * Since when (in {@link System#nanoTime()}) the connection has been idle, or {@link #BUSY}: also
   * once it has been chosen to make room, so that no second newcomer chooses it.
   */
  public long since() {
    return chosen.get() ? BUSY : since;
  }

  /**
   * How many of {@code kept} are idle now (neither busy nor chosen to make room).
   *
   * @param idleness each connection's idleness
   */
  public static <C> int countIdle(Iterable<C> kept, Function<C, Idleness> idleness) {
    int idle = 0;
    for (C connection : kept) {
      if (idleness.apply(connection).since() != BUSY) {
        idle++;
      }
    }
    return idle;
  }

  /**
   * The connection of {@code kept} idle the longest, now marked as chosen so that no other newcomer
   * takes its place too; null when every connection is busy (or chosen already).
   *
   * @param idleness each connection's idleness
   */
  public static <C> @Nullable C chooseIdlest(Iterable<C> kept, Function<C, Idleness> idleness) {
    while (true) {
      C idlest = null;
      long idlestSince = 0;
      for (C candidate : kept) {
        long candidateSince = idleness.apply(candidate).since();
        if (candidateSince != BUSY && (idlest == null || candidateSince - idlestSince < 0)) {
          idlest = candidate;
          idlestSince = candidateSince;
        }
      }
      if (idlest == null || idleness.apply(idlest).chosen.compareAndSet(false, true)) {
        return idlest;
      }
    }
  }
}
