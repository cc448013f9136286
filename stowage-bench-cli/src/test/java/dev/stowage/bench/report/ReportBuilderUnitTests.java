package dev.stowage.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.select.Elements;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link ReportBuilder} on the fixture results: what the page says, read back through its DOM. */
class ReportBuilderUnitTests {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-23T20:00:00Z"), ZoneOffset.UTC);

  @TempDir Path temp;

  private Report report;
  private Document page;

  @BeforeEach
  void build() {
    report =
        new ReportBuilder(SeedFigures.load(), TableSpec.known(), CLOCK)
            .build(ReportFixtures.copyTo(temp.resolve("results")));
    page = Jsoup.parse(report.html());
  }

  private Element section(String bench) {
    Element section = page.getElementById("bench-" + bench);
    assertThat(section).as("section of " + bench).isNotNull();
    return section;
  }

  private Element headlineRow(String bench) {
    Element row = page.selectFirst("#headline tr[data-bench=" + bench + "]");
    assertThat(row).as("headline row of " + bench).isNotNull();
    return row;
  }

  @Test
  void everyTableThatRanHasItsChartsWithOneBarPerRow() {
    assertThat(report.tables()).containsExactly("pipeline", "codecs", "clients", "spring");
    // What ran first, then the unreadable file, then what was not run.
    assertThat(page.select("section.table").eachAttr("data-bench"))
        .containsExactly(
            "pipeline",
            "codecs",
            "clients",
            "spring",
            "app",
            "memory",
            "http",
            "transport",
            "nearcache",
            "cluster");
    assertThat(page.select("#headline tbody tr").eachAttr("data-bench"))
        .containsExactly(
            "pipeline",
            "codecs",
            "clients",
            "spring",
            "app",
            "memory",
            "http",
            "transport",
            "nearcache",
            "cluster");
    for (String bench : report.tables()) {
      Element section = section(bench);
      int rows = Integer.parseInt(section.attr("data-rows"));
      Elements charts = section.select("svg.chart");
      assertThat(charts).as(bench).isNotEmpty();
      for (Element chart : charts) {
        Elements bars = chart.select("rect.bar[data-row]");
        assertThat(bars).as(bench + " " + chart.attr("data-metric")).hasSize(rows);
        assertThat(bars.eachAttr("data-row")).as("each row once").doesNotHaveDuplicates();
      }
      assertThat(section.select("table.rows tbody tr")).hasSize(rows);
    }
    assertThat(section("pipeline").select("svg.chart").eachAttr("data-metric"))
        .containsExactly("median_ms");
    assertThat(section("clients").select("svg.chart").eachAttr("data-metric"))
        .containsExactly("ops_per_s", "p50_ms", "p99_ms", "client_cpu_us_per_op");
    assertThat(section("codecs").select("svg.chart").eachAttr("data-metric"))
        .containsExactly("total_ns", "size", "size_deflate");
  }

  @Test
  void headlineComesFirstWithStowagesRatioToTheSeedsConfiguration() {
    Element firstSection = page.selectFirst("section:not(#problems)");
    assertThat(firstSection).isNotNull();
    assertThat(firstSection.id()).isEqualTo("headline");

    Element pipeline = headlineRow("pipeline");
    assertThat(pipeline.selectFirst("td.ratio").text()).isEqualTo("\u00d70.25");
    assertThat(pipeline.text())
        .contains(
            "Stowage's defaults, stowage-putAll against spring-executePipelined (the seed's configuration), n = 1000: 4.00\u00d7 faster")
        .contains("commit 5c60414e0d3b");
    Element clients = headlineRow("clients");
    assertThat(clients.selectFirst("td.ratio").text()).isEqualTo("\u00d71.20");
    assertThat(clients.text())
        .contains(
            "Stowage's defaults, stowage against lettuce-shared (the seed's configuration): 1.20\u00d7 the throughput")
        .doesNotContain("best Stowage row");
    Element codecs = headlineRow("codecs");
    assertThat(codecs.selectFirst("td.ratio").text()).isEqualTo("\u00d70.40");
    assertThat(codecs.text())
        .as("the row whose params mark it as Stowage's default")
        .contains(
            "Stowage's defaults, msgpack-compact+zstd against json",
            "data = board",
            "2.50\u00d7 faster");
    assertThat(headlineRow("spring").selectFirst("td.ratio").text()).isEqualTo("\u00d71.50");
    assertThat(pipeline.selectFirst("td.ratio").hasClass("ahead"))
        .as("less time is ahead")
        .isTrue();
    assertThat(clients.selectFirst("td.ratio").hasClass("ahead"))
        .as("more throughput is ahead")
        .isTrue();

    assertThat(headlineRow("memory").text()).contains("not run: ./stowage bench memory");
    assertThat(headlineRow("app").text()).contains("could not read app.json");
  }

