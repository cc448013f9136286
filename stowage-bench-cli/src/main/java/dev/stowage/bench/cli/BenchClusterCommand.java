package dev.stowage.bench.cli;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.cluster.ClusterBench;
import dev.stowage.bench.cluster.Topology;
import dev.stowage.cli.StowageVersion;
import dev.stowage.embedded.RedisClusterSet;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stowage bench cluster}: issue 16, bulk and single reads and writes on one server and on a
 * cluster.
 */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header =
        "Issue 16: putAll, getAll and random GETs on one server and on a three-master Redis Cluster.",
    description = {
      "Issue 16: N items (default 30,000) written and read back in bulk, and random GETs of them from many callers, by "
          + "Stowage, Redisson's RBatch, Spring Data Redis's executePipelined and a raw Lettuce pipeline (the limit), each on "
          + "one server and on a cluster of three masters without replicas (both embedded, unless --redis and --cluster-redis "
          + "name them). Two cores cannot show a cluster's scaling, so each cluster row gives its cost per operation against "
          + "the same client on one server (x1 columns); the ratio column compares putAll with Redisson's RBatch on the cluster."
    })
final class BenchClusterCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RedisBenchOptions options;

  @Option(
      names = "--cluster-redis",
      paramLabel = "URL",
      split = ",",
      description =
          "Seed URLs of an existing Redis Cluster,"
              + " such as redis://10.0.0.1:7000,redis://10.0.0.2:7000; only the bench's keys are removed from it. Default: an"
              + " embedded cluster of three masters.")
  @Nullable List<String> clusterRedis;

  @Option(
      names = "--items",
      paramLabel = "N",
      description = "Items per bulk call (default: 30,000).")
  @Nullable Integer items;

  @Option(
      names = "--concurrency",
      paramLabel = "C",
      description = "Callers of the GET loop (default: 200).")
  @Nullable Integer concurrency;

  @Option(
      names = "--repeats",
      paramLabel = "K",
      description = "Timed bulk runs per row; the median is kept (default: 7, quick 3).")
  @Nullable Integer repeats;

  @Option(
      names = "--warmups",
      paramLabel = "W",
      description = "Untimed bulk runs first (default: 3, quick 1).")
  @Nullable Integer warmups;

  @Option(
      names = "--duration",
      paramLabel = "SECONDS",
      description = "Timed seconds of the GET loop per row (default: 15, quick 5).")
  @Nullable Integer duration;

  @Option(
      names = "--warmup",
      paramLabel = "SECONDS",
      description = "Warm-up seconds of the GET loop per row (default: 5, quick 2).")
  @Nullable Integer warmup;

  @Option(
      names = "--rows",
      paramLabel = "ROW",
      split = ",",
      description =
          "Only these rows, or a client's row on both topologies"
              + " (default: all): ${COMPLETION-CANDIDATES}",
      completionCandidates = RowNames.class)
  @Nullable List<String> rows;

  /** The plan these options describe. */
  ClusterBench.Plan plan() {
    ClusterBench.Plan defaults = ClusterBench.Plan.defaults(options.quick);
    return new ClusterBench.Plan(
        items == null ? defaults.items() : items,
        concurrency == null ? defaults.concurrency() : concurrency,
        warmups == null ? defaults.warmups() : warmups,
        repeats == null ? defaults.repeats() : repeats,
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
    try {
      ClusterBench.Plan plan = plan();
      try (Topology single = Topology.single(options.open());
          Topology cluster =
              clusterRedis == null
                  ? Topology.cluster(RedisClusterSet.start(0))
                  : Topology.borrowedCluster(clusterRedis)) {
        stderr.printf(
            Locale.ROOT,
            "bench cluster: %,d items, %d warm-up + %d timed bulk runs per row, GET loop of %d callers"
                + " for %ds + %ds per row, on %s and on %s%n",
            plan.items(),
            plan.warmups(),
            plan.repeats(),
            plan.concurrency(),
            plan.warmup().toSeconds(),
            plan.duration().toSeconds(),
            single,
            cluster);
        stderr.flush();
        results = ClusterBench.run(plan, single, cluster, new PrintStream(System.err, true));
      }
    } catch (BenchmarkRunException | IllegalArgumentException | IllegalStateException e) {
      stderr.println("bench cluster failed: " + e.getMessage());
      return 1;
    }
    return options.finish(
        ClusterBench.BENCH_NAME,
        results,
        ClusterBench.table(),
        spec.commandLine().getOut(),
        stderr);
  }

  /** The row names, for the help text. */
  static final class RowNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return ClusterBench.rowNames().iterator();
    }
  }
}
