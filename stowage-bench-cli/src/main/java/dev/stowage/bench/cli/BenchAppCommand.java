package dev.stowage.bench.cli;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.app.AppBench;
import dev.stowage.cli.StowageVersion;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
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
    header = "Table T5: the fifth seed's /add and /check from 200 callers, fastjson and Kryo against Stowage.",
    description = {
      "Table T5: the fifth seed's /add (store 100 Person objects) and /check (read 100 back and verify their MD5),",
      "from 200 concurrent callers: fastjson text through StringRedisTemplate and Kryo bytes (the seed's two apps, Jedis",
      "pool of 8), and Stowage (putAll / getAll). Operations/s, p50/p99 and Redis bytes per person."
    })
final class BenchAppCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RedisBenchOptions options;

  @Option(names = "--requests", paramLabel = "N", description = "Operations of each kind per row (default: 5,000; quick 1,000).")
  Integer requests;

  @Option(names = "--concurrency", paramLabel = "C", description = "Concurrent callers (default: the seed's 200).")
  Integer concurrency;

  @Option(names = "--rows", paramLabel = "ROW", split = ",", description = "Only these rows (default: all): fastjson-string, kryo, stowage.")
  List<String> rows;

  /** The plan these options describe. */
  AppBench.Plan plan() {
    AppBench.Plan defaults = AppBench.Plan.defaults(options.quick);
    int requestCount = requests == null ? defaults.requests() : requests;
    return new AppBench.Plan(requestCount, Math.min(defaults.warmupRequests(), requestCount),
        concurrency == null ? defaults.concurrency() : concurrency, options.quick, rows == null ? List.of() : rows, false);
  }

  @Override
  public Integer call() {
    PrintWriter stderr = spec.commandLine().getErr();
    ResultsDocument results;
    try (BenchRedis redis = options.open()) {
      AppBench.Plan plan = plan();
      stderr.printf("bench app: %,d /add and %,d /check of %d people each, %d callers, on %s%n", plan.requests(), plan.requests(),
          AppBench.PEOPLE_PER_OPERATION, plan.concurrency(), redis);
      stderr.flush();
      results = AppBench.run(plan, redis, new PrintStream(System.err, true));
    } catch (BenchmarkRunException | IllegalArgumentException | IllegalStateException e) {
      stderr.println("bench app failed: " + e.getMessage());
      return 1;
    }
    return options.finish(AppBench.BENCH_NAME, results, AppBench.table(), spec.commandLine().getOut(), stderr);
  }
}
