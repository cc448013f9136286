package dev.stowage.bench.cli;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.nearcache.NearCacheBench;
import dev.stowage.cli.StowageVersion;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stowage bench nearcache}: issue 13, hot-key reads while keys change, with and without a
 * near cache.
 */
@Command(
    name = "nearcache",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header = "Issue 13: Zipf-distributed reads under writes, with and without near caches.",
    description = {
      "Issue 13: reads of keys drawn from a Zipf distribution by many callers while a writer updates 1%% of the keys a "
          + "second on a connection of its own: Stowage without a near cache (the baseline), Stowage with one, Lettuce's "
          + "ClientSideCaching and Redisson's RLocalCachedMap. Reads/s, p50/p99, near hits, stale reads (older than a version "
          + "the client had already returned), invalidation timeouts, and how long a write took to show through the client."
    })
final class BenchNearCacheCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RedisBenchOptions options;

  @Option(names = "--keys", paramLabel = "N", description = "How many items (default: 100,000).")
  Integer keys;

  @Option(
      names = "--zipf",
      paramLabel = "S",
      description = "The skew of the reads' keys, the Zipf exponent; 0 is uniform (default: 1.0).")
  Double zipf;

  @Option(
      names = "--concurrency",
      paramLabel = "C",
      description = "Concurrent callers (default: 200).")
  Integer concurrency;

  @Option(
      names = "--writes",
      paramLabel = "PER_SECOND",
      description = "New versions written per second (default: 1%% of the keys).")
  Integer writes;

  @Option(
      names = "--duration",
      paramLabel = "SECONDS",
      description = "Timed seconds per row (default: 20, quick 8).")
  Integer duration;

  @Option(
      names = "--warmup",
      paramLabel = "SECONDS",
      description = "Warm-up seconds per row, the writer running (default: 5, quick 3).")
  Integer warmup;

  @Option(
      names = "--rows",
      paramLabel = "ROW",
      split = ",",
      description =
          "Only these rows (default: all): stowage, stowage-near, lettuce-client-side-caching, redisson-local-cached-map.")
  List<String> rows;

  /** The plan these options describe. */
  NearCacheBench.Plan plan() {
    NearCacheBench.Plan defaults = NearCacheBench.Plan.defaults(options.quick);
    int keyCount = keys == null ? defaults.keys() : keys;
    int writeRate =
        writes != null
            ? writes
            : keys == null ? defaults.writesPerSecond() : Math.max(1, keyCount / 100);
    return new NearCacheBench.Plan(
        keyCount,
        zipf == null ? defaults.zipfExponent() : zipf,
        concurrency == null ? defaults.concurrency() : concurrency,
        writeRate,
        warmup == null ? defaults.warmup() : Duration.ofSeconds(warmup),
        duration == null ? defaults.duration() : Duration.ofSeconds(duration),
        defaults.visibilityTimeout(),
        options.quick,
        rows == null ? List.of() : rows,
        false);
  }

  @Override
  public Integer call() {
    PrintWriter stderr = spec.commandLine().getErr();
    ResultsDocument results;
    try (BenchRedis redis = options.open()) {
      NearCacheBench.Plan plan = plan();
      stderr.printf(
          Locale.ROOT,
          "bench nearcache: %,d items, Zipf s=%s, %d callers, %,d writes/s, %ds + %ds per row, on %s%n",
          plan.keys(),
          plan.zipfExponent(),
          plan.concurrency(),
          plan.writesPerSecond(),
          plan.warmup().toSeconds(),
          plan.duration().toSeconds(),
          redis);
      stderr.flush();
      results = NearCacheBench.run(plan, redis, new PrintStream(System.err, true));
    } catch (BenchmarkRunException | IllegalArgumentException | IllegalStateException e) {
      stderr.println("bench nearcache failed: " + e.getMessage());
      return 1;
    }
    return options.finish(
        NearCacheBench.BENCH_NAME,
        results,
        NearCacheBench.table(),
        spec.commandLine().getOut(),
        stderr);
  }
}
