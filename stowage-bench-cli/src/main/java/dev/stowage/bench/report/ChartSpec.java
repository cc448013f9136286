package dev.stowage.bench.report;

import java.util.Objects;

/**
 * One bar chart of a table: one bar per row, showing one metric.
 *
 * @param metric the key in each row's {@code metrics}, such as {@code "median_ms"}
 * @param title what the chart shows, such as {@code "median time"}
 * @param unit the unit printed after values, such as {@code "ms"}; may be empty
 * @param kind what the metric measures
 */
public record ChartSpec(String metric, String title, String unit, MetricKind kind) {

  /** Checks that no argument is {@code null}. */
  public ChartSpec {
    Objects.requireNonNull(metric, "metric");
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(kind, "kind");
  }
}
