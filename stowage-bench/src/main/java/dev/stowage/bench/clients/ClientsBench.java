package dev.stowage.bench.clients;

import dev.stowage.Encoding;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.BulkLoader;
import dev.stowage.bench.ClosedLoop;
import dev.stowage.bench.Figures;
import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.RedisTarget;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs table T4 ({@code stowage bench clients}): loads N items (Stowage's default envelope, compact
 * MessagePack with zstd), then for each client runs a warm-up and a timed closed loop of GETs of
 * random keys from many caller threads, and finally {@code redis-benchmark} with the same number of
 * connections when it is on the PATH.
 *
 * <p>Each row reports GETs per second, p50 and p99 latency, the connections Redis accepted while
 * the row's client was created and used ({@code total_connections_received} before and after), and
 * this JVM's CPU time while the loop ran. Every value read is decoded; a missing key fails the run.
 */
public final class ClientsBench {

  /** The bench name: results go to {@code clients.json}. */
  public static final String BENCH_NAME = "clients";

  /**
   * Every key starts with this; the rest is a zero-padded 12-digit index, as redis-benchmark's
   * {@code __rand_int__}.
   */
  public static final String KEY_PREFIX = "stowage-bench:clients:key:";

  /** The seed's concurrency: 740 virtual users. */
  public static final int SEED_CONCURRENCY = 740;

  /** The row ratios compare with: one shared Lettuce connection. */
  public static final String BASELINE_ROW = SpringGetClient.LETTUCE_SHARED;

  /** Stowage's row: {@code RedisCache.get} with the defaults. */
  public static final String STOWAGE_ROW = StowageGetClient.NAME;

  /** The limit row's name. */
  public static final String REDIS_BENCHMARK_ROW = "redis-benchmark";

  private static final int TEMPLATES = 10_000;
  private static final int LOAD_CHUNK = 2_000;
  private static final int LOAD_WINDOW = 8;

  private ClientsBench() {}

  /**
   * What to run.
   *
   * @param keys how many keys to load
   * @param concurrency caller threads (and redis-benchmark connections)
   * @param warmup untimed loop per row
   * @param duration timed loop per row
   * @param quick whether this is a {@code --quick} run
   * @param rows only these rows (empty: all)
   * @param redisBenchmark the redis-benchmark executable, or empty to skip that row
   * @param keepKeys leave the loaded keys in Redis (for tests)
   */
  public record Plan(
      long keys,
      int concurrency,
      Duration warmup,
      Duration duration,
      boolean quick,
      List<String> rows,
      Optional<Path> redisBenchmark,
      boolean keepKeys) {
    public Plan {
      rows = List.copyOf(rows);
      Objects.requireNonNull(redisBenchmark, "redisBenchmark");
      if (keys < 1 || keys > 999_999_999_999L) {
        throw new IllegalArgumentException(
            "keys must be between 1 and 999,999,999,999, not " + keys);
      }
      if (concurrency < 1) {
        throw new IllegalArgumentException("concurrency must be at least 1, not " + concurrency);
      }
    }

    /** 1M keys (quick: 100k), the seed's 740 callers, 5 s + 20 s per row (quick: 2 s + 6 s). */
    public static Plan defaults(boolean quick) {
      return quick
          ? new Plan(
              100_000,
              SEED_CONCURRENCY,
              Duration.ofSeconds(2),
              Duration.ofSeconds(6),
              true,
              List.of(),
              findOnPath("redis-benchmark"),
              false)
          : new Plan(
              1_000_000,
              SEED_CONCURRENCY,
              Duration.ofSeconds(5),
              Duration.ofSeconds(20),
              false,
              List.of(),
              findOnPath("redis-benchmark"),
              false);
    }
  }

  /** The client rows, in table order (redis-benchmark comes last when it runs). */
  public static List<String> rowNames() {
    return List.of(
        SpringGetClient.JEDIS_DEFAULT,
        SpringGetClient.JEDIS_POOL_128,
        SpringGetClient.LETTUCE_SHARED,
        StowageGetClient.NAME,
        REDIS_BENCHMARK_ROW);
  }