  @Test
  void barsAreLabelledWithTheValueAndTheRatioToTheirGroupsSeedRow() {
    Element chart = section("pipeline").selectFirst("svg.chart");
    assertThat(chart.select("text.group").eachText()).containsExactly("n = 10", "n = 1000");
    Elements values = chart.select("text.value");
    // Rows in file order: n=10 (one-by-one, pipelined, RBatch, putAll, raw), then n=1000.
    assertThat(values.eachText())
        .containsExactly(
            "12.0 ms \u00d73.00",
            "4.00 ms \u00d71 seed",
            "6.00 ms \u00d71.50",
            "2.00 ms \u00d70.50",
            "1.00 ms \u00d70.25",
            "400 ms \u00d710.0",
            "40.0 ms \u00d71 seed",
            "30.0 ms \u00d70.75",
            "10.0 ms \u00d70.25",
            "5.00 ms \u00d70.13");
    // Each group is scaled to its own longest bar.
    Elements bars = chart.select("rect.bar");
    assertThat(bars.get(0).attr("width")).isEqualTo("250.0");
    assertThat(bars.get(5).attr("width")).isEqualTo("250.0");
    assertThat(bars.get(8).attr("width")).isEqualTo("6.3");
    assertThat(bars.get(8).classNames()).contains("role-stowage");
    assertThat(bars.get(1).classNames()).contains("role-seed");
    assertThat(bars.get(4).classNames()).contains("role-limit");
  }

  @Test
  void aFailedRowKeepsItsBarsWithNoLengthAndSaysError() {
    Element clients = section("clients");
    for (Element chart : clients.select("svg.chart")) {
      Element bar = chart.selectFirst("rect.bar[data-name=jedis-pool-128]");
      assertThat(bar.classNames()).contains("error");
      assertThat(bar.attr("width")).isEqualTo("0.0");
    }
    assertThat(clients.select("svg.chart text.value.err").eachText())
        .hasSize(4)
        .allMatch(text -> text.startsWith("error: JedisConnectionException: Could not get a reso"));
    Element row = clients.select("table.rows tbody tr").get(1);
    assertThat(row.classNames()).contains("error");
    assertThat(row.selectFirst("td.err").text())
        .isEqualTo(
            "error: JedisConnectionException: Could not get a resource from the pool <max 128> & gave up");
    assertThat(report.html()).contains("&lt;max 128&gt; &amp; gave up");
  }

  @Test
  void missingTablesSayHowToRunThemAndStillShowTheSeedsFigures() {
    assertThat(report.notRun())
        .containsExactly("memory", "http", "transport", "nearcache", "cluster");
    for (String bench : report.notRun()) {
      Element section = section(bench);
      assertThat(section.classNames()).contains("missing");
      assertThat(section.selectFirst("p.notrun").text())
          .isEqualTo("not run: ./stowage bench " + bench);
      assertThat(section.select("svg")).isEmpty();
    }
    assertThat(section("memory").select("table.figures").eachAttr("data-seed-table"))
        .containsExactly("T1", "T5");
    assertThat(section("memory").text())
        .contains(
            "Redis memory, 120,000 records, JSON 79 MB",
            "Redis memory, 15M records, fastjson string 3.3 GB",
            "write, fastjson string 399.18 requests/s");
    assertThat(section("nearcache").text()).contains("No seed published this table");
  }

  @Test
  void aMalformedFileIsNamedWithItsProblemAndTheOtherTablesAreBuilt() {
    Path app = temp.resolve("results").resolve("app.json");
    assertThat(report.problems())
        .singleElement()
        .asString()
        .startsWith("cannot read " + app + ": ")
        .contains("line ");
    Element section = section("app");
    assertThat(section.classNames()).contains("failed");
    assertThat(section.selectFirst("p.problem").text()).startsWith("cannot read " + app);
    assertThat(section.text()).contains("Run it again: ./stowage bench app");
    assertThat(section.select("table.figures").eachAttr("data-seed-table")).containsExactly("T5");
    assertThat(page.select("#problems li.problem").eachText())
        .containsExactly(report.problems().get(0));
  }

