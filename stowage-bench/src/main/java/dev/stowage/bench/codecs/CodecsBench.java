package dev.stowage.bench.codecs;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ForkClassPath;
import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RunEnvironment;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs table T3 ({@code stowage bench codecs}): {@link CodecBenchmark} for every chosen codec ×
 * payload variant × data shape, each configuration in a forked JVM of its own (or, with {@code
 * --quick}, all of them in this JVM), and turns the JMH results into a {@link ResultsDocument}.
 *
 * <p>The forked JVMs get the jars of this JVM's class path that this module needs ({@link
 * ForkClassPath}), so the run works from the {@code stowage} launcher as well as from a build tool.
 */
public final class CodecsBench {

  /** The bench name: results go to {@code codecs.json}. */
  public static final String BENCH_NAME = "codecs";

  /** The row every ratio is taken against (on the same data): Jackson JSON, bare. */
  public static final String BASELINE_ROW = CodecUnderTest.JSON.cliName();

  private static final String BENCHMARK_METHOD = "createSerDeser";

  private CodecsBench() {}

  /**
   * What to measure and how long.
   *
   * @param quick short warmup and measurement, so that every configuration finishes in under three
   *     minutes on two cores
   * @param codecs the codecs, in table order
   * @param variants bare and the envelope variants, in table order
   * @param data the record shapes
   */
  public record Plan(
      boolean quick,
      List<CodecUnderTest> codecs,
      List<PayloadVariant> variants,
      List<DataShape> data) {

    /**
     * Removes duplicates, keeping the first occurrence.
     *
     * @throws IllegalArgumentException if a list is empty
     */
    public Plan {
      codecs = distinctNonEmpty(codecs, "codecs");
      variants = distinctNonEmpty(variants, "variants");
      data = distinctNonEmpty(data, "data");
    }

    /** Every codec, variant and data shape. */
    public static Plan everything(boolean quick) {
      return new Plan(
          quick,
          List.of(CodecUnderTest.values()),
          List.of(PayloadVariant.values()),
          List.of(DataShape.values()));
    }

    /** How many configurations (forked JVMs) the plan runs. */
    public int configurations() {
      return codecs.size() * variants.size() * data.size();
    }

    private static <E> List<E> distinctNonEmpty(List<E> values, String what) {
      Objects.requireNonNull(values, what);
      if (values.isEmpty()) {
        throw new IllegalArgumentException("choose at least one of the " + what);
      }
      return List.copyOf(new LinkedHashSet<>(values));
    }
  }

  /** How long JMH runs each configuration. */
  record Timing(
      int forks,
      int warmupIterations,
      TimeValue warmupTime,
      int measurementIterations,
      TimeValue measurementTime) {}

  /**
   * The short settings of {@code --quick}: every configuration in this JVM, one after another
   * (forks 0). A forked JVM costs several seconds on two busy cores (start, datafaker, JIT), which
   * for the full plan's 100 configurations is far over the three-minute budget; in one JVM the
   * records are made once and the shared code stays compiled, and every codec is run once before
   * anything is measured ({@link #warmUpInThisJvm}). The price is that later configurations run in
   * a JVM that earlier ones profiled, so {@code --quick} figures are rougher than the default's.
   */
  static final Timing QUICK =
      new Timing(0, 3, TimeValue.milliseconds(100), 3, TimeValue.milliseconds(100));

  /** The default settings: longer and steadier, each configuration in a fresh forked JVM. */
  static final Timing THOROUGH = new Timing(1, 3, TimeValue.seconds(1), 5, TimeValue.seconds(1));

  /** The JMH options for a plan: only {@link CodecBenchmark}, with the plan's params. */
  static Options jmhOptions(Plan plan) {
    Timing timing = plan.quick() ? QUICK : THOROUGH;
    return new OptionsBuilder()
        .include("^" + Pattern.quote(CodecBenchmark.class.getName() + "." + BENCHMARK_METHOD) + "$")
        .param("codec", plan.codecs().stream().map(CodecUnderTest::cliName).toArray(String[]::new))
        .param(
            "compression",
            plan.variants().stream().map(PayloadVariant::paramName).toArray(String[]::new))
        .param("data", plan.data().stream().map(DataShape::paramName).toArray(String[]::new))
        .forks(timing.forks())
        .warmupIterations(timing.warmupIterations())
        .warmupTime(timing.warmupTime())
        .measurementIterations(timing.measurementIterations())
        .measurementTime(timing.measurementTime())
        .threads(1)
        .timeUnit(TimeUnit.NANOSECONDS)
        .jvmArgsAppend("-Xms1g", "-Xmx1g")
        .shouldFailOnError(true)
        .build();
  }

