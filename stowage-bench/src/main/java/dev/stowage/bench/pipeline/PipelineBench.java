package dev.stowage.bench.pipeline;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.Figures;
import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import java.io.PrintStream;
import java.time.Clock;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * Runs table T2 ({@code stowage bench pipeline}): for each N, every writer writes N items, after
 * warm-up runs, several times; the row keeps the median time.
 *
 * <p>Every writer is warmed up first; then the timed runs take turns (each writer once, then each
 * again), so that load from other processes on a shared machine falls on every row alike. Before
 * every run the writer's keys are removed (on an embedded server with {@code FLUSHALL}, on a
 * borrowed one by prefix), so each run writes fresh keys. After the timed runs of each N the writer
 * writes once more, and its keys are counted and read back through its own client and compared with
 * the items written: the row's {@code keys} and {@code verified} metrics say what was found.
 */
public final class PipelineBench {

  /** The bench name: results go to {@code pipeline.json}. */
  public static final String BENCH_NAME = "pipeline";

  /** The N of the seed's table. */
  public static final List<Integer> SEED_SIZES =
      List.of(10, 100, 1_000, 2_000, 5_000, 10_000, 30_000);

  /** The row the ratio column compares with: the seed's {@code executePipelined}. */
  public static final String BASELINE_ROW = SpringPipelinedWriter.NAME;

  /** Stowage's row with its defaults (a TTL of one hour, jittered). */
  public static final String DEFAULT_ROW = StowagePutAllWriter.NAME;

  /** The row {@code x_limit} compares with. */
  public static final String LIMIT_ROW = LettuceRawWriter.NAME;

  /** The prefix of every key this bench writes. */
  public static final String KEY_PREFIX = "stowage-bench:pipeline:";

  /** How many keys of each row are read back and compared, at most. */
  static final int VERIFY_AT_MOST = 1_000;

  private PipelineBench() {}

  /**
   * What to run.
   *
   * @param sizes the N, in table order
   * @param warmups untimed runs per writer and N
   * @param repeats timed runs per writer and N; the median is reported
   * @param quick whether this is a {@code --quick} run (recorded in the results)
   * @param rows the rows to run, by name (empty: all)
   * @param keepKeys leave the last N's keys in Redis at the end (for tests); otherwise they are
   *     removed
   */
  public record Plan(
      List<Integer> sizes,
      int warmups,
      int repeats,
      boolean quick,
      List<String> rows,
      boolean keepKeys) {
    public Plan {
      sizes = List.copyOf(sizes);
      rows = List.copyOf(rows);
      if (sizes.isEmpty() || sizes.stream().anyMatch(n -> n < 1)) {
        throw new IllegalArgumentException("sizes must be positive and not empty: " + sizes);
      }
      if (warmups < 0 || repeats < 1) {
        throw new IllegalArgumentException(
            "need warmups >= 0 and repeats >= 1, not " + warmups + " and " + repeats);
      }
    }

    /** The seed's sizes; quick runs repeat 3 times after 1 warm-up, full runs 7 times after 3. */
    public static Plan defaults(boolean quick) {
      return quick
          ? new Plan(SEED_SIZES, 1, 3, true, List.of(), false)
          : new Plan(SEED_SIZES, 3, 7, false, List.of(), false);
    }
  }

  /** The names of every row, in table order. */
  public static List<String> rowNames() {
    return List.of(
        SpringOneByOneWriter.NAME,
        SpringPipelinedWriter.NAME,
        RedissonBatchWriter.NAME,
        StowagePutAllWriter.NAME,
        StowagePutAllWriter.NO_EXPIRY_NAME,
        LettuceRawWriter.NAME);
  }

  /**
   * Runs the plan against {@code redis} and returns the results.
   *
   * @throws BenchmarkRunException if a writer fails or writes something that does not read back
   */
  public static ResultsDocument run(Plan plan, BenchRedis redis, PrintStream progressOut) {
    Objects.requireNonNull(plan, "plan");
    List<String> chosen = plan.rows().isEmpty() ? rowNames() : plan.rows();
    for (String name : chosen) {
      if (!rowNames().contains(name)) {
        throw new IllegalArgumentException(
            "unknown row '" + name + "'; choose from " + String.join(", ", rowNames()));
      }
    }
    int maxN = plan.sizes().stream().mapToInt(Integer::intValue).max().orElseThrow();
    List<Item> all = Samples.items(maxN);
    List<BulkWriter> writers = new ArrayList<>();
    List<ResultRow> rows = new ArrayList<>();
    try {
      for (String name : chosen) {
        writers.add(open(name, redis));
      }
      for (BulkWriter writer : writers) {
        if (writer instanceof LettuceRawWriter raw) {
          raw.prepare(all);
        }
      }
      ProgressReporter progress =
          new ProgressReporter(writers.size() * plan.sizes().size(), progressOut);
      for (int n : plan.sizes()) {
        List<Item> items = all.subList(0, n);
        // Warm every writer up, then interleave the timed runs (writer A, B, C, A, B, C, ...) so
        // that a noisy neighbour on a shared machine slows every row alike rather than one.
        for (BulkWriter writer : writers) {
          for (int run = 0; run < plan.warmups(); run++) {
            timedWrite(writer, items, redis);
          }
        }
        double[][] millis = new double[writers.size()][plan.repeats()];
        for (int run = 0; run < plan.repeats(); run++) {
          for (int w = 0; w < writers.size(); w++) {
            millis[w][run] = timedWrite(writers.get(w), items, redis);
          }
        }
        List<ResultRow> sizeRows = new ArrayList<>();
        for (int w = 0; w < writers.size(); w++) {
          BulkWriter writer = writers.get(w);
          String prefix = prefixOf(writer);
          redis.clear(prefix);
          writer.write(items, prefix);
          long keys = redis.countKeys(prefix);
          int verified = verify(writer, items, prefix);
          sizeRows.add(row(writer, n, millis[w], keys, verified));
          progress.finished(
              writer.name()
                  + " N="
                  + n
                  + "  "
                  + String.format(Locale.ROOT, "%.1f ms", Figures.median(millis[w])));
        }
        rows.addAll(withLimitRatio(sizeRows));
      }
      if (!plan.keepKeys()) {
        redis.clear(KEY_PREFIX);
      }
    } catch (BenchmarkRunException e) {
      throw e;
    } catch (Exception e) {
      throw new BenchmarkRunException("bench pipeline failed: " + e, e);
    } finally {
      writers.forEach(PipelineBench::closeQuietly);
    }
    return new ResultsDocument(
        BENCH_NAME,
        plan.quick(),
        RunEnvironment.capture(redis.version(), Clock.system(ZoneId.systemDefault())),
        rows);
  }

