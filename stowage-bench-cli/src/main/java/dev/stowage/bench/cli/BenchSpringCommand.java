package dev.stowage.bench.cli;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.spring.SpringCacheBench;
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
 * {@code stowage bench spring}: issue 15, an {@code @Cacheable} method through Spring's and
 * Stowage's cache managers.
 */
@Command(
    name = "spring",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header =
        "Issue 15: @Cacheable hits and misses from 200 callers, Spring's RedisCacheManager against Stowage's.",
    description = {
      "Issue 15: an @Cacheable method that answers board records, in a Spring Boot application per row, called by 200 "
          + "concurrent callers: Spring's RedisCacheManager with GenericJackson2JsonRedisSerializer, Stowage's "
          + "StowageCacheManager with its defaults, and Spring's in-process ConcurrentMapCacheManager for scale. For misses "
          + "(the method runs and its record is stored) and hits: calls/s, p50/p99, CPU per call, and Redis memory per record."
    })
final class BenchSpringCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RedisBenchOptions options;

  @Option(
      names = "--records",
      paramLabel = "N",
      description = "Records cached per row, one miss each (default: 100,000; quick 20,000).")
  Integer records;

  @Option(
      names = "--concurrency",
      paramLabel = "C",
      description = "Concurrent callers (default: 200).")
  Integer concurrency;

  @Option(
      names = "--duration",
      paramLabel = "SECONDS",
      description = "Timed seconds of hits per row (default: 30, quick 10).")
  Integer duration;

  @Option(
      names = "--warmup",
      paramLabel = "SECONDS",
      description = "Seconds of hits in each row's warm-up (default: 10, quick 5).")
  Integer warmup;

  @Option(
      names = "--rows",
      paramLabel = "ROW",
      split = ",",
      description =
          "Only these rows (default: all): spring-redis-cache-manager, stowage-cache-manager, stowage-near-cache, in-process-map.")
  List<String> rows;

  /** The plan these options describe. */
  SpringCacheBench.Plan plan() {
    SpringCacheBench.Plan defaults = SpringCacheBench.Plan.defaults(options.quick);
    int recordCount = records == null ? defaults.records() : records;
    return new SpringCacheBench.Plan(
        recordCount,
        Math.min(defaults.warmupRecords(), recordCount),
        concurrency == null ? defaults.concurrency() : concurrency,
        warmup == null ? defaults.warmup() : Duration.ofSeconds(warmup),
        duration == null ? defaults.duration() : Duration.ofSeconds(duration),
        options.quick,
        rows == null ? List.of() : rows,
        false);
  }

  @Override
  public Integer call() {
    PrintWriter stderr = spec.commandLine().getErr();
    ResultsDocument results;
    try (BenchRedis redis = options.open()) {
      SpringCacheBench.Plan plan = plan();
      stderr.printf(
          Locale.ROOT,
          "bench spring: %,d board records (after %,d of warm-up), %d callers, %ds of hits (after %ds) per row, on %s%n",
          plan.records(),
          plan.warmupRecords(),
          plan.concurrency(),
          plan.duration().toSeconds(),
          plan.warmup().toSeconds(),
          redis);
      stderr.flush();
      results = SpringCacheBench.run(plan, redis, new PrintStream(System.err, true));
    } catch (BenchmarkRunException | IllegalArgumentException | IllegalStateException e) {
      stderr.println("bench spring failed: " + e.getMessage());
      return 1;
    }
    return options.finish(
        SpringCacheBench.BENCH_NAME,
        results,
        SpringCacheBench.table(),
        spec.commandLine().getOut(),
        stderr);
  }
}
