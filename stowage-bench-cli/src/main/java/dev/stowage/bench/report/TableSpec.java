package dev.stowage.bench.report;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.app.AppBench;
import dev.stowage.bench.clients.ClientsBench;
import dev.stowage.bench.cluster.ClusterBench;
import dev.stowage.bench.codecs.CodecsBench;
import dev.stowage.bench.http.HttpBench;
import dev.stowage.bench.memory.MemoryBench;
import dev.stowage.bench.memory.RecordKind;
import dev.stowage.bench.nearcache.NearCacheBench;
import dev.stowage.bench.pipeline.PipelineBench;
import dev.stowage.bench.transport.TransportBench;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * How the report shows one bench's table: its title, the seed tables it reproduces, which row is
 * the seed's configuration that every ratio is taken against, how rows are grouped, and which
 * metrics are charted. The first chart's metric is the table's headline.
 *
 * <p>The baseline of a row is the first row named in {@code baselineNames} (the first name present
 * in the results wins) whose params equal the row's on every key of {@code matchKeys}, as in the
 * bench's own terminal table.
 *
 * @param bench the subcommand, such as {@code "pipeline"}
 * @param title a short title
 * @param seedTables the ids of the seed tables it reproduces, such as {@code "T2"}; may be empty
 * @param baselineNames candidate names of the baseline row, in order of preference
 * @param defaultRows the names of the row that measures Stowage's default configuration, in order
 *     of preference (the first present in the headline's group wins); a row whose params carry
 *     {@code stowage_default} is one too, after these, {@code learned} first. The headline compares
 *     it, and gives the best Stowage row as a second figure.
 * @param matchKeys the params a baseline must share with the row it is compared with
 * @param groupKey the param that splits the rows into groups, or {@code null} for one group
 * @param headlineLastGroup whether the headline compares the last group's rows (else the first's)
 * @param charts the charts, headline first; never empty
 */