  @Test
  void eachTableShowsTheSeedsFiguresConfigurationEnvironmentAndCommand() {
    Element pipeline = section("pipeline");
    assertThat(pipeline.selectFirst("table.figures[data-seed-table=T2]").text())
        .contains("N=30,000, one by one 2,078 ms", "N=30,000, pipelined 321 ms");
    assertThat(pipeline.selectFirst("div.config").text())
        .contains(
            "Row spring-executePipelined (seed)",
            "with the same n",
            "Spring Data Redis executePipelined");
    assertThat(pipeline.selectFirst("p.env").text())
        .isEqualTo(
            "Ran on Linux 6.1.0 amd64, 2 cores, Java 17.0.13, Redis 7.0.15, commit 5c60414e0d3b, 2026-11-20T10:15:30Z, quick");
    assertThat(pipeline.selectFirst("p.command code").text())
        .isEqualTo("./stowage bench pipeline --quick");
    assertThat(section("clients").selectFirst("p.command code").text())
        .isEqualTo("./stowage bench clients");
    assertThat(section("clients").selectFirst("p.env").text())
        .contains("commit 0123456789ab-dirty");
    assertThat(section("codecs").selectFirst("div.config").text())
        .contains("Row json (seed)", "codec json");
  }

  @Test
  void anUnknownBenchIsChartedFromTheNamesOfItsMetricsAndFlagsErrors() {
    Element spring = section("spring");
    assertThat(spring.select("svg.chart").eachAttr("data-metric"))
        .containsExactly("rps", "p99_ms", "value_bytes");
    assertThat(spring.selectFirst("svg.chart[data-metric=rps]").select("text.value").eachText())
        .containsExactly("2,000 /s \u00d71 seed", "3,000 /s \u00d71.50 \u26a0 3 errors");
    assertThat(spring.selectFirst("svg.chart[data-metric=p99_ms]").select("text.value").eachText())
        .containsExactly("8.00 ms \u00d71 seed", "4.00 ms \u00d70.50 \u26a0 3 errors");
  }

  @Test
  void textFromTheResultsIsEscapedAndThePageNeedsNothingOutsideItself() {
    assertThat(page.select("script")).isEmpty();
    assertThat(report.html())
        .doesNotContain("<script>")
        .contains("fory+&lt;script&gt;alert(1)&lt;/script&gt;");
    assertThat(section("codecs").select("rect.bar").eachAttr("data-name"))
        .filteredOn("fory+<script>alert(1)</script>"::equals)
        .hasSize(3 * 2);
    assertThat(page.select("[src]")).isEmpty();
    assertThat(page.select("link")).isEmpty();
    assertThat(page.select("a[href]").eachAttr("href"))
        .allMatch(href -> href.startsWith("#bench-"));
    assertThat(report.html()).doesNotContain("@import").doesNotContain("url(");
  }

  @Test
  void withoutAResultsDirectoryEveryTableIsNotRun() {
    Report empty =
        new ReportBuilder(SeedFigures.load(), TableSpec.known(), CLOCK)
            .build(temp.resolve("nothing"));
    assertThat(empty.tables()).isEmpty();
    assertThat(empty.notRun())
        .containsExactly(
            "memory",
            "http",
            "pipeline",
            "codecs",
            "clients",
            "app",
            "transport",
            "nearcache",
            "cluster");
    assertThat(empty.problems())
        .containsExactly(
            "no results directory "
                + temp.resolve("nothing")
                + ": run ./stowage bench <name> first");
    assertThat(Jsoup.parse(empty.html()).select("#headline td.none")).hasSize(9);
  }

  @Test
  void writeReplacesTheReportInOneMove() throws Exception {
    Path results = temp.resolve("results");
    Path target = results.resolve(ReportBuilder.FILE_NAME);
    Files.writeString(target, "old");
    Report written =
        new ReportBuilder(SeedFigures.load(), TableSpec.known(), CLOCK).write(results, target);
    assertThat(Files.readString(target)).isEqualTo(written.html()).startsWith("<!DOCTYPE html>");
    try (var listing = Files.list(results)) {
      assertThat(listing.map(p -> p.getFileName().toString()).filter(name -> name.endsWith(".tmp")))
          .isEmpty();
    }
    // The page itself is not a results file: building again reads the same tables.
    assertThat(
            new ReportBuilder(SeedFigures.load(), TableSpec.known(), CLOCK).build(results).tables())
        .isEqualTo(written.tables());
  }