  /** The terminal table: one section per N, ratios against the seed's {@code executePipelined}. */
  public static ResultTable table() {
    return ResultTable.builder()
        .text("writer", ResultRow::name)
        .text("role", row -> row.role().jsonName())
        .metric("median ms", "median_ms", 1)
        .metric("min ms", "min_ms", 1)
        .metric("max ms", "max_ms", 1)
        .ratio("x pipelined", "median_ms")
        .metric("x limit", "x_limit", 2)
        .metric("keys", "keys", 0)
        .baseline(BASELINE_ROW, "n")
        .groupBy("n")
        .build();
  }

  private static String prefixOf(BulkWriter writer) {
    return KEY_PREFIX + writer.name() + ":item:";
  }

  /** Clears the writer's keys, then writes the items; returns the milliseconds the write took. */
  private static double timedWrite(BulkWriter writer, List<Item> items, BenchRedis redis)
      throws Exception {
    String prefix = prefixOf(writer);
    redis.clear(prefix);
    long begin = System.nanoTime();
    writer.write(items, prefix);
    return (System.nanoTime() - begin) / 1e6;
  }

  private static BulkWriter open(String name, BenchRedis redis) {
    Map<String, Function<BenchRedis, BulkWriter>> factories = new LinkedHashMap<>();
    factories.put(SpringOneByOneWriter.NAME, r -> new SpringOneByOneWriter(r.redisUri()));
    factories.put(SpringPipelinedWriter.NAME, r -> new SpringPipelinedWriter(r.redisUri()));
    factories.put(RedissonBatchWriter.NAME, r -> new RedissonBatchWriter(r.redisUri()));
    factories.put(StowagePutAllWriter.NAME, r -> new StowagePutAllWriter(r.uri(), true));
    factories.put(StowagePutAllWriter.NO_EXPIRY_NAME, r -> new StowagePutAllWriter(r.uri(), false));
    factories.put(LettuceRawWriter.NAME, r -> new LettuceRawWriter(r.redisUri()));
    Function<BenchRedis, BulkWriter> factory = factories.get(name);
    if (factory == null) {
      throw new IllegalArgumentException(
          "unknown writer " + name + "; known: " + factories.keySet());
    }
    return factory.apply(redis);
  }

  private static int verify(BulkWriter writer, List<Item> items, String prefix) throws Exception {
    int step = Math.max(1, items.size() / VERIFY_AT_MOST);
    int verified = 0;
    for (int i = 0; i < items.size(); i += step) {
      Item expected = items.get(i);
      Item actual = writer.read(prefix + expected.id());
      if (!expected.equals(actual)) {
        throw new BenchmarkRunException(
            writer.name()
                + " wrote "
                + prefix
                + expected.id()
                + " but it reads back as "
                + actual
                + ", not "
                + expected,
            null);
      }
      verified++;
    }
    return verified;
  }

  private static ResultRow row(BulkWriter writer, int n, double[] millis, long keys, int verified) {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("n", n);
    params.putAll(writer.params());
    Map<String, Number> metrics = new LinkedHashMap<>();
    double[] sorted = millis.clone();
    Arrays.sort(sorted);
    metrics.put("median_ms", round(Figures.median(millis)));
    metrics.put("min_ms", round(sorted[0]));
    metrics.put("max_ms", round(sorted[sorted.length - 1]));
    metrics.put("runs", millis.length);
    metrics.put("keys", keys);
    metrics.put("verified", verified);
    return new ResultRow(writer.name(), writer.role(), params, metrics);
  }

  private static List<ResultRow> withLimitRatio(List<ResultRow> rows) {
    ResultRow limit =
        rows.stream().filter(r -> r.name().equals(LIMIT_ROW)).findFirst().orElse(null);
    if (limit == null) {
      return rows;
    }
    List<ResultRow> out = new ArrayList<>();
    for (ResultRow row : rows) {
      Map<String, Number> metrics = new LinkedHashMap<>(row.metrics());
      ResultTable.ratio(row, limit, "median_ms")
          .ifPresent(ratio -> metrics.put("x_limit", round(ratio)));
      out.add(new ResultRow(row.name(), row.role(), row.params(), metrics));
    }
    return out;
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }

  private static void closeQuietly(BulkWriter writer) {
    try {
      writer.close();
    } catch (RuntimeException e) {
      // closing a client after a failed run must not hide the failure
    }
  }
}