  /** The key suffix of index {@code i}: 12 digits, zero-padded. */
  public static String keySuffix(long index) {
    String digits = Long.toString(index);
    return "0".repeat(Math.max(0, 12 - digits.length())) + digits;
  }

  /**
   * The value stored at index {@code i}: a copy of one of 10,000 sample items with id {@code i}.
   */
  static Item item(List<Item> templates, long index) {
    Item t = templates.get((int) (index % templates.size()));
    return new Item(index, t.name(), t.description(), t.price(), t.stock());
  }

  /** The envelope that values are stored in: Stowage's default codec and compression. */
  static Encoding.Serializer<Item> envelope() {
    return Encoding.of(Codecs.defaultFor(Item.class))
        .compression(Compression.standard())
        .serializer();
  }

  /**
   * Runs the plan.
   *
   * @throws BenchmarkRunException if loading, a client or redis-benchmark fails
   */
  public static ResultsDocument run(Plan plan, BenchRedis redis, PrintStream progressOut) {
    List<String> chosen = plan.rows().isEmpty() ? rowNames() : plan.rows();
    for (String name : chosen) {
      if (!rowNames().contains(name)) {
        throw new IllegalArgumentException(
            "unknown row '" + name + "'; choose from " + String.join(", ", rowNames()));
      }
    }
    List<String> clientRows = chosen.stream().filter(n -> !n.equals(REDIS_BENCHMARK_ROW)).toList();
    boolean benchmarkRow =
        chosen.contains(REDIS_BENCHMARK_ROW) && plan.redisBenchmark().isPresent();
    ProgressReporter progress =
        new ProgressReporter(1 + clientRows.size() + (benchmarkRow ? 1 : 0), progressOut);
    Encoding.Serializer<Item> codec = envelope();
    List<Item> templates = Samples.items(TEMPLATES);
    List<ResultRow> rows = new ArrayList<>();
    try {
      redis.clear(KEY_PREFIX);
      LoadFigures loaded = load(plan.keys(), templates, codec, redis, progressOut);
      progress.finished(String.format(Locale.ROOT, "loaded %,d keys", plan.keys()));
      for (String name : clientRows) {
        rows.add(measure(name, plan, redis, codec, templates, loaded));
        progress.finished(
            name
                + String.format(
                    Locale.ROOT,
                    "  %,.0f GET/s",
                    rows.get(rows.size() - 1).metric("ops_per_s").orElse(0)));
      }
      if (benchmarkRow) {
        rows.add(redisBenchmark(plan, redis, loaded));
        progress.finished(
            REDIS_BENCHMARK_ROW
                + String.format(
                    Locale.ROOT,
                    "  %,.0f GET/s",
                    rows.get(rows.size() - 1).metric("ops_per_s").orElse(0)));
      }
      if (!plan.keepKeys()) {
        redis.clear(KEY_PREFIX);
      }
    } catch (BenchmarkRunException e) {
      throw e;
    } catch (Exception e) {
      throw new BenchmarkRunException("bench clients failed: " + e, e);
    }
    return new ResultsDocument(
        BENCH_NAME,
        plan.quick(),
        RunEnvironment.capture(redis.version(), Clock.system(ZoneId.systemDefault())),
        rows);
  }

  /** The terminal table, ratios against one shared Lettuce connection. */
  public static ResultTable table() {
    return ResultTable.builder()
        .text("client", ResultRow::name)
        .text("role", row -> row.role().jsonName())
        .metric("GET/s", "ops_per_s", 0)
        .ratio("x lettuce", "ops_per_s")
        .metric("p50 ms", "p50_ms", 3)
        .metric("p99 ms", "p99_ms", 3)
        .metric("conns", "connections_opened", 0)
        .metric("CPU %", "client_cpu_pct", 0)
        .metric("CPU us/GET", "client_cpu_us_per_op", 1)
        .baseline(BASELINE_ROW)
        .build();
  }