public record TableSpec(
    String bench,
    String title,
    List<String> seedTables,
    List<String> baselineNames,
    List<String> defaultRows,
    List<String> matchKeys,
    @Nullable String groupKey,
    boolean headlineLastGroup,
    List<ChartSpec> charts) {

  private static final Pattern THROUGHPUT = Pattern.compile("(.*_)?(rps|ops_per_s|per_s)");
  private static final Pattern LATENCY = Pattern.compile("(.*_)?p\\d+(_\\w+)?_(ms|us|ns)");
  private static final Pattern TIME = Pattern.compile(".*_(ms|us|ns)");
  private static final Pattern MEMORY = Pattern.compile(".*(memory|_mb).*");
  private static final Pattern BYTES = Pattern.compile("(.*bytes.*|size.*)");
  private static final int GENERIC_CHARTS = 6;

  /** Copies the lists and checks that there is at least one chart. */
  public TableSpec {
    Objects.requireNonNull(bench, "bench");
    Objects.requireNonNull(title, "title");
    seedTables = List.copyOf(seedTables);
    baselineNames = List.copyOf(baselineNames);
    defaultRows = List.copyOf(defaultRows);
    matchKeys = List.copyOf(matchKeys);
    charts = List.copyOf(charts);
    if (charts.isEmpty()) {
      throw new IllegalArgumentException("table '" + bench + "' needs at least one chart");
    }
  }

  /** The metric that the headline compares: the first chart's. */
  public ChartSpec headline() {
    return charts.get(0);
  }

  /** The tables of the benches {@code stowage bench} has, in the order of the seed tables. */
  public static List<TableSpec> known() {
    return List.of(
        new TableSpec(
            MemoryBench.BENCH_NAME,
            "Redis memory per layout and codec",
            List.of("T1", "T5"),
            List.of(
                MemoryBench.baselineRow(RecordKind.BOARD),
                MemoryBench.baselineRow(RecordKind.PERSON)),
            List.of("zset/msgpack-compact+zstd-dict", "keys/msgpack-compact+zstd-dict"),
            List.of(),
            "layout",
            false,
            List.of(
                new ChartSpec("used_memory_mb", "Redis used memory", "MB", MetricKind.MEMORY),
                new ChartSpec("bytes_per_record", "bytes per record", "B", MetricKind.BYTES))),
        new TableSpec(
            "http",
            "Board service over HTTP under load",
            List.of("T1"),
            List.of(HttpBench.BASELINE),
            List.of(HttpBench.STOWAGE_ROW),
            List.of("load"),
            "load",
            // The rows come writes first, reads last; the seed's table is about reads.
            true,
            List.of(
                new ChartSpec("rps", "requests per second", "/s", MetricKind.THROUGHPUT),
                new ChartSpec("p50_ms", "p50 latency", "ms", MetricKind.LATENCY),
                new ChartSpec("p95_ms", "p95 latency", "ms", MetricKind.LATENCY),
                new ChartSpec("p99_ms", "p99 latency", "ms", MetricKind.LATENCY),
                new ChartSpec(
                    "redis_used_memory_mb", "Redis used memory", "MB", MetricKind.MEMORY))),
        new TableSpec(
            PipelineBench.BENCH_NAME,
            "Pipelined bulk writes of N items",
            List.of("T2"),
            List.of(PipelineBench.BASELINE_ROW),
            List.of(PipelineBench.DEFAULT_ROW),
            List.of("n"),
            "n",
            true,
            List.of(
                new ChartSpec("median_ms", "median time to write N items", "ms", MetricKind.TIME))),
        new TableSpec(
            CodecsBench.BENCH_NAME,
            "Codec cost and size",
            List.of("T3"),
            List.of(CodecsBench.BASELINE_ROW),
            List.of(),
            List.of("data"),
            "data",
            false,
            List.of(
                new ChartSpec(
                    "total_ns", "create + serialize + deserialize", "ns", MetricKind.TIME),
                new ChartSpec("size", "encoded size", "B", MetricKind.BYTES),
                new ChartSpec("size_deflate", "size after deflate", "B", MetricKind.BYTES))),
        new TableSpec(
            ClientsBench.BENCH_NAME,
            "GET throughput per Redis client",
            List.of("T4"),
            List.of(ClientsBench.BASELINE_ROW),
            List.of(ClientsBench.STOWAGE_ROW),
            List.of(),
            null,
            false,
            List.of(
                new ChartSpec("ops_per_s", "GETs per second", "/s", MetricKind.THROUGHPUT),
                new ChartSpec("p50_ms", "p50 latency", "ms", MetricKind.LATENCY),
                new ChartSpec("p99_ms", "p99 latency", "ms", MetricKind.LATENCY),
                new ChartSpec(
                    "client_cpu_us_per_op", "client CPU per GET", "\u00b5s", MetricKind.TIME))),
        new TableSpec(
            AppBench.BENCH_NAME,
            "The seed's Person app: add and check 100 people a request",
            List.of("T5"),
            List.of(AppBench.BASELINE_ROW),
            List.of(AppBench.STOWAGE_ROW),
            List.of(),
            null,
            false,
            List.of(
                new ChartSpec(
                    "add_ops_per_s", "add requests per second", "/s", MetricKind.THROUGHPUT),
                new ChartSpec(
                    "check_ops_per_s", "check requests per second", "/s", MetricKind.THROUGHPUT),
                new ChartSpec("add_p50_ms", "add p50 latency", "ms", MetricKind.LATENCY),
                new ChartSpec("add_p99_ms", "add p99 latency", "ms", MetricKind.LATENCY),
                new ChartSpec("check_p50_ms", "check p50 latency", "ms", MetricKind.LATENCY),
                new ChartSpec("check_p99_ms", "check p99 latency", "ms", MetricKind.LATENCY),
                new ChartSpec(
                    "bytes_per_person", "Redis memory per person", "B", MetricKind.MEMORY),
                ChartSpec.whenMeasured(
                    "scale_bytes_per_person",
                    "Redis memory per person at full scale (--records)",
                    "B",
                    MetricKind.MEMORY))),
        new TableSpec(
            TransportBench.BENCH_NAME,
            "Board reads and writes over HTTP and over Stowage's TCP protocol",
            List.of("T6"),
            List.of(TransportBench.BASELINE),
            List.of(TransportBench.Transport.TCP.label()),
            List.of("operation", "users"),
            "cell",
            false,
            List.of(
                new ChartSpec("rps", "requests per second", "/s", MetricKind.THROUGHPUT),
                new ChartSpec("p50_ms", "p50 latency", "ms", MetricKind.LATENCY),
                new ChartSpec("p99_ms", "p99 latency", "ms", MetricKind.LATENCY),
                new ChartSpec(
                    "wire_bytes_per_request", "wire bytes per request", "B", MetricKind.BYTES))),
        new TableSpec(
            NearCacheBench.BENCH_NAME,
            "Near-cache reads while keys are updated",
            List.of(),
            List.of(NearCacheBench.BASELINE_ROW),
            List.of(NearCacheBench.NEAR_ROW),
            List.of(),
            null,
            false,
            List.of(
                new ChartSpec("reads_per_s", "reads per second", "/s", MetricKind.THROUGHPUT),
                new ChartSpec("p50_us", "p50 latency", "\u00b5s", MetricKind.LATENCY),
                new ChartSpec("p99_us", "p99 latency", "\u00b5s", MetricKind.LATENCY))),
        new TableSpec(
            ClusterBench.BENCH_NAME,
            "Bulk and single reads and writes on one server and on a three-master cluster",
            List.of(),
            List.of(ClusterBench.BASELINE_ROW),
            List.of(ClusterBench.DEFAULT_ROW),
            List.of("topology"),
            "topology",
            true,
            List.of(
                new ChartSpec("putall_ms", "putAll of N items", "ms", MetricKind.TIME),
                new ChartSpec("getall_ms", "getAll of N items", "ms", MetricKind.TIME),
                new ChartSpec(
                    "get_ops_per_s", "random GETs per second", "/s", MetricKind.THROUGHPUT),
                new ChartSpec("get_p50_ms", "GET p50 latency", "ms", MetricKind.LATENCY),
                new ChartSpec("get_p99_ms", "GET p99 latency", "ms", MetricKind.LATENCY))));
  }

  /** The known table of this bench, if the report knows it. */
  public static Optional<TableSpec> knownFor(String bench) {
    return known().stream().filter(spec -> spec.bench().equals(bench)).findFirst();
  }

  /**
   * A spec for a bench the report does not know, read off its results: the first {@code seed} row
   * is the baseline (else the first row), rows form one group, and up to six metrics are charted
   * whose names say what they measure ({@code rps}, {@code *_per_s}, {@code p99_ms}, {@code *_ms},
   * {@code *bytes*}, {@code *memory*}, ...), in their order of appearance.
   *
   * @throws IllegalArgumentException if no row has a metric whose name says what it measures
   */
  public static TableSpec generic(ResultsDocument document) {
    List<ResultRow> rows = document.rows();
    String baseline =
        rows.stream()
            .filter(row -> row.role() == RowRole.SEED)
            .map(ResultRow::name)
            .findFirst()
            .orElse(rows.isEmpty() ? "" : rows.get(0).name());
    Set<String> keys = new LinkedHashSet<>();
    rows.forEach(row -> keys.addAll(row.metrics().keySet()));
    List<ChartSpec> charts = new ArrayList<>();
    for (String key : keys) {
      MetricKind kind = kindOf(key);
      if (kind != null && charts.size() < GENERIC_CHARTS) {
        charts.add(new ChartSpec(key, key.replace('_', ' '), unitOf(key, kind), kind));
      }
    }
    if (charts.isEmpty()) {
      throw new IllegalArgumentException(
          "no metric of bench '"
              + document.bench()
              + "' says what it measures (such as rps, *_per_s, *_ms, *bytes*); metrics: "
              + keys);
    }
    return new TableSpec(
        document.bench(),
        "bench " + document.bench(),
        List.of(),
        List.of(baseline),
        List.of(),
        List.of(),
        null,
        false,
        charts);
  }

  /** What a metric measures, judged by its name, or {@code null} when the name does not say. */
  static @Nullable MetricKind kindOf(String key) {
    String name = key.toLowerCase(Locale.ROOT);
    if (THROUGHPUT.matcher(name).matches()) {
      return MetricKind.THROUGHPUT;
    }
    if (LATENCY.matcher(name).matches()) {
      return MetricKind.LATENCY;
    }
    if (MEMORY.matcher(name).matches()) {
      return MetricKind.MEMORY;
    }
    if (TIME.matcher(name).matches()) {
      return MetricKind.TIME;
    }
    if (BYTES.matcher(name).matches()) {
      return MetricKind.BYTES;
    }
    return null;
  }

  private static String unitOf(String key, MetricKind kind) {
    if (kind == MetricKind.THROUGHPUT) {
      return "/s";
    }
    if (key.endsWith("_ms")) {
      return "ms";
    }
    if (key.endsWith("_us")) {
      return "\u00b5s";
    }
    if (key.endsWith("_ns")) {
      return "ns";
    }
    if (key.endsWith("_mb")) {
      return "MB";
    }
    return kind == MetricKind.BYTES || kind == MetricKind.MEMORY ? "B" : "";
  }
}
