package dev.stowage.bench.report;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import dev.stowage.bench.AtomicFiles;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Builds the report page from a directory of results files ({@code <bench>.json}, as {@link
 * ResultsDocument#writeTo} writes them).
 *
 * <p>Tables that ran come first, then those whose file could not be read, then those not run. The
 * page starts with the headline: for each table, the row of Stowage's default configuration against
 * the seed's configuration on the table's first charted metric, with Stowage's best row as a second
 * figure when it is another ({@link TableSpec#defaultRows}). Then comes one section per table: the
 * seed's published figures, the seed's configuration as reproduced, one inline SVG bar chart per
 * charted metric with one bar per row (each labelled with its value and its ratio to its baseline
 * row), the rows as a compact table, where the bench ran, and the command that reproduces it.
 *
 * <p>A table without a results file says {@code not run: ./stowage bench <name>}; a file that
 * cannot be read says so, naming the file and the problem, and the other tables are still built. A
 * row that failed carries its message in {@code params.error} (results rows hold numbers only in
 * {@code metrics}); its bars have no length and say {@code error}. Rows with a positive {@code
 * metrics.errors} count are flagged.
 *
 * <p>The page has no script and refers to nothing outside itself, so it opens from disk with no
 * network. All text from the results is escaped.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class ReportBuilder {

  /** The report's file name, next to the results. */
  public static final String FILE_NAME = "report.html";

  /** The param in which a failed row carries its error message. */
  public static final String ERROR_PARAM = "error";

  /** The metric with a count of failed requests or operations. */
  public static final String ERRORS_METRIC = "errors";

  private static final int LABEL_WIDTH = 200;
  private static final int BAR_WIDTH = 250;
  private static final int VALUE_WIDTH = 170;
  private static final int ROW_HEIGHT = 18;
  private static final int GROUP_HEIGHT = 20;
  private static final int BAR_HEIGHT = 13;
  private static final int LABEL_CHARS = 30;

  private final SeedFigures seeds;
  private final List<TableSpec> known;
  private final Clock clock;

  /**
   * A builder with these seed figures and known tables.
   *
   * @param seeds the seeds' published figures
   * @param known the tables the report always shows (as "not run" when their file is missing)
   * @param clock dates the page
   */
  public ReportBuilder(SeedFigures seeds, List<TableSpec> known, Clock clock) {
    this.seeds = Objects.requireNonNull(seeds, "seeds");
    this.known = List.copyOf(known);
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * A builder with the figures of {@link SeedFigures#load()} and the tables of {@link
   * TableSpec#known()}.
   */
  public static ReportBuilder standard() {
    return new ReportBuilder(SeedFigures.load(), TableSpec.known(), Clock.systemUTC());
  }

  /**
   * The report on the results in {@code resultsDir}. Problems with single files end up in the page
   * and in {@link Report#problems()}; they never stop the build.
   */
  public Report build(Path resultsDir) {
    Objects.requireNonNull(resultsDir, "resultsDir");
    List<String> problems = new ArrayList<>();
    Map<String, Loaded> loaded = load(resultsDir, problems);
    List<Table> tables = new ArrayList<>();
    for (TableSpec spec : known) {
      Loaded file = loaded.remove(spec.bench());
      tables.add(file == null ? Table.missing(spec) : file.table(spec));
    }
    for (Loaded file : new TreeMap<>(loaded).values()) {
      tables.add(file.table(null));
    }
    // What ran comes first, then what could not be read, then what was not run; each in table
    // order.
    tables.sort(
        Comparator.comparingInt(
            table -> table.document != null ? 0 : table.failure != null ? 1 : 2));
    for (Table table : tables) {
      if (table.failure != null) {
        problems.add(table.failure);
      }
    }
    String html = render(resultsDir, tables, problems);
    List<String> shown = tables.stream().filter(t -> t.document != null).map(t -> t.bench).toList();
    List<String> missing =
        tables.stream()
            .filter(t -> t.document == null && t.failure == null)
            .map(t -> t.bench)
            .toList();
    return new Report(html, problems, shown, missing);
  }

  /**
   * Builds the report on {@code resultsDir} and writes it to {@code target}, replacing an older
   * file in one move.
   *
   * @throws UncheckedIOException if the page cannot be written
   */
  public Report write(Path resultsDir, Path target) {
    Report report = build(resultsDir);
    try {
      AtomicFiles.writeString(target, report.html());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the report to " + target, e);
    }
    return report;
  }

  private Map<String, Loaded> load(Path resultsDir, List<String> problems) {
    Map<String, Loaded> loaded = new LinkedHashMap<>();
    if (!Files.isDirectory(resultsDir)) {
      problems.add("no results directory " + resultsDir + ": run ./stowage bench <name> first");
      return loaded;
    }
    List<Path> files;
    try (Stream<Path> list = Files.list(resultsDir)) {
      files =
          list.filter(p -> p.getFileName().toString().endsWith(".json"))
              .filter(p -> !p.getFileName().toString().startsWith("."))
              .filter(Files::isRegularFile)
              .sorted()
              .toList();
    } catch (IOException e) {
      problems.add("cannot list " + resultsDir + ": " + e.getMessage());
      return loaded;
    }
    for (Path file : files) {
      String stem = file.getFileName().toString().replaceFirst("\\.json$", "");
      try {
        ResultsDocument document = ResultsDocument.read(file);
        if (loaded.containsKey(document.bench())) {
          problems.add(file + " holds bench '" + document.bench() + "' again; it is left out");
        } else {
          loaded.put(document.bench(), new Loaded(document.bench(), file, document, null));
        }
      } catch (UncheckedIOException e) {
        loaded.putIfAbsent(
            stem, new Loaded(stem, file, null, "cannot read " + file + ": " + describe(e)));
      }
    }
    return loaded;
  }

  /** The innermost useful message of a read failure, with the line and column of a JSON problem. */
  private static String describe(UncheckedIOException e) {
    Throwable cause = e.getCause();
    while (cause != null) {
      if (cause instanceof JsonProcessingException json) {
        JsonLocation where = json.getLocation();
        String at =
            where == null
                ? ""
                : " (line " + where.getLineNr() + ", column " + where.getColumnNr() + ")";
        return json.getOriginalMessage() + at;
      }
      if (cause.getCause() == null) {
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
      }
      cause = cause.getCause();
    }
    return Objects.requireNonNullElse(e.getMessage(), e.getClass().getSimpleName());
  }

  /** A results file, read or not. */
  private record Loaded(
      String bench, Path file, @Nullable ResultsDocument document, @Nullable String failure) {
    Table table(@Nullable TableSpec knownSpec) {
      if (document == null) {
        return new Table(bench, knownSpec, null, file, failure);
      }
      if (knownSpec != null) {
        return new Table(bench, knownSpec, document, file, null);
      }
      try {
        return new Table(bench, TableSpec.generic(document), document, file, null);
      } catch (IllegalArgumentException e) {
        return new Table(bench, null, null, file, "cannot chart " + file + ": " + e.getMessage());
      }
    }
  }

  /**
   * One table of the page: a spec (when known or derivable) and its document, or why there is none.
   */
  private record Table(
      String bench,
      @Nullable TableSpec spec,
      @Nullable ResultsDocument document,
      @Nullable Path file,
      @Nullable String failure) {
    static Table missing(TableSpec spec) {
      return new Table(spec.bench(), spec, null, null, null);
    }
  }

  // ---------------------------------------------------------------- the page

  private String render(Path resultsDir, List<Table> tables, List<String> problems) {
    StringBuilder out = new StringBuilder(64 * 1024);
    out.append("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
        .append("<title>Stowage benchmark report</title>\n<style>\n")
        .append(CSS)
        .append("</style>\n</head>\n<body>\n");
    out.append("<h1>Stowage benchmark report</h1>\n<p class=\"lead\">Built ")
        .append(
            Html.escape(OffsetDateTime.now(clock).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME)))
        .append(" from <code>")
        .append(Html.escape(resultsDir.toString()))
        .append(
            "</code>. Each table puts the seed's configuration, its peers and Stowage side by side, measured in one run;")
        .append(
            " a ratio is a row's value over its baseline row's (the seed's configuration), so it holds even where absolute")
        .append(" figures differ between machines.</p>\n");
    if (!problems.isEmpty()) {
      out.append("<section id=\"problems\"><h2>Problems</h2><ul>\n");
      for (String problem : problems) {
        out.append("<li class=\"problem\">").append(Html.escape(problem)).append("</li>\n");
      }
      out.append("</ul></section>\n");
    }
    renderHeadlines(out, tables);
    for (Table table : tables) {
      renderTable(out, table);
    }
    out.append("<footer><p>Bars: <span class=\"swatch role-seed\"></span> seed's configuration")
        .append(
            " <span class=\"swatch role-peer\"></span> peer <span class=\"swatch role-stowage\"></span> Stowage")
        .append(
            " <span class=\"swatch role-limit\"></span> limit. Made by <code>./stowage report</code>.</p></footer>\n");
    out.append("</body>\n</html>\n");
    return out.toString();
  }

  private void renderHeadlines(StringBuilder out, List<Table> tables) {
    out.append(
            "<section id=\"headline\">\n<h2>Headline: Stowage's defaults against the seed's configuration</h2>\n")
        .append(
            "<table class=\"headline\">\n<thead><tr><th>table</th><th>ratio</th><th>what it compares</th><th>ran on</th></tr></thead>\n<tbody>\n");
    for (Table table : tables) {
      out.append("<tr data-bench=\"")
          .append(Html.escape(table.bench))
          .append("\"><td><a href=\"#bench-")
          .append(Html.escape(table.bench))
          .append("\">")
          .append(Html.escape(tableName(table)))
          .append("</a></td>");
      ResultsDocument document = table.document;
      TableSpec spec = table.spec;
      if (document == null || spec == null) {
        String text =
            table.failure != null
                ? "could not read " + fileName(table)
                : "not run: " + command(table.bench, null);
        out.append("<td class=\"none\" colspan=\"3\">")
            .append(Html.escape(text))
            .append("</td></tr>\n");
        continue;
      }
      Headline headline = headline(spec, document.rows());
      if (headline == null) {
        out.append("<td class=\"none\">\u2013</td><td>no Stowage row with ")
            .append(Html.escape(spec.headline().title()))
            .append(" and a baseline to compare with</td>");
      } else {
        boolean ahead =
            spec.headline().kind().higherIsBetter() ? headline.ratio >= 1 : headline.ratio <= 1;
        out.append("<td class=\"ratio ")
            .append(headline.tie() ? "tie" : ahead ? "ahead" : "behind")
            .append("\">")
            .append(Html.escape(Html.ratio(headline.ratio)))
            .append("</td><td>")
            .append(Html.escape(headline.text))
            .append("</td>");
      }
      out.append("<td>").append(Html.escape(ranOn(document))).append("</td></tr>\n");
    }
    out.append("</tbody>\n</table>\n</section>\n");
  }

  /**
   * Stowage's default configuration against its baseline on the headline metric, with the best
   * Stowage row as a second figure; the best row alone when the defaults were not measured.
   */
  private record Headline(double ratio, String text, boolean tie) {}

  /** A Stowage row that can be compared: its baseline and its ratio to it. */
  private record Compared(ResultRow row, ResultRow base, double ratio) {}

  /**
   * The lowest and highest a ratio took over a bench's rounds: the row's lowest over its baseline's
   * highest, and the row's highest over the baseline's lowest.
   */
  record Spread(double low, double high, int rounds) {
    /** Whether the spread crosses 1.0: neither ahead nor behind. */
    boolean tie() {
      return low <= 1 && high >= 1;
    }
  }

  /**
   * The spread of {@code row}'s ratio to {@code base} on {@code metric}, when both carry the
   * metric's lowest and highest over the rounds ({@code <metric>_min} and {@code <metric>_max}, or
   * {@code min_<unit>} and {@code max_<unit>} beside {@code median_<unit>}), counted by {@code
   * <metric>_rounds} (as ClosedLoop's rounds give them) or else {@code runs}; null otherwise.
   */
  static @Nullable Spread spread(ResultRow row, ResultRow base, String metric) {
    Range rowRange = range(row, metric);
    Range baseRange = range(base, metric);
    if (rowRange == null || baseRange == null || baseRange.low() <= 0) {
      return null;
    }
    return new Spread(
        rowRange.low() / baseRange.high(),
        rowRange.high() / baseRange.low(),
        Math.min(rowRange.rounds(), baseRange.rounds()));
  }

  /** A metric's lowest and highest over a bench's rounds, and how many rounds (0 if not said). */
  private record Range(double low, double high, int rounds) {}

  private static @Nullable Range range(ResultRow row, String metric) {
    String low = metric + "_min";
    String high = metric + "_max";
    if (metric.startsWith("median_")) {
      String unit = metric.substring("median_".length());
      low = "min_" + unit;
      high = "max_" + unit;
    }
    OptionalDouble lowest = row.metric(low);
    OptionalDouble highest = row.metric(high);
    if (lowest.isEmpty() || highest.isEmpty()) {
      return null;
    }
    double rounds = row.metric(metric + "_rounds").orElse(row.metric("runs").orElse(0));
    return new Range(lowest.getAsDouble(), highest.getAsDouble(), (int) rounds);
  }

  private static @Nullable Headline headline(TableSpec spec, List<ResultRow> rows) {
    ChartSpec chart = spec.headline();
    List<ResultRow> candidates = rows;
    String groupKey = spec.groupKey();
    String groupText = "";
    if (groupKey != null && !spec.matchKeys().isEmpty()) {
      List<String> groups = new ArrayList<>();
      for (ResultRow row : rows) {
        ResultRow base = baselineOf(spec, row, rows);
        String group = groupOf(spec, row);
        if (base != null && base.metric(chart.metric()).isPresent() && !groups.contains(group)) {
          groups.add(group);
        }
      }
      if (groups.isEmpty()) {
        return null;
      }
      String chosen = spec.headlineLastGroup() ? groups.get(groups.size() - 1) : groups.get(0);
      candidates = rows.stream().filter(row -> groupOf(spec, row).equals(chosen)).toList();
      groupText = ", " + groupKey + " = " + chosen;
    }
    List<Compared> compared = new ArrayList<>();
    for (ResultRow row : candidates) {
      if (row.role() != RowRole.STOWAGE || errorOf(row) != null) {
        continue;
      }
      ResultRow base = baselineOf(spec, row, rows);
      if (base == null) {
        continue;
      }
      OptionalDouble ratio = ResultTable.ratio(row, base, chart.metric());
      if (ratio.isPresent()) {
        compared.add(new Compared(row, base, ratio.getAsDouble()));
      }
    }
    if (compared.isEmpty()) {
      return null;
    }
    Compared best = compared.get(0);
    for (Compared c : compared) {
      if (chart.kind().higherIsBetter() ? c.ratio() > best.ratio() : c.ratio() < best.ratio()) {
        best = c;
      }
    }
    Compared defaults = null;
    int defaultsRank = Integer.MAX_VALUE;
    for (Compared c : compared) {
      int rank = defaultRank(spec, c.row());
      if (rank < defaultsRank) {
        defaults = c;
        defaultsRank = rank;
      }
    }
    String metric = " (" + chart.title() + ")";
    Compared shown = defaults == null ? best : defaults;
    Spread spread = spread(shown.row(), shown.base(), chart.metric());
    String spreadText =
        spread == null
            ? "; one round, no spread measured"
            : "; "
                + (spread.tie() ? "a tie: " : "")
                + "from "
                + Html.ratio(spread.low())
                + " to "
                + Html.ratio(spread.high())
                + (spread.rounds() > 0
                    ? " over " + spread.rounds() + " rounds"
                    : " over its rounds");
    boolean tie = spread != null && spread.tie();
    if (defaults == null) {
      String why =
          spec.defaultRows().isEmpty()
              ? "best Stowage row, "
              : "best Stowage row (its defaults were not in this run), ";
      return new Headline(
          best.ratio(), why + compare(best, groupText, chart) + metric + spreadText, tie);
    }
    String text = compare(defaults, groupText, chart) + metric + spreadText;
    if (!best.equals(defaults)) {
      text +=
          "; best Stowage row: "
              + best.row().name()
              + ", "
              + verdict(chart.kind(), best.ratio())
              + " ("
              + Html.ratio(best.ratio())
              + ")";
    }
    return new Headline(defaults.ratio(), "Stowage's defaults, " + text, tie);
  }

  /** "{row} against {base} (the seed's configuration), {group}: {verdict}". */
  private static String compare(Compared c, String groupText, ChartSpec chart) {
    String against =
        c.base().role() == RowRole.SEED ? " (the seed's configuration)" : " (the baseline)";
    return c.row().name()
        + " against "
        + c.base().name()
        + against
        + groupText
        + ": "
        + verdict(chart.kind(), c.ratio());
  }

  /**
   * How surely a row measures Stowage's default configuration: its place in the spec's default
   * rows, then a row whose params say {@code stowage_default} ({@code learned} first), else none
   * ({@link Integer#MAX_VALUE}).
   */
  private static int defaultRank(TableSpec spec, ResultRow row) {
    int named = spec.defaultRows().indexOf(row.name());
    if (named >= 0) {
      return named;
    }
    Object marked = row.params().get("stowage_default");
    if (marked == null) {
      return Integer.MAX_VALUE;
    }
    return spec.defaultRows().size() + ("learned".equals(String.valueOf(marked)) ? 0 : 1);
  }

  /** What a ratio means, in words: "2.4× faster", "38% less memory", "1.8× the throughput". */
  static String verdict(MetricKind kind, double ratio) {
    if (kind.higherIsBetter()) {
      return String.format(Locale.ROOT, "%.2f\u00d7 the %s", ratio, kind.noun());
    }
    if (kind == MetricKind.BYTES || kind == MetricKind.MEMORY) {
      double percent = Math.abs(1 - ratio) * 100;
      return String.format(
          Locale.ROOT, "%.0f%% %s %s", percent, ratio <= 1 ? "less" : "more", kind.noun());
    }
    if (ratio == 0) {
      return "no measurable " + kind.noun();
    }
    return ratio <= 1
        ? String.format(Locale.ROOT, "%.2f\u00d7 faster", 1 / ratio)
        : String.format(Locale.ROOT, "%.2f\u00d7 slower", ratio);
  }

  private void renderTable(StringBuilder out, Table table) {
    TableSpec spec = table.spec;
    ResultsDocument document = table.document;
    String css =
        document != null ? "table" : table.failure != null ? "table failed" : "table missing";
    out.append("<section class=\"")
        .append(css)
        .append("\" id=\"bench-")
        .append(Html.escape(table.bench))
        .append("\" data-bench=\"")
        .append(Html.escape(table.bench))
        .append('"');
    if (document != null) {
      out.append(" data-rows=\"").append(document.rows().size()).append('"');
    }
    out.append(">\n<h2>").append(Html.escape(tableName(table)));
    if (spec != null) {
      out.append(" \u00b7 ").append(Html.escape(spec.title()));
    }
    out.append("</h2>\n");
    if (document == null) {
      if (table.failure != null) {
        out.append("<p class=\"problem\">")
            .append(Html.escape(table.failure))
            .append("</p>\n")
            .append("<p class=\"command\">Run it again: <code>")
            .append(Html.escape(command(table.bench, null)))
            .append("</code></p>\n");
      } else {
        out.append("<p class=\"notrun\">not run: <code>")
            .append(Html.escape(command(table.bench, null)))
            .append("</code></p>\n");
      }
      if (spec != null) {
        renderSeedFigures(out, spec);
      }
      out.append("</section>\n");
      return;
    }
    Objects.requireNonNull(spec, "a read table has a spec");
    List<ResultRow> rows = document.rows();
    out.append("<p class=\"command\">Reproduce: <code>")
        .append(Html.escape(command(table.bench, document)))
        .append("</code>");
    if (document.quick()) {
      out.append(
          " <span class=\"quick\">(quick run: shorter and smaller than the full one)</span>");
    }
    out.append("</p>\n");
    renderEnvironment(out, document);
    out.append("<div class=\"columns\">\n");
    renderSeedFigures(out, spec);
    renderSeedConfiguration(out, spec, rows);
    out.append("</div>\n");
    if (rows.isEmpty()) {
      out.append("<p class=\"problem\">the results file has no rows</p>\n");
    }
    out.append("<div class=\"charts\">\n");
    for (ChartSpec chart : spec.charts()) {
      if (chart.onlyWhenMeasured()
          && rows.stream().noneMatch(row -> row.metric(chart.metric()).isPresent())) {
        continue;
      }
      renderChart(out, spec, chart, rows);
    }
    out.append("</div>\n");
    renderRowTable(out, spec, rows);
    out.append("</section>\n");
  }

  private void renderSeedFigures(StringBuilder out, TableSpec spec) {
    List<SeedFigures.SeedTable> published =
        spec.seedTables().stream().map(seeds::table).flatMap(Optional::stream).toList();
    out.append("<div class=\"seed\"><h3>What the seed measured</h3>\n");
    if (published.isEmpty()) {
      out.append(
          "<p>No seed published this table; the ratios are to the baseline row.</p></div>\n");
      return;
    }
    for (SeedFigures.SeedTable seedTable : published) {
      out.append("<table class=\"figures\" data-seed-table=\"")
          .append(Html.escape(seedTable.id()))
          .append("\"><caption>")
          .append(
              Html.escape(seedTable.id() + ", seed " + seedTable.seed() + ": " + seedTable.title()))
          .append("</caption>\n");
      for (SeedFigures.Figure figure : seedTable.figures()) {
        out.append("<tr><td>")
            .append(Html.escape(figure.label()))
            .append("</td><td class=\"num\">")
            .append(Html.escape(Html.published(figure.value())))
            .append(figure.unit().isEmpty() ? "" : " " + Html.escape(figure.unit()))
            .append("</td></tr>\n");
      }
      out.append("</table>\n");
    }
    out.append("</div>\n");
  }

  private static void renderSeedConfiguration(
      StringBuilder out, TableSpec spec, List<ResultRow> rows) {
    out.append("<div class=\"config\"><h3>The seed's configuration, reproduced here</h3>\n");
    ResultRow base = null;
    for (String name : spec.baselineNames()) {
      base = rows.stream().filter(row -> row.name().equals(name)).findFirst().orElse(null);
      if (base != null) {
        break;
      }
    }
    if (base == null) {
      out.append("<p class=\"problem\">no baseline row (")
          .append(Html.escape(String.join(" or ", spec.baselineNames())))
          .append(") in the results: ratios are left out</p></div>\n");
      return;
    }
    out.append("<p>Row <strong>")
        .append(Html.escape(base.name()))
        .append("</strong> (")
        .append(Html.escape(base.role().jsonName()))
        .append("); every ratio is to this row");
    if (!spec.matchKeys().isEmpty()) {
      out.append(" with the same ").append(Html.escape(String.join(" and ", spec.matchKeys())));
    }
    out.append(".</p>\n<dl>\n");
    for (Map.Entry<String, Object> param : base.params().entrySet()) {
      if (spec.matchKeys().contains(param.getKey())) {
        continue;
      }
      out.append("<dt>")
          .append(Html.escape(param.getKey()))
          .append("</dt><dd>")
          .append(Html.escape(String.valueOf(param.getValue())))
          .append("</dd>\n");
    }
    out.append("</dl></div>\n");
  }

  private static void renderEnvironment(StringBuilder out, ResultsDocument document) {
    out.append("<p class=\"env\">Ran on ")
        .append(Html.escape(ranOn(document)))
        .append("</p>\n<details><summary>environment</summary><dl class=\"env\">\n");
    for (Map.Entry<String, Object> entry : document.env().entrySet()) {
      out.append("<dt>")
          .append(Html.escape(entry.getKey()))
          .append("</dt><dd>")
          .append(Html.escape(String.valueOf(entry.getValue())))
          .append("</dd>\n");
    }
    out.append("</dl></details>\n");
  }

  private static void renderChart(
      StringBuilder out, TableSpec spec, ChartSpec chart, List<ResultRow> rows) {
    Map<String, List<Integer>> groups = groups(spec, rows);
    int height =
        4 + rows.size() * ROW_HEIGHT + (spec.groupKey() == null ? 0 : groups.size() * GROUP_HEIGHT);
    int width = LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH;
    String better = chart.kind().higherIsBetter() ? "higher is better" : "lower is better";
    String unit = chart.unit().isEmpty() ? "" : " (" + chart.unit() + ")";
    out.append("<figure class=\"chart\"><figcaption>")
        .append(Html.escape(chart.title() + unit + ", " + better))
        .append("</figcaption>\n")
        .append("<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" data-metric=\"")
        .append(Html.escape(chart.metric()))
        .append("\" width=\"")
        .append(width)
        .append("\" height=\"")
        .append(height)
        .append("\" viewBox=\"0 0 ")
        .append(width)
        .append(' ')
        .append(height)
        .append("\" role=\"img\" aria-label=\"")
        .append(Html.escape(chart.title()))
        .append("\">\n");
    double y = 4;
    for (Map.Entry<String, List<Integer>> group : groups.entrySet()) {
      if (spec.groupKey() != null) {
        out.append("<text class=\"group\" x=\"2\" y=\"")
            .append(Html.coordinate(y + 14))
            .append("\">")
            .append(Html.escape(spec.groupKey() + " = " + group.getKey()))
            .append("</text>\n");
        y += GROUP_HEIGHT;
      }
      double max = 0;
      for (int index : group.getValue()) {
        OptionalDouble value = rows.get(index).metric(chart.metric());
        if (value.isPresent() && Double.isFinite(value.getAsDouble())) {
          max = Math.max(max, value.getAsDouble());
        }
      }
      for (int index : group.getValue()) {
        ResultRow row = rows.get(index);
        renderBar(out, spec, chart, rows, index, row, max, y);
        y += ROW_HEIGHT;
      }
    }
    out.append("</svg></figure>\n");
  }

  private static void renderBar(
      StringBuilder out,
      TableSpec spec,
      ChartSpec chart,
      List<ResultRow> rows,
      int index,
      ResultRow row,
      double max,
      double y) {
    String error = errorOf(row);
    OptionalDouble value = error == null ? row.metric(chart.metric()) : OptionalDouble.empty();
    double length = 0;
    if (value.isPresent() && max > 0 && Double.isFinite(value.getAsDouble())) {
      length = Math.max(0, value.getAsDouble()) / max * BAR_WIDTH;
    }
    String label;
    if (error != null) {
      label = "error: " + Html.shorten(error, 60);
    } else if (value.isEmpty()) {
      label = "\u2013";
    } else {
      label =
          Html.number(value.getAsDouble())
              + (chart.unit().isEmpty() ? "" : " " + chart.unit())
              + ratioLabel(spec, chart, rows, row);
    }
    OptionalDouble errors = row.metric(ERRORS_METRIC);
    if (errors.isPresent() && errors.getAsDouble() > 0) {
      label += " \u26a0 " + Html.count(errors.getAsDouble()) + " errors";
    }
    double textY = y + BAR_HEIGHT - 2;
    out.append("<text class=\"label\" x=\"")
        .append(LABEL_WIDTH - 6)
        .append("\" y=\"")
        .append(Html.coordinate(textY))
        .append("\" text-anchor=\"end\">")
        .append(Html.escape(Html.shorten(row.name(), LABEL_CHARS)))
        .append("</text>")
        .append("<rect class=\"bar role-")
        .append(row.role().jsonName())
        .append(error != null ? " error" : "")
        .append("\" data-row=\"")
        .append(index)
        .append("\" data-name=\"")
        .append(Html.escape(row.name()))
        .append("\" x=\"")
        .append(LABEL_WIDTH)
        .append("\" y=\"")
        .append(Html.coordinate(y + 1))
        .append("\" width=\"")
        .append(Html.coordinate(length))
        .append("\" height=\"")
        .append(BAR_HEIGHT)
        .append("\"><title>")
        .append(Html.escape(row.name() + ": " + label))
        .append("</title></rect>")
        .append("<text class=\"value")
        .append(error != null ? " err" : "")
        .append("\" x=\"")
        .append(Html.coordinate(LABEL_WIDTH + length + 4))
        .append("\" y=\"")
        .append(Html.coordinate(textY))
        .append("\">")
        .append(Html.escape(label))
        .append("</text>\n");
  }

  /**
   * {@code " ×0.42"} against the row's baseline, {@code " ×1 seed"} on the baseline itself, or
   * empty.
   */
  @SuppressWarnings(
      "ReferenceEquality") // the very row, not an equal one: a row is its own baseline
  private static String ratioLabel(
      TableSpec spec, ChartSpec chart, List<ResultRow> rows, ResultRow row) {
    ResultRow base = baselineOf(spec, row, rows);
    if (base == null) {
      return "";
    }
    if (base == row) {
      return base.role() == RowRole.SEED ? "  \u00d71 seed" : "  \u00d71 baseline";
    }
    OptionalDouble ratio = ResultTable.ratio(row, base, chart.metric());
    return ratio.isPresent() ? "  " + Html.ratio(ratio.getAsDouble()) : "";
  }

  private static void renderRowTable(StringBuilder out, TableSpec spec, List<ResultRow> rows) {
    out.append("<table class=\"rows\">\n<thead><tr><th>row</th><th>role</th>");
    if (spec.groupKey() != null) {
      out.append("<th>").append(Html.escape(spec.groupKey())).append("</th>");
    }
    for (ChartSpec chart : spec.charts()) {
      out.append("<th>").append(Html.escape(chart.metric())).append("</th><th>\u00d7 seed</th>");
    }
    out.append("<th>errors</th></tr></thead>\n<tbody>\n");
    for (ResultRow row : rows) {
      String error = errorOf(row);
      out.append("<tr class=\"role-")
          .append(row.role().jsonName())
          .append(error != null ? " error" : "")
          .append("\"><td>")
          .append(Html.escape(row.name()))
          .append("</td><td>")
          .append(row.role().jsonName())
          .append("</td>");
      if (spec.groupKey() != null) {
        out.append("<td>").append(Html.escape(groupOf(spec, row))).append("</td>");
      }
      ResultRow base = baselineOf(spec, row, rows);
      for (ChartSpec chart : spec.charts()) {
        OptionalDouble value = row.metric(chart.metric());
        OptionalDouble ratio =
            base == null ? OptionalDouble.empty() : ResultTable.ratio(row, base, chart.metric());
        out.append("<td class=\"num\">")
            .append(value.isPresent() ? Html.escape(Html.number(value.getAsDouble())) : "\u2013")
            .append("</td><td class=\"num\">")
            .append(ratio.isPresent() ? Html.escape(Html.ratio(ratio.getAsDouble())) : "\u2013")
            .append("</td>");
      }
      OptionalDouble errors = row.metric(ERRORS_METRIC);
      String errorText =
          error != null
              ? "error: " + error
              : errors.isPresent() && errors.getAsDouble() > 0
                  ? Html.count(errors.getAsDouble()) + " errors"
                  : "";
      out.append("<td class=\"err\">").append(Html.escape(errorText)).append("</td></tr>\n");
    }
    out.append("</tbody>\n</table>\n");
  }

  // ---------------------------------------------------------------- helpers

  private static Map<String, List<Integer>> groups(TableSpec spec, List<ResultRow> rows) {
    Map<String, List<Integer>> groups = new LinkedHashMap<>();
    for (int i = 0; i < rows.size(); i++) {
      groups.computeIfAbsent(groupOf(spec, rows.get(i)), k -> new ArrayList<>()).add(i);
    }
    return groups;
  }

  private static String groupOf(TableSpec spec, ResultRow row) {
    String key = spec.groupKey();
    return key == null ? "" : Objects.requireNonNullElse(row.param(key), "\u2013");
  }

  /**
   * The row's baseline: the first of the spec's baseline names present among the rows, on a row
   * whose params match this row's on the spec's match keys; {@code null} if there is none.
   */
  static @Nullable ResultRow baselineOf(TableSpec spec, ResultRow row, List<ResultRow> rows) {
    for (String name : spec.baselineNames()) {
      if (rows.stream().noneMatch(candidate -> candidate.name().equals(name))) {
        continue;
      }
      return rows.stream()
          .filter(candidate -> candidate.name().equals(name))
          .filter(candidate -> errorOf(candidate) == null)
          .filter(
              candidate ->
                  spec.matchKeys().stream()
                      .allMatch(key -> Objects.equals(candidate.param(key), row.param(key))))
          .findFirst()
          .orElse(null);
    }
    return null;
  }

  /** The error message of a failed row ({@code params.error}), or {@code null}. */
  static @Nullable String errorOf(ResultRow row) {
    return row.param(ERROR_PARAM);
  }

  /**
   * The command that reproduces a table, with {@code --quick} when the results came from a quick
   * run.
   */
  static String command(String bench, @Nullable ResultsDocument document) {
    StringBuilder command = new StringBuilder("./stowage bench ").append(bench);
    if (document != null) {
      if (bench.equals("memory")) {
        document.rows().stream()
            .map(row -> row.param("records"))
            .filter(Objects::nonNull)
            .filter(kind -> !kind.equals("board"))
            .findFirst()
            .ifPresent(kind -> command.append(" --records ").append(kind));
      }
      if (document.quick()) {
        command.append(" --quick");
      }
    }
    return command.toString();
  }

  private static String ranOn(ResultsDocument document) {
    Map<String, Object> env = document.env();
    List<String> parts = new ArrayList<>();
    if (env.get("os") != null) {
      parts.add(String.valueOf(env.get("os")));
    }
    if (env.get("cores") != null) {
      parts.add(env.get("cores") + " cores");
    }
    if (env.get("java_version") != null) {
      parts.add("Java " + env.get("java_version"));
    }
    if (env.get("redis_version") != null) {
      parts.add("Redis " + env.get("redis_version"));
    }
    Object commit = env.get("git_commit");
    parts.add("commit " + (commit == null ? "unknown" : shortCommit(String.valueOf(commit))));
    if (env.get("date") != null) {
      parts.add(String.valueOf(env.get("date")));
    }
    if (document.quick()) {
      parts.add("quick");
    }
    return String.join(", ", parts);
  }

  /** The first 12 hex digits of a commit, keeping a {@code -dirty} suffix. */
  private static String shortCommit(String commit) {
    boolean dirty = commit.endsWith("-dirty");
    String hash = dirty ? commit.substring(0, commit.length() - "-dirty".length()) : commit;
    return (hash.length() > 12 ? hash.substring(0, 12) : hash) + (dirty ? "-dirty" : "");
  }

  private static String tableName(Table table) {
    TableSpec spec = table.spec;
    String ids =
        spec == null || spec.seedTables().isEmpty()
            ? ""
            : String.join("+", spec.seedTables()) + " ";
    return ids + table.bench;
  }

  private static String fileName(Table table) {
    Path file = table.file;
    return file == null ? table.bench + ".json" : String.valueOf(file.getFileName());
  }

  private static final String CSS =
      """
      body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1400px; }
      h1 { margin: 0 0 4px; } h2 { margin: 28px 0 6px; border-bottom: 1px solid #ccc; } h3 { margin: 8px 0 4px; font-size: 14px; }
      .lead { color: #555; max-width: 70em; }
      table { border-collapse: collapse; } td, th { padding: 2px 8px; border-bottom: 1px solid #eee; text-align: left; }
      .num { text-align: right; font-variant-numeric: tabular-nums; }
      table.headline td.ratio { font-size: 20px; font-weight: bold; color: #1d7a45; text-align: right; }
      table.headline td.ratio.behind { color: #a3401c; }
      table.headline td.ratio.tie { color: #555; }
      td.none, .notrun { color: #8a5a00; }
      .problem { color: #b00020; }
      .columns { display: flex; gap: 40px; flex-wrap: wrap; align-items: flex-start; }
      .config dl, dl.env { display: grid; grid-template-columns: max-content auto; gap: 0 12px; margin: 0; }
      dt { color: #666; } dd { margin: 0; }
      .charts { display: flex; flex-wrap: wrap; gap: 8px 24px; }
      figure.chart { margin: 8px 0; } figcaption { font-weight: 600; }
      svg.chart text { font: 11px system-ui, sans-serif; fill: #222; } svg.chart text.group { font-weight: 600; }
      svg.chart text.err { fill: #b00020; }
      .role-seed { fill: #8c8c8c; background: #8c8c8c; } .role-peer { fill: #5b8fd9; background: #5b8fd9; }
      .role-stowage { fill: #2a9d5c; background: #2a9d5c; } .role-limit { fill: #b07cc6; background: #b07cc6; }
      tr.role-seed, tr.role-peer, tr.role-stowage, tr.role-limit { background: none; }
      tr.role-stowage td:first-child { font-weight: 600; } tr.error td { color: #b00020; }
      table.rows { font-size: 12px; margin-top: 8px; }
      .swatch { display: inline-block; width: 12px; height: 12px; vertical-align: middle; }
      code { background: #f3f3f3; padding: 1px 4px; } .quick { color: #8a5a00; }
      footer { margin-top: 32px; color: #666; }
      """;
}