  /**
   * Loads the keys, one {@code MSET} per chunk with a window of chunks in flight, and measures what
   * they cost: Redis's {@code used_memory} growth per key and the load rate.
   */
  @SuppressWarnings(
      "ArrayAsKeyOfSetOrMap") // distinct keys by construction, handed to Lettuce's mset as they are
  private static LoadFigures load(
      long keys,
      List<Item> templates,
      Encoding.Serializer<Item> codec,
      BenchRedis redis,
      PrintStream progressOut) {
    redis.awaitLazyFree();
    long before = redis.usedMemory();
    BulkLoader.Loaded loaded =
        new BulkLoader("keys", LOAD_CHUNK, LOAD_WINDOW, progressOut)
            .load(
                keys,
                Duration.ofMinutes(1),
                (first, count) -> {
                  Map<byte[], byte[]> chunk = new LinkedHashMap<>(count * 2);
                  for (long i = first; i < first + count; i++) {
                    chunk.put(
                        (KEY_PREFIX + keySuffix(i)).getBytes(StandardCharsets.UTF_8),
                        codec.encode(item(templates, i)));
                  }
                  return redis.mset(chunk);
                });
    LoadFigures figures =
        new LoadFigures(loaded.perSecond(), (redis.usedMemory() - before) / (double) keys);
    progressOut.printf(
        Locale.ROOT,
        "[load] %,d keys in %s: %,.0f keys/s, Redis used_memory %,.1f B per key%n",
        keys,
        ProgressReporter.format(loaded.took()),
        figures.keysPerSecond(),
        figures.bytesPerKey());
    return figures;
  }

  /** What loading cost: keys per second, and {@code used_memory} growth per key. */
  private record LoadFigures(double keysPerSecond, double bytesPerKey) {
    void describe(Map<String, Object> params) {
      params.put("load_keys_per_s", Math.round(keysPerSecond));
      params.put("used_memory_bytes_per_key", Math.round(bytesPerKey * 10) / 10.0);
    }
  }

  private static ResultRow measure(
      String name,
      Plan plan,
      BenchRedis redis,
      Encoding.Serializer<Item> codec,
      List<Item> templates,
      LoadFigures loaded) {
    long connectionsBefore = redis.totalConnectionsReceived();
    GetClient client =
        name.equals(StowageGetClient.NAME)
            ? new StowageGetClient(redis.uri(), KEY_PREFIX)
            : new SpringGetClient(name, redis.redisUri(), codec, KEY_PREFIX);
    AtomicLong misses = new AtomicLong();
    SplittableRandom seeds = new SplittableRandom(42);
    SplittableRandom[] randoms = new SplittableRandom[plan.concurrency()];
    for (int t = 0; t < randoms.length; t++) {
      randoms[t] = seeds.split();
    }
    long checkEvery = Math.max(1, plan.keys() / 1_000);
    ClosedLoop.Operation get =
        (thread, sequence) -> {
          long index = randoms[thread].nextLong(plan.keys());
          Object value = client.get(index);
          if (value == null) {
            misses.incrementAndGet();
          } else if (index % checkEvery == 0 && !value.equals(item(templates, index))) {
            throw new IllegalStateException(name + " read key " + index + " as " + value);
          }
        };
    try {
      ClosedLoop.run(name + "-warmup", plan.concurrency(), Long.MAX_VALUE, plan.warmup(), get);
      ClosedLoop.Result result =
          ClosedLoop.run(
              name, plan.concurrency(), Long.MAX_VALUE, plan.duration(), ClosedLoop.ROUNDS, get);
      long connections = redis.totalConnectionsReceived() - connectionsBefore;
      if (misses.get() > 0) {
        throw new BenchmarkRunException(
            name + " missed " + misses.get() + " of the loaded keys", null);
      }
      Map<String, Object> params = new LinkedHashMap<>(client.params());
      params.put("keys", plan.keys());
      loaded.describe(params);
      params.put("concurrency", plan.concurrency());
      Map<String, Number> metrics = new LinkedHashMap<>();
      metrics.put("ops", result.operations());
      metrics.put("ops_per_s", Figures.round(result.opsPerSecond(), 1));
      result.putRounds(metrics, "ops_per_s");
      metrics.put("p50_ms", Figures.round(result.percentileMillis(50), 3));
      metrics.put("p99_ms", Figures.round(result.percentileMillis(99), 3));
      metrics.put("connections_opened", connections);
      metrics.put("client_cpu_pct", Figures.round(result.cpuPercentOfOneCore(), 1));
      metrics.put(
          "client_cpu_us_per_op",
          result.operations() == 0
              ? 0
              : Figures.round(result.processCpuNanos() / 1e3 / result.operations(), 2));
      metrics.put("misses", misses.get());
      return new ResultRow(name, client.role(), params, metrics);
    } finally {
      client.close();
    }
  }

