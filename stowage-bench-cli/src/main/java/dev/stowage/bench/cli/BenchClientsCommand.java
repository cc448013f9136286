package dev.stowage.bench.cli;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.clients.ClientsBench;
import dev.stowage.cli.StowageVersion;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code stowage bench clients}: table T4, GETs of random keys from many callers per client. */
@Command(
    name = "clients",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header =
        "Table T4: random GETs from many callers through Jedis pools, one Lettuce connection and Stowage.",
    description = {
      "Table T4: GETs of random keys out of N loaded, from many concurrent callers: Jedis through Spring's factory with "
          + "no pool settings (the seed's 'no pool') and with the seed's pool of 128, one shared Lettuce connection, Stowage, "
          + "and redis-benchmark with as many connections (when on the PATH). GET/s, p50/p99, connections opened, client CPU."
    })
final class BenchClientsCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RedisBenchOptions options;

  @Option(
      names = "--scale",
      paramLabel = "SCALE",
      description = "seed: load the seed's 10,000,000 keys (default: 1,000,000; quick 100,000).")
  String scale;

  @Option(
      names = "--keys",
      paramLabel = "N",
      description = "How many keys to load (overrides --scale).")
  Long keys;

  @Option(
      names = "--concurrency",
      paramLabel = "C",
      description = "Concurrent callers (default: the seed's 740).")
  Integer concurrency;

  @Option(
      names = "--duration",
      paramLabel = "SECONDS",
      description = "Timed seconds per row (default: 20, quick 6).")
  Integer duration;

  @Option(
      names = "--warmup",
      paramLabel = "SECONDS",
      description = "Warm-up seconds per row (default: 5, quick 2).")
  Integer warmup;

  @Option(
      names = "--rows",
      paramLabel = "ROW",
      split = ",",
      description =
          "Only these rows (default: all): jedis-spring-default, jedis-pool-128, lettuce-shared, stowage, redis-benchmark.")
  List<String> rows;

  /** The plan these options describe. */
  ClientsBench.Plan plan() {
    ClientsBench.Plan defaults = ClientsBench.Plan.defaults(options.quick);
    long keyCount = defaults.keys();
    if (scale != null) {
      if (!scale.equalsIgnoreCase("seed")) {
        throw new IllegalArgumentException("--scale takes 'seed', not '" + scale + "'");
      }
      keyCount = 10_000_000L;
    }
    if (keys != null) {
      keyCount = keys;
    }
    return new ClientsBench.Plan(
        keyCount,
        concurrency == null ? defaults.concurrency() : concurrency,
        warmup == null ? defaults.warmup() : Duration.ofSeconds(warmup),
        duration == null ? defaults.duration() : Duration.ofSeconds(duration),
        options.quick,
        rows == null ? List.of() : rows,
        defaults.redisBenchmark(),
        false);
  }

  @Override
  public Integer call() {
    PrintWriter stderr = spec.commandLine().getErr();
    ResultsDocument results;
    try (BenchRedis redis = options.open()) {
      ClientsBench.Plan plan = plan();
      stderr.printf(
          "bench clients: %,d keys, %d callers, %ds + %ds per row, on %s%s%n",
          plan.keys(),
          plan.concurrency(),
          plan.warmup().toSeconds(),
          plan.duration().toSeconds(),
          redis,
          plan.redisBenchmark()
              .map(p -> "")
              .orElse(" (redis-benchmark not on the PATH: no limit row)"));
      stderr.flush();
      results = ClientsBench.run(plan, redis, new PrintStream(System.err, true));
    } catch (BenchmarkRunException | IllegalArgumentException | IllegalStateException e) {
      stderr.println("bench clients failed: " + e.getMessage());
      return 1;
    }
    return options.finish(
        ClientsBench.BENCH_NAME,
        results,
        ClientsBench.table(),
        spec.commandLine().getOut(),
        stderr);
  }
}