  /**
   * Runs the plan and returns the results, in the plan's order (data, then codec, then variant).
   * Prints one progress line per finished configuration to {@code progressOut}.
   *
   * @throws BenchmarkRunException if JMH cannot run or a configuration fails
   */
  public static ResultsDocument run(Plan plan, PrintStream progressOut) {
    Objects.requireNonNull(plan, "plan");
    Objects.requireNonNull(progressOut, "progressOut");
    ProgressReporter progress = new ProgressReporter(plan.configurations(), progressOut);
    JmhProgressFormat format = new JmhProgressFormat(progress, CodecsBench::label);
    Collection<RunResult> results;
    try {
      Options options = jmhOptions(plan);
      if (plan.quick()) {
        warmUpInThisJvm(plan, progressOut);
        primeJmhLoop(plan, progressOut);
      }
      results = ForkClassPath.run(() -> new Runner(options, format).run());
    } catch (Exception e) {
      throw new BenchmarkRunException(
          "the codec benchmark failed: "
              + e.getMessage()
              + "; JMH's last lines:"
              + System.lineSeparator()
              + String.join(System.lineSeparator(), format.lastLines()),
          e);
    }
    List<CodecMeasurement> measurements = new ArrayList<>();
    for (RunResult result : results) {
      measurements.add(measurement(result));
    }
    if (measurements.size() != plan.configurations()) {
      throw new BenchmarkRunException(
          "JMH returned "
              + measurements.size()
              + " results for "
              + plan.configurations()
              + " configurations",
          null);
    }
    measurements.sort(
        Comparator.comparingInt((CodecMeasurement m) -> plan.data().indexOf(m.data()))
            .thenComparingInt(m -> plan.codecs().indexOf(m.codec()))
            .thenComparingInt(m -> plan.variants().indexOf(m.variant())));
    List<ResultRow> rows = measurements.stream().map(CodecMeasurement::toRow).toList();
    return new ResultsDocument(BENCH_NAME, plan.quick(), RunEnvironment.capture(), rows);
  }

  /**
   * Runs the plan's first configuration through JMH once, unmeasured, for two seconds: in one JVM
   * ({@code --quick}) the first configuration would otherwise be measured while JMH's own
   * measurement loop is still being compiled, which made the first row (the baseline) look three
   * times slower than the same code in the next rows.
   */
  static void primeJmhLoop(Plan plan, PrintStream progressOut) throws Exception {
    long start = System.nanoTime();
    Options prime =
        new OptionsBuilder()
            .include(
                "^" + Pattern.quote(CodecBenchmark.class.getName() + "." + BENCHMARK_METHOD) + "$")
            .param("codec", plan.codecs().get(0).cliName())
            .param("compression", plan.variants().get(0).paramName())
            .param("data", plan.data().get(0).paramName())
            .forks(0)
            .warmupIterations(4)
            .warmupTime(TimeValue.milliseconds(500))
            .measurementIterations(1)
            .measurementTime(TimeValue.milliseconds(100))
            .threads(1)
            .timeUnit(TimeUnit.NANOSECONDS)
            .shouldFailOnError(true)
            .build();
    ForkClassPath.run(
        () ->
            new Runner(
                    prime,
                    new JmhProgressFormat(
                        new ProgressReporter(1, new PrintStream(OutputStream.nullOutputStream())),
                        CodecsBench::label))
                .run());
    waitForCompilerIdle(Duration.ofSeconds(10));
    progressOut.printf(
        "primed JMH's measurement loop in %.1fs%n", (System.nanoTime() - start) / 1e9);
  }

  /**
   * Records each codec runs through before {@code --quick} measures anything; see {@link
   * #warmUpInThisJvm}.
   */
  static final int QUICK_WARMUP_RECORDS = 4_000;