  /** Runs redis-benchmark: GET of random loaded keys, as many connections as callers. */
  private static ResultRow redisBenchmark(Plan plan, BenchRedis redis, LoadFigures loaded)
      throws IOException, InterruptedException {
    // Size the request count so that the run lasts about as long as the other rows' timed loops.
    long requests = Math.max(10_000L, plan.duration().toSeconds() * 60_000L);
    List<String> command = new ArrayList<>();
    command.add(plan.redisBenchmark().orElseThrow().toString());
    command.addAll(new RedisTarget(redis.redisUri()).redisBenchmarkOptions());
    command.addAll(
        List.of(
            "-c",
            Integer.toString(plan.concurrency()),
            "-n",
            Long.toString(requests),
            "-r",
            Long.toString(plan.keys()),
            "--csv",
            "GET",
            KEY_PREFIX + "__rand_int__"));
    long connectionsBefore = redis.totalConnectionsReceived();
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new BenchmarkRunException(
          "redis-benchmark failed: " + String.join(" ", command) + "\n" + output, null);
    }
    long connections = redis.totalConnectionsReceived() - connectionsBefore;
    Map<String, Double> csv = parseCsv(output);
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("client", "redis-benchmark (C, one event loop)");
    params.put("pool", plan.concurrency() + " connections");
    params.put("keys", plan.keys());
    loaded.describe(params);
    params.put("concurrency", plan.concurrency());
    Map<String, Number> metrics = new LinkedHashMap<>();
    metrics.put("ops", requests);
    metrics.put("ops_per_s", csv.get("rps"));
    metrics.put("p50_ms", csv.get("p50_latency_ms"));
    metrics.put("p99_ms", csv.get("p99_latency_ms"));
    metrics.put("connections_opened", connections);
    return new ResultRow(REDIS_BENCHMARK_ROW, RowRole.LIMIT, params, metrics);
  }

  /** The numbers of redis-benchmark's {@code --csv} output, by column name. */
  static Map<String, Double> parseCsv(String output) {
    List<String> lines = output.lines().map(String::strip).filter(l -> l.startsWith("\"")).toList();
    if (lines.size() < 2) {
      throw new BenchmarkRunException("redis-benchmark printed no CSV result:\n" + output, null);
    }
    String[] header = lines.get(0).replace("\"", "").split(",");
    String[] values = lines.get(1).replace("\"", "").split(",");
    Map<String, Double> out = new LinkedHashMap<>();
    for (int i = 1; i < Math.min(header.length, values.length); i++) {
      out.put(header[i], Double.parseDouble(values[i]));
    }
    if (!out.containsKey("rps")) {
      throw new BenchmarkRunException("redis-benchmark's CSV has no rps column:\n" + output, null);
    }
    return out;
  }

  /** The executable's path if it is on the PATH. */
  public static Optional<Path> findOnPath(String executable) {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      Path candidate = Path.of(dir, executable);
      if (Files.isExecutable(candidate)) {
        return Optional.of(candidate);
      }
    }
    return Optional.empty();
  }
}
