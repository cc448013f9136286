package dev.stowage.bench.load;

import dev.stowage.bench.Figures;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.HdrHistogram.Histogram;

/**
 * What one run of the {@link LoadGenerator} measured. Latencies are of the requests that succeeded,
 * from issue to the last byte, in microseconds; failures are counted by cause.
 *
 * <p>Immutable: the histogram is a copy that this result never changes, and callers must not change
 * it either.
 *
 * @param label what was loaded, as printed in progress lines
 * @param usersStarted how many virtual users the ramp started
 * @param succeeded requests that succeeded
 * @param failures failed requests by cause, most frequent first
 * @param bytes bytes moved by successful requests
 * @param elapsed from the first user's start to the completion of the last request
 * @param latencyMicros latencies of the successful requests
 */
public record LoadResult(
    String label,
    int usersStarted,
    long succeeded,
    Map<String, Long> failures,
    long bytes,
    Duration elapsed,
    Histogram latencyMicros) {

  /** Copies the failures, keeping their order. */
  public LoadResult {
    Objects.requireNonNull(label, "label");
    Objects.requireNonNull(elapsed, "elapsed");
    Objects.requireNonNull(latencyMicros, "latencyMicros");
    failures =
        Collections.unmodifiableMap(
            new LinkedHashMap<>(Objects.requireNonNull(failures, "failures")));
  }

  /**
   * The slices of one load taken as a single run: requests, failures, bytes and elapsed times added
   * up, latencies merged, users the most any slice started. For loads run in rounds, interleaved
   * with others so that every configuration sees the same machine.
   *
   * @throws IllegalArgumentException if {@code slices} is empty
   */
  public static LoadResult combine(String label, List<LoadResult> slices) {
    Objects.requireNonNull(label, "label");
    if (slices.isEmpty()) {
      throw new IllegalArgumentException("no slices to combine for '" + label + "'");
    }
    Histogram latencies = slices.get(0).latencyMicros().copy();
    latencies.reset();
    Map<String, Long> failures = new LinkedHashMap<>();
    long succeeded = 0;
    long bytes = 0;
    Duration elapsed = Duration.ZERO;
    int users = 0;
    for (LoadResult slice : slices) {
      latencies.add(slice.latencyMicros());
      slice.failures().forEach((cause, count) -> failures.merge(cause, count, Long::sum));
      succeeded += slice.succeeded();
      bytes += slice.bytes();
      elapsed = elapsed.plus(slice.elapsed());
      users = Math.max(users, slice.usersStarted());
    }
    return new LoadResult(label, users, succeeded, failures, bytes, elapsed, latencies);
  }

  /** Failed requests, all causes together. */
  public long errors() {
    return failures.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Successful requests per second over {@link #elapsed}. */
  public double requestsPerSecond() {
    double seconds = elapsed.toNanos() / 1e9;
    return seconds > 0 ? succeeded / seconds : 0.0;
  }

  /** The latency at {@code percentile} (0–100) in milliseconds, or 0 when nothing succeeded. */
  public double latencyMillis(double percentile) {
    return latencyMicros.getTotalCount() == 0
        ? 0.0
        : latencyMicros.getValueAtPercentile(percentile) / 1000.0;
  }

  /** The mean latency in milliseconds, or 0 when nothing succeeded. */
  public double meanMillis() {
    return latencyMicros.getTotalCount() == 0 ? 0.0 : latencyMicros.getMean() / 1000.0;
  }

  /** The slowest successful request in milliseconds, or 0 when nothing succeeded. */
  public double maxMillis() {
    return latencyMicros.getTotalCount() == 0 ? 0.0 : latencyMicros.getMaxValue() / 1000.0;
  }

  /**
   * The figures as results metrics: {@code rps}, {@code requests}, {@code errors}, {@code users},
   * {@code mean_ms}, {@code p50_ms}, {@code p95_ms}, {@code p99_ms}, {@code max_ms}, {@code
   * bytes_per_request} and {@code seconds}.
   */
  public Map<String, Number> metrics() {
    Map<String, Number> metrics = new LinkedHashMap<>();
    metrics.put("rps", Figures.round(requestsPerSecond(), 1));
    metrics.put("requests", succeeded);
    metrics.put("errors", errors());
    metrics.put("users", usersStarted);
    metrics.put("mean_ms", Figures.round(meanMillis(), 2));
    metrics.put("p50_ms", Figures.round(latencyMillis(50), 2));
    metrics.put("p95_ms", Figures.round(latencyMillis(95), 2));
    metrics.put("p99_ms", Figures.round(latencyMillis(99), 2));
    metrics.put("max_ms", Figures.round(maxMillis(), 2));
    metrics.put("bytes_per_request", succeeded == 0 ? 0 : bytes / succeeded);
    metrics.put("seconds", Figures.round(elapsed.toNanos() / 1e9, 2));
    return metrics;
  }
}
