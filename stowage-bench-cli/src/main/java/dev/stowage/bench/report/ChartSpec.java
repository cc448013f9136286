package dev.stowage.bench.report;

import java.util.Objects;

/**
 * One bar chart of a table: one bar per row, showing one metric.
 *
 * @param metric the key in each row's metrics map, such as {@code "median_ms"}
 * @param title what the chart shows, such as {@code "median time"}
 * @param unit the unit printed after values, such as {@code "ms"}; may be empty
 * @param kind what the metric measures
 * @param onlyWhenMeasured whether the chart is left out when no row has the metric (for figures
 *     only some runs take, such as the full-scale memory of {@code bench app --records})
 */
public record ChartSpec(
    String metric, String title, String unit, MetricKind kind, boolean onlyWhenMeasured) {

  /** A chart shown whenever its table is, with a dash for a row that lacks the metric. */
  public ChartSpec(String metric, String title, String unit, MetricKind kind) {
    this(metric, title, unit, kind, false);
  }

  /** A chart shown only when some row has its metric. */
  public static ChartSpec whenMeasured(String metric, String title, String unit, MetricKind kind) {
    return new ChartSpec(metric, title, unit, kind, true);
  }

  /** Checks that no argument is {@code null}. */
  public ChartSpec {
    Objects.requireNonNull(metric, "metric");
    Objects.requireNonNull(title, "title");
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(kind, "kind");
  }
}
