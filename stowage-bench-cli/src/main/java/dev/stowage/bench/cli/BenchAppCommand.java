package dev.stowage.bench.cli;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.app.AppBench;
import dev.stowage.cli.StowageVersion;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code stowage bench app}: table T5, the fifth seed's /add and /check in process. */
@Command(
    name = "app",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header =
        "Table T5: the fifth seed's /add and /check from 200 callers, fastjson and Kryo against Stowage.",
    description = {
      "Table T5: the fifth seed's /add (store 100 Person objects) and /check (read 100 back and verify their MD5), "
          + "from 200 concurrent callers: fastjson text through StringRedisTemplate and Kryo bytes (the seed's two apps, Jedis "
          + "pool of 8), and Stowage (putAll / getAll). Operations/s, p50/p99 and Redis bytes per person.",
      "With --records N (the seed's scale: 15000000), each row also loads N people in bulk in its own layout and reports "
          + "Redis's used_memory per person and the load rate; Redis holds one row's people at a time (about 3.5 GB at 15M)."
    })
final class BenchAppCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RedisBenchOptions options;

  @Option(
      names = "--requests",
      paramLabel = "N",
      description = "Operations of each kind per row (default: 5,000; quick 1,000).")
  Integer requests;

  @Option(
      names = "--concurrency",
      paramLabel = "C",
      description = "Concurrent callers (default: the seed's 200).")
  Integer concurrency;

  @Option(
      names = "--rows",
      paramLabel = "ROW",
      split = ",",
      description =
          "Only these rows (default: all): fastjson-string, kryo, stowage, stowage-packed.")
  List<String> rows;

  @Option(
      names = "--records",
      paramLabel = "N",
      description =
          "Also load N people per row in bulk and report Redis memory per person "
              + "(the seed's scale: 15000000; default: none).")
  Long records;

  /** The plan these options describe. */
  AppBench.Plan plan() {
    AppBench.Plan defaults = AppBench.Plan.defaults(options.quick);
    int requestCount = requests == null ? defaults.requests() : requests;
    return new AppBench.Plan(
        requestCount,
        Math.min(defaults.warmupRequests(), requestCount),
        concurrency == null ? defaults.concurrency() : concurrency,
        options.quick,
        rows == null ? List.of() : rows,
        false,
        records == null ? defaults.records() : records);
  }

  @Override
  public Integer call() {
    PrintWriter stderr = spec.commandLine().getErr();
    ResultsDocument results;
    try (BenchRedis redis = options.open()) {
      AppBench.Plan plan = plan();
      stderr.printf(
          "bench app: %,d /add and %,d /check of %d people each, %d callers%s, on %s%n",
          plan.requests(),
          plan.requests(),
          AppBench.PEOPLE_PER_OPERATION,
          plan.concurrency(),
          plan.records() == 0
              ? ""
              : String.format(Locale.ROOT, ", then %,d people per row in bulk", plan.records()),
          redis);
      stderr.flush();
      results = AppBench.run(plan, redis, new PrintStream(System.err, true));
    } catch (BenchmarkRunException | IllegalArgumentException | IllegalStateException e) {
      stderr.println("bench app failed: " + e.getMessage());
      return 1;
    }
    return options.finish(
        AppBench.BENCH_NAME, results, AppBench.table(), spec.commandLine().getOut(), stderr);
  }
}
