package dev.stowage.board.events;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * How far behind the relay is, as a health check reads it: the events pending in the outbox, the
 * age of the oldest, whether that is over the backlog limit, and the relay's last failure. The
 * pending count and age are at most about {@link BoardEvents#STATUS_REFRESH} old. Immutable.
 */
public final class EventStatus {
  private final long pending;
  private final Duration oldestPendingAge;
  private final long backlogLimit;
  private final long published;
  private final @Nullable String lastError;

  EventStatus(
      long pending,
      Duration oldestPendingAge,
      long backlogLimit,
      long published,
      @Nullable String lastError) {
    this.pending = pending;
    this.oldestPendingAge = oldestPendingAge;
    this.backlogLimit = backlogLimit;
    this.published = published;
    this.lastError = lastError;
  }

  /** Events written and not yet acknowledged by the broker. */
  public long pending() {
    return pending;
  }

  /** How long the oldest pending event has waited; zero when none is pending. */
  public Duration oldestPendingAge() {
    return oldestPendingAge;
  }

  /** The backlog limit the relay runs with. */
  public long backlogLimit() {
    return backlogLimit;
  }

  /** Whether the pending events reached the backlog limit (posts are still accepted). */
  public boolean overLimit() {
    return pending >= backlogLimit;
  }

  /** Events this process published and marked sent since it started. */
  public long published() {
    return published;
  }

  /**
   * The relay's last failure (the broker unreachable, the database failing), or null once an event
   * has been published after it.
   */
  public @Nullable String lastError() {
    return lastError;
  }

  @Override
  public String toString() {
    return "EventStatus[pending "
        + pending
        + ", oldest "
        + oldestPendingAge.toMillis()
        + " ms, limit "
        + backlogLimit
        + ", published "
        + published
        + (lastError != null ? ", last error: " + lastError : "")
        + "]";
  }
}
