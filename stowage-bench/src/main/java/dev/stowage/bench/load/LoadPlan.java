package dev.stowage.bench.load;

import java.time.Duration;
import java.util.Objects;

/**
 * How hard and how long to load: {@code users} virtual users started at {@code rampPerSecond} a
 * second, all stopping once {@code duration} has passed since the first one started (the ramp is
 * part of the duration, as in locust's {@code -u -r -t}). Progress is printed every {@code
 * progressInterval}.
 *
 * @param users virtual users, at least 1
 * @param rampPerSecond users started per second, more than 0
 * @param duration how long the run lasts, more than 0
 * @param progressInterval how often a progress line is printed, more than 0
 */
public record LoadPlan(
    int users, double rampPerSecond, Duration duration, Duration progressInterval) {

  /** How often progress is printed unless a plan says otherwise. */
  public static final Duration DEFAULT_PROGRESS_INTERVAL = Duration.ofSeconds(5);

  /**
   * Checks the values.
   *
   * @throws IllegalArgumentException naming the value that is out of range
   */
  public LoadPlan {
    Objects.requireNonNull(duration, "duration");
    Objects.requireNonNull(progressInterval, "progressInterval");
    if (users < 1) {
      throw new IllegalArgumentException("users must be at least 1, not " + users);
    }
    if (!(rampPerSecond > 0) || Double.isInfinite(rampPerSecond)) {
      throw new IllegalArgumentException(
          "ramp must be a positive number of users per second, not " + rampPerSecond);
    }
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException("duration must be positive, not " + duration);
    }
    if (progressInterval.isNegative() || progressInterval.isZero()) {
      throw new IllegalArgumentException(
          "progress interval must be positive, not " + progressInterval);
    }
  }

  /** A plan printing progress every {@link #DEFAULT_PROGRESS_INTERVAL}. */
  public LoadPlan(int users, double rampPerSecond, Duration duration) {
    this(users, rampPerSecond, duration, DEFAULT_PROGRESS_INTERVAL);
  }

  /** The time the ramp takes to start every user. */
  public Duration rampTime() {
    return Duration.ofNanos((long) (users / rampPerSecond * 1e9));
  }
}