  /**
   * Runs every codec of the plan, bare and in the envelope with each compression but the
   * dictionary, over {@value #QUICK_WARMUP_RECORDS} records, so that {@code --quick}'s short
   * per-configuration warmup starts from compiled code. Without it the first configurations of a
   * run (Jackson JSON, the baseline, among them) are measured while the JVM is still loading and
   * compiling, which flatters every ratio against them.
   */
  static void warmUpInThisJvm(Plan plan, PrintStream progressOut) {
    long start = System.nanoTime();
    long checksum = 0;
    for (DataShape data : plan.data()) {
      for (CodecUnderTest codec : plan.codecs()) {
        for (PayloadVariant variant : plan.variants()) {
          if (variant == PayloadVariant.ZSTD_DICT) {
            continue; // training a dictionary twice costs more than it warms: the native code is
            // the same as zstd's
          }
          checksum +=
              warmUp(
                  CodecFixture.create(codec, variant, data),
                  QUICK_WARMUP_RECORDS / plan.variants().size());
        }
      }
    }
    boolean idle = waitForCompilerIdle(Duration.ofSeconds(20));
    progressOut.printf(
        "warmed up every codec in this JVM in %.1fs (%d bytes)%s%n",
        (System.nanoTime() - start) / 1e9,
        checksum,
        idle ? "" : "; the JIT compiler was still busy");
  }

  /**
   * Waits until the JIT compiler has compiled nothing for half a second, at most {@code limit}: the
   * warmup queues many compilations, and on two cores the compiler threads would otherwise take CPU
   * from the first configurations measured.
   *
   * @return whether the compiler went idle within the limit (always true when the JVM does not
   *     report compilation time)
   */
  static boolean waitForCompilerIdle(Duration limit) {
    CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
    if (compiler == null || !compiler.isCompilationTimeMonitoringSupported()) {
      return true;
    }
    long deadline = System.nanoTime() + limit.toNanos();
    long last = compiler.getTotalCompilationTime();
    int quietPolls = 0;
    while (System.nanoTime() < deadline) {
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      long now = compiler.getTotalCompilationTime();
      quietPolls = now == last ? quietPolls + 1 : 0;
      last = now;
      if (quietPolls >= 5) {
        return true;
      }
    }
    return false;
  }

  @SuppressWarnings("unchecked")
  private static long warmUp(CodecFixture<?, ?> anyFixture, int records) {
    CodecFixture<Object, Object> fixture = (CodecFixture<Object, Object>) anyFixture;
    long bytes = 0;
    for (int i = 0; i < records; i++) {
      byte[] encoded = fixture.encode(fixture.create(i % fixture.records()));
      bytes += encoded.length;
      if (fixture.decode(encoded) == null) {
        throw new IllegalStateException(fixture + " decoded null");
      }
    }
    return bytes;
  }

  /** The T3 table: per data shape, the phases, sizes and ratios against Jackson JSON. */
  public static ResultTable table() {
    return ResultTable.builder()
        .text("codec", ResultRow::name)
        .text("role", row -> row.role().jsonName())
        .metric("create", "create_ns", 0)
        .metric("ser", "ser_ns", 0)
        .metric("deser", "deser_ns", 0)
        .metric("total ns", "total_ns", 0)
        .metric("size", "size", 0)
        .metric("+dfl", "size_deflate", 0)
        .ratio("total/json", "total_ns")
        .ratio("size/json", "size")
        .ratio("dfl/json", "size_deflate")
        .param("default", "stowage_default")
        .baseline(BASELINE_ROW, "data")
        .groupBy("data")
        .build();
  }

  private static String label(BenchmarkParams params) {
    return CodecMeasurement.rowName(
            CodecUnderTest.forName(params.getParam("codec")),
            PayloadVariant.forName(params.getParam("compression")))
        + " "
        + params.getParam("data");
  }

  private static CodecMeasurement measurement(RunResult result) {
    BenchmarkParams params = result.getParams();
    Map<String, Result> counters = result.getSecondaryResults();
    double records = counter(counters, PhaseCounters.RECORDS, params);
    if (records <= 0) {
      throw new BenchmarkRunException(label(params) + " measured no records", null);
    }
    return new CodecMeasurement(
        CodecUnderTest.forName(params.getParam("codec")),
        PayloadVariant.forName(params.getParam("compression")),
        DataShape.forName(params.getParam("data")),
        counter(counters, PhaseCounters.CREATE_NANOS, params) / records,
        counter(counters, PhaseCounters.SER_NANOS, params) / records,
        counter(counters, PhaseCounters.DESER_NANOS, params) / records,
        counter(counters, PhaseCounters.ENCODED_BYTES, params) / records,
        counter(counters, PhaseCounters.DEFLATED_BYTES, params) / records);
  }

  private static double counter(Map<String, Result> counters, String name, BenchmarkParams params) {
    Result value = counters.get(name);
    if (value == null) {
      throw new BenchmarkRunException(
          label(params) + " reported no '" + name + "' counter; got " + counters.keySet(), null);
    }
    return value.getScore();
  }
}