  @Test
  void aRealQuickPipelineRunIsChartedWithItsLastGroupInTheHeadline() throws Exception {
    // Written by ./stowage bench pipeline --quick on the project's machine.
    Path results = Files.createDirectories(temp.resolve("real"));
    try (var in = getClass().getResourceAsStream("/report-fixtures-real/pipeline.json")) {
      Files.copy(in, results.resolve("pipeline.json"));
    }
    ResultsDocument document = ResultsDocument.read(results.resolve("pipeline.json"));
    Document real =
        Jsoup.parse(
            new ReportBuilder(SeedFigures.load(), TableSpec.known(), CLOCK).build(results).html());

    Element chart = real.selectFirst("#bench-pipeline svg.chart[data-metric=median_ms]");
    assertThat(chart.select("rect.bar[data-row]")).hasSize(document.rows().size());
    assertThat(chart.select("text.group").eachText())
        .containsExactly(
            "n = 10", "n = 100", "n = 1000", "n = 2000", "n = 5000", "n = 10000", "n = 30000");
    double seed = median(document, "spring-executePipelined", 30000);
    double defaults = median(document, "stowage-putAll", 30000);
    double best = median(document, "stowage-putAll-noExpiry", 30000);
    assertThat(best).as("the fixture's best row is not the defaults").isLessThan(defaults);
    // The headline's ratio is the defaults' (a TTL, as a user gets), the best row comes second.
    assertThat(real.selectFirst("#headline tr[data-bench=pipeline] td.ratio").text())
        .isEqualTo(Html.ratio(defaults / seed));
    assertThat(real.selectFirst("#headline tr[data-bench=pipeline]").text())
        .contains(
            "Stowage's defaults, stowage-putAll against spring-executePipelined",
            "n = 30000",
            "best Stowage row: stowage-putAll-noExpiry",
            Html.ratio(best / seed),
            "commit unknown");
  }

  private static double median(ResultsDocument document, String name, int n) {
    return document.rows().stream()
        .filter(row -> row.name().equals(name) && String.valueOf(n).equals(row.param("n")))
        .findFirst()
        .orElseThrow()
        .metric("median_ms")
        .orElseThrow();
  }

  @Test
  void theFullScaleMemoryChartAppearsOnlyWhenARunMeasuredIt() {
    Map<String, Number> quick =
        Map.of("add_ops_per_s", 900, "check_ops_per_s", 1_200, "bytes_per_person", 120);
    Path plain = temp.resolve("plain");
    new ResultsDocument(
            "app",
            true,
            Map.of(),
            List.of(
                new ResultRow("fastjson-string", RowRole.SEED, Map.of(), quick),
                new ResultRow("stowage", RowRole.STOWAGE, Map.of(), quick)))
        .writeTo(plain);
    Document withoutScale =
        Jsoup.parse(
            new ReportBuilder(SeedFigures.load(), TableSpec.known(), CLOCK).build(plain).html());
    assertThat(withoutScale.select("#bench-app svg.chart").eachAttr("data-metric"))
        .contains("bytes_per_person")
        .doesNotContain("scale_bytes_per_person");

    Path scaled = temp.resolve("scaled");
    Map<String, Number> seedAtScale = new LinkedHashMap<>(quick);
    seedAtScale.put("scale_bytes_per_person", 220.0);
    Map<String, Number> stowageAtScale = new LinkedHashMap<>(quick);
    stowageAtScale.put("scale_bytes_per_person", 110.0);
    new ResultsDocument(
            "app",
            false,
            Map.of(),
            List.of(
                new ResultRow("fastjson-string", RowRole.SEED, Map.of(), seedAtScale),
                new ResultRow("stowage", RowRole.STOWAGE, Map.of(), stowageAtScale)))
        .writeTo(scaled);
    Document withScale =
        Jsoup.parse(
            new ReportBuilder(SeedFigures.load(), TableSpec.known(), CLOCK).build(scaled).html());
    Element chart =
        withScale.selectFirst("#bench-app svg.chart[data-metric=scale_bytes_per_person]");
    assertThat(chart).as("the full-scale chart").isNotNull();
    assertThat(chart.select("rect.bar[data-row]")).hasSize(2);
    assertThat(chart.text()).contains("220").contains("110").contains("0.5");
  }

  @Test
  void aHeadlineWhereStowageIsBehindIsMarkedSo() {
    Path results = temp.resolve("behind");
    new ResultsDocument(
            "clients",
            true,
            Map.of(),
            List.of(
                new ResultRow(
                    "lettuce-shared", RowRole.SEED, Map.of(), Map.of("ops_per_s", 70_000)),
                new ResultRow("stowage", RowRole.STOWAGE, Map.of(), Map.of("ops_per_s", 35_000))))
        .writeTo(results);
    Document behind =
        Jsoup.parse(
            new ReportBuilder(SeedFigures.load(), TableSpec.known(), CLOCK).build(results).html());
    Element ratio = behind.selectFirst("#headline tr[data-bench=clients] td.ratio");
    assertThat(ratio).isNotNull();
    assertThat(ratio.text()).isEqualTo("\u00d70.50");
    assertThat(ratio.hasClass("behind")).isTrue();
    assertThat(ratio.hasClass("ahead")).isFalse();
  }

