package dev.stowage.bench.cli;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.pipeline.PipelineBench;
import dev.stowage.cli.StowageVersion;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code stowage bench pipeline}: table T2, bulk writes of N five-field items. */
@Command(
    name = "pipeline",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header = "Table T2: writing N items one by one, pipelined, batched and with Stowage's putAll.",
    description = {
      "Table T2: milliseconds to write N five-field items (N = 10 ... 30,000), one by one through Spring's RedisTemplate, "
          + "in the seed's executePipelined, in a Redisson RBatch, with Stowage's putAll, and as raw pipelined Lettuce "
          + "commands of pre-encoded bytes (the limit). Median of several runs after warm-up; ratios against executePipelined."
    })
final class BenchPipelineCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RedisBenchOptions options;

  @Option(
      names = "--sizes",
      paramLabel = "N",
      split = ",",
      description = "Comma-separated N (default: the seed's 10,100,1000,2000,5000,10000,30000).")
  List<Integer> sizes;

  @Option(
      names = "--repeats",
      paramLabel = "K",
      description = "Timed runs per row and N; the median is kept (default: 7, quick 3).")
  Integer repeats;

  @Option(
      names = "--warmups",
      paramLabel = "W",
      description = "Untimed runs first (default: 3, quick 1).")
  Integer warmups;

  @Option(
      names = "--rows",
      paramLabel = "ROW",
      split = ",",
      description = "Only these rows (default: all): ${COMPLETION-CANDIDATES}",
      completionCandidates = RowNames.class)
  List<String> rows;

  /** The plan these options describe. */
  PipelineBench.Plan plan() {
    PipelineBench.Plan defaults = PipelineBench.Plan.defaults(options.quick);
    return new PipelineBench.Plan(
        sizes == null ? defaults.sizes() : sizes,
        warmups == null ? defaults.warmups() : warmups,
        repeats == null ? defaults.repeats() : repeats,
        options.quick,
        rows == null ? List.of() : rows,
        false);
  }

  @Override
  public Integer call() {
    PrintWriter stderr = spec.commandLine().getErr();
    PipelineBench.Plan plan = plan();
    ResultsDocument results;
    try (BenchRedis redis = options.open()) {
      stderr.printf(
          "bench pipeline: N=%s, %d warm-up + %d timed runs each, on %s%n",
          plan.sizes(), plan.warmups(), plan.repeats(), redis);
      stderr.flush();
      results = PipelineBench.run(plan, redis, new PrintStream(System.err, true));
    } catch (BenchmarkRunException | IllegalArgumentException | IllegalStateException e) {
      stderr.println("bench pipeline failed: " + e.getMessage());
      return 1;
    }
    return options.finish(
        PipelineBench.BENCH_NAME,
        results,
        PipelineBench.table(),
        spec.commandLine().getOut(),
        stderr);
  }

  /** The row names, for the help text. */
  static final class RowNames implements Iterable<String> {
    @Override
    public Iterator<String> iterator() {
      return PipelineBench.rowNames().iterator();
    }
  }
}
