package dev.stowage.board.events;

import java.util.TreeMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * Keeps events in score order although posts commit out of it. A writer reserves its scores and
 * then inserts; two writers may commit in the other order than their scores, so an outbox read at
 * the wrong moment would see score 11 committed and 10 not yet. This gate knows every write of this
 * process that has begun and not settled, and {@link #bound()} is a score that none of them can
 * take a score below: the relay publishes only pending events below it, which are all committed (or
 * never will be).
 *
 * <p>A write {@linkplain #writing enters} before it reserves scores, with the provisional bound
 * "above the highest score handed out so far" (a counter only goes up, so its scores will be
 * higher), {@linkplain Ticket#scored tells} its scores once it has them, and leaves when its insert
 * has committed or failed. <b>Warning:</b> this covers the writes of one process. Several processes
 * writing one database each order their own; events of two of them whose inserts overlap may arrive
 * out of score order (docs/ARCHITECTURE.md, "Events").
 *
 * <p>Thread-safe.
 */
public final class ScoreGate {
  /** Open writes: the lowest score each may still take, and how many writes share it. */
  private final TreeMap<Long, Integer> open = new TreeMap<>();

  private long highestScored;
  private volatile @Nullable Runnable onSettled;

  /**
   * Runs {@code write} as one write through the gate: entered on subscription, left when it
   * completes, fails or is cancelled. The write calls {@link Ticket#scored} once it has reserved
   * its scores (again, if it reserves new ones).
   */
  public <T> Mono<T> writing(Function<Ticket, Mono<T>> write) {
    return Mono.using(this::enter, write, Ticket::close);
  }

  /**
   * A score below every score an unsettled write may still commit; {@code Long.MAX_VALUE} when none
   * is open.
   */
  public synchronized long bound() {
    return open.isEmpty() ? Long.MAX_VALUE : open.firstKey();
  }

  /** Runs {@code listener} each time a write settles (on the writer's thread: keep it short). */
  void onSettled(@Nullable Runnable listener) {
    this.onSettled = listener;
  }

  private synchronized Ticket enter() {
    Ticket ticket = new Ticket(highestScored + 1);
    add(ticket.lowest);
    return ticket;
  }

  private void add(long lowest) {
    open.merge(lowest, 1, Integer::sum);
  }

  private void remove(long lowest) {
    open.computeIfPresent(lowest, (key, count) -> count == 1 ? null : count - 1);
  }

  /** One write in the gate. */
  public final class Ticket {
    private long lowest;
    private boolean closed;

    private Ticket(long lowest) {
      this.lowest = lowest;
    }

    /** The write has reserved the scores {@code first} to {@code last}. */
    public void scored(long first, long last) {
      synchronized (ScoreGate.this) {
        if (closed) {
          return;
        }
        remove(lowest);
        lowest = first;
        add(lowest);
        highestScored = Math.max(highestScored, last);
      }
    }

    private void close() {
      synchronized (ScoreGate.this) {
        if (closed) {
          return;
        }
        closed = true;
        remove(lowest);
      }
      Runnable listener = onSettled;
      if (listener != null) {
        listener.run();
      }
    }
  }
}