  @Test
  void withoutTheDefaultsRowTheHeadlineGivesTheBestRowAndSaysSo() {
    Path results = temp.resolve("no-defaults");
    new ResultsDocument(
            "nearcache",
            true,
            Map.of(),
            List.of(
                new ResultRow("stowage", RowRole.STOWAGE, Map.of(), Map.of("reads_per_s", 100)),
                new ResultRow(
                    "lettuce-client-side-caching",
                    RowRole.PEER,
                    Map.of(),
                    Map.of("reads_per_s", 5_000))))
        .writeTo(results);
    assertThat(headlineOf(results, "nearcache").text())
        .contains("best Stowage row (its defaults were not in this run), stowage against stowage");
  }

  private Element pipelineHeadline(String name, double median, double min, double max) {
    Path results = temp.resolve("spread-" + name + "-" + median);
    new ResultsDocument(
            "pipeline",
            true,
            Map.of(),
            List.of(
                new ResultRow(
                    "spring-executePipelined",
                    RowRole.SEED,
                    Map.of("n", 30000),
                    Map.of("median_ms", 100.0, "min_ms", 90.0, "max_ms", 110.0, "runs", 3)),
                new ResultRow(
                    name,
                    RowRole.STOWAGE,
                    Map.of("n", 30000),
                    Map.of("median_ms", median, "min_ms", min, "max_ms", max, "runs", 3))))
        .writeTo(results);
    return headlineOf(results, "pipeline");
  }

  /** The headline row of {@code bench} in a report built from {@code results}. */
  private static Element headlineOf(Path results, String bench) {
    Element row =
        Jsoup.parse(
                new ReportBuilder(SeedFigures.load(), TableSpec.known(), CLOCK)
                    .build(results)
                    .html())
            .selectFirst("#headline tr[data-bench=" + bench + "]");
    assertThat(row).as("headline row of " + bench).isNotNull();
    return row;
  }

  @Test
  void aHeadlineRatioWhoseSpreadCrossesOneIsATieInNeitherColour() {
    // 95 ms against 100: ahead by its medians, but its rounds (80 to 115) and the seed's (90 to
    // 110) overlap, so the ratio ranges from 80/110 to 115/90.
    Element tie = pipelineHeadline("stowage-putAll", 95, 80, 115);
    Element ratio = tie.selectFirst("td.ratio");
    assertThat(ratio.text()).isEqualTo("\u00d70.95");
    assertThat(ratio.classNames()).contains("tie").doesNotContain("ahead", "behind");
    assertThat(tie.text()).contains("a tie: from \u00d70.73 to \u00d71.28 over 3 rounds");

    Element ahead = pipelineHeadline("stowage-putAll", 50, 45, 55);
    assertThat(ahead.selectFirst("td.ratio").classNames()).contains("ahead").doesNotContain("tie");
    assertThat(ahead.text())
        .contains("from \u00d70.41 to \u00d70.61 over 3 rounds")
        .doesNotContain("a tie");
  }

  @Test
  void aHeadlineFromOneRoundSaysItHasNoSpread() {
    assertThat(headlineRow("clients").text()).contains("one round, no spread measured");
  }

  @Test
  void verdictsSayWhichWayIsBetter() {
    assertThat(ReportBuilder.verdict(MetricKind.TIME, 0.25)).isEqualTo("4.00\u00d7 faster");
    assertThat(ReportBuilder.verdict(MetricKind.LATENCY, 2.0)).isEqualTo("2.00\u00d7 slower");
    assertThat(ReportBuilder.verdict(MetricKind.MEMORY, 0.62)).isEqualTo("38% less memory");
    assertThat(ReportBuilder.verdict(MetricKind.BYTES, 1.1)).isEqualTo("10% more bytes");
    assertThat(ReportBuilder.verdict(MetricKind.THROUGHPUT, 1.8))
        .isEqualTo("1.80\u00d7 the throughput");
    assertThat(List.of(MetricKind.values()))
        .filteredOn(MetricKind::higherIsBetter)
        .containsExactly(MetricKind.THROUGHPUT);
  }
}
