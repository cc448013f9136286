package dev.stowage.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Renders result rows as a plain-text table for the terminal, with ratio columns that compare each
 * row with a baseline row measured in the same run.
 *
 * <p>The baseline of a row is the row with the {@linkplain Builder#baseline baseline name} whose
 * parameters match the row's on the given keys; for the codec table that is Jackson JSON, bare, on
 * the same data. A ratio is {@code row / baseline}, so below 1 means smaller or faster. A cell
 * whose metric or baseline is missing shows {@code -}.
 *
 * <p>Instances are immutable and thread-safe.
 *
 * <pre>{@code
 * String text = ResultTable.builder()
 *     .text("codec", ResultRow::name)
 *     .metric("total ns", "total_ns", 0)
 *     .ratio("total/json", "total_ns")
 *     .baseline("json", "data")
 *     .groupBy("data")
 *     .build()
 *     .render(document.rows());
 * }</pre>
 */
public final class ResultTable {

  /** What is printed where the value is unknown. */
  public static final String MISSING = "-";

  private final List<Column> columns;
  private final @Nullable String baselineName;
  private final List<String> baselineKeys;
  private final @Nullable String groupKey;

  private ResultTable(Builder builder) {
    this.columns = List.copyOf(builder.columns);
    this.baselineName = builder.baselineName;
    this.baselineKeys = List.copyOf(builder.baselineKeys);
    this.groupKey = builder.groupKey;
  }

  /** A builder for a table with no columns. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * {@code row / baseline} for one metric, or empty when either lacks the metric or the baseline's
   * value is zero.
   */
  public static OptionalDouble ratio(ResultRow row, ResultRow baseline, String metric) {
    OptionalDouble value = row.metric(metric);
    OptionalDouble base = baseline.metric(metric);
    if (value.isEmpty() || base.isEmpty() || base.getAsDouble() == 0.0) {
      return OptionalDouble.empty();
    }
    return OptionalDouble.of(value.getAsDouble() / base.getAsDouble());
  }

  /**
   * The baseline of {@code row} among {@code rows}: the row with the baseline name whose params
   * equal {@code row}'s on every baseline key; empty if there is none or no baseline was set.
   */
  public Optional<ResultRow> baselineOf(ResultRow row, List<ResultRow> rows) {
    if (baselineName == null) {
      return Optional.empty();
    }
    return rows.stream()
        .filter(candidate -> candidate.name().equals(baselineName))
        .filter(
            candidate ->
                baselineKeys.stream()
                    .allMatch(key -> Objects.equals(candidate.param(key), row.param(key))))
        .findFirst();
  }

  /** The table as text, one line per row, ending with a line separator. */
  public String render(List<ResultRow> rows) {
    Objects.requireNonNull(rows, "rows");
    Map<String, List<Integer>> groups = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      String group =
          groupKey == null ? "" : Objects.requireNonNullElse(rows.get(i).param(groupKey), MISSING);
      groups.computeIfAbsent(group, k -> new ArrayList<>()).add(i);
    }
    List<String[]> cells = new ArrayList<>();
    for (ResultRow row : rows) {
      Optional<ResultRow> baseline = baselineOf(row, rows);
      String[] line = new String[columns.size()];
      for (int i = 0; i < columns.size(); i++) {
        line[i] = columns.get(i).cell(row, baseline.orElse(null));
      }
      cells.add(line);
    }
    int[] widths = new int[columns.size()];
    for (int i = 0; i < columns.size(); i++) {
      widths[i] = columns.get(i).header.length();
      for (String[] line : cells) {
        widths[i] = Math.max(widths[i], line[i].length());
      }
    }
    String nl = System.lineSeparator();
    StringBuilder out = new StringBuilder();
    String header = formatLine(columns.stream().map(c -> c.header).toArray(String[]::new), widths);
    boolean first = true;
    for (Map.Entry<String, List<Integer>> group : groups.entrySet()) {
      if (!first) {
        out.append(nl);
      }
      first = false;
      if (groupKey != null) {
        out.append(groupKey).append(": ").append(group.getKey()).append(nl);
      }
      out.append(header).append(nl);
      out.append("-".repeat(header.length())).append(nl);
      for (int index : group.getValue()) {
        out.append(formatLine(cells.get(index), widths)).append(nl);
      }
    }
    return out.toString();
  }

  private String formatLine(String[] line, int[] widths) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < line.length; i++) {
      if (i > 0) {
        out.append("  ");
      }
      String cell = line[i];
      String pad = " ".repeat(widths[i] - cell.length());
      out.append(columns.get(i).alignRight ? pad + cell : cell + pad);
    }
    return out.toString().stripTrailing();
  }

  private static String formatNumber(double value, int decimals) {
    return String.format(Locale.ROOT, "%." + decimals + "f", value);
  }

  private record Column(String header, boolean alignRight, CellRenderer renderer) {
    String cell(ResultRow row, @Nullable ResultRow baseline) {
      return renderer.render(row, baseline);
    }
  }

  @FunctionalInterface
  private interface CellRenderer {
    String render(ResultRow row, @Nullable ResultRow baselineOrNull);
  }

  /** Builds a {@link ResultTable}; columns appear in the order they are added. Not thread-safe. */
  public static final class Builder {
    private final List<Column> columns = new ArrayList<>();
    private @Nullable String baselineName;
    private List<String> baselineKeys = List.of();
    private @Nullable String groupKey;

    private Builder() {}

    /** A left-aligned text column. */
    public Builder text(String header, Function<ResultRow, String> cell) {
      Objects.requireNonNull(cell, "cell");
      columns.add(
          new Column(
              header(header),
              false,
              (row, base) -> Objects.requireNonNullElse(cell.apply(row), MISSING)));
      return this;
    }

    /** A left-aligned column showing one parameter. */
    public Builder param(String header, String key) {
      Objects.requireNonNull(key, "key");
      return text(header, row -> row.param(key));
    }

    /** A right-aligned column showing one metric with a fixed number of decimals. */
    public Builder metric(String header, String key, int decimals) {
      Objects.requireNonNull(key, "key");
      requireDecimals(decimals);
      columns.add(
          new Column(
              header(header),
              true,
              (row, base) -> {
                OptionalDouble value = row.metric(key);
                return value.isPresent() ? formatNumber(value.getAsDouble(), decimals) : MISSING;
              }));
      return this;
    }

    /** A right-aligned column with {@code row / baseline} of one metric, to two decimals. */
    public Builder ratio(String header, String key) {
      Objects.requireNonNull(key, "key");
      columns.add(
          new Column(
              header(header),
              true,
              (row, base) -> {
                if (base == null) {
                  return MISSING;
                }
                OptionalDouble ratio = ResultTable.ratio(row, base, key);
                return ratio.isPresent() ? formatNumber(ratio.getAsDouble(), 2) : MISSING;
              }));
      return this;
    }

    /**
     * Names the baseline row of each ratio: the row called {@code rowName} whose params equal the
     * compared row's on each of {@code matchingParams}.
     */
    public Builder baseline(String rowName, String... matchingParams) {
      this.baselineName = Objects.requireNonNull(rowName, "rowName");
      this.baselineKeys = List.of(matchingParams);
      return this;
    }

    /** Prints the rows in sections, one per value of this parameter, in order of appearance. */
    public Builder groupBy(String paramKey) {
      this.groupKey = Objects.requireNonNull(paramKey, "paramKey");
      return this;
    }

    /**
     * The table.
     *
     * @throws IllegalStateException if no column was added
     */
    public ResultTable build() {
      if (columns.isEmpty()) {
        throw new IllegalStateException("a table needs at least one column");
      }
      return new ResultTable(this);
    }

    private static String header(String header) {
      return Objects.requireNonNull(header, "header");
    }

    private static void requireDecimals(int decimals) {
      if (decimals < 0 || decimals > 6) {
        throw new IllegalArgumentException("decimals must be between 0 and 6, not " + decimals);
      }
    }
  }
}
