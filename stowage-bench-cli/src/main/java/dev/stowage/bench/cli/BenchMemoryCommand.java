package dev.stowage.bench.cli;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.memory.MemoryBench;
import dev.stowage.bench.memory.RecordKind;
import dev.stowage.cli.StowageVersion;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code stowage bench memory}: the memory of T1 (board records) and T5 (person records). */
@Command(
    name = "memory",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header =
        "Tables T1/T5 memory: Redis memory for N records in the seeds' layouts and in Stowage's.",
    description = {
      "Tables T1/T5 memory: Redis used_memory for N records with each codec and compression, in the seed's layout "
          + "(board: whole records as sorted-set members; person: a key per record), a key per record, and Stowage's feed.",
      "Ratios against the seed's JSON (board) or fastjson string (person)."
    })
final class BenchMemoryCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Mixin RedisBenchOptions options;

  @Option(
      names = "--records",
      paramLabel = "KIND",
      defaultValue = "board",
      converter = KindConverter.class,
      description =
          "board (T1, default 120,000; quick 20,000) or person (T5, default 1,000,000; quick 100,000).")
  RecordKind kind;

  @Option(
      names = "--count",
      paramLabel = "N",
      description = "How many records (default: see --records).")
  Integer count;

  @Option(
      names = "--rows",
      paramLabel = "ROW",
      split = ",",
      description =
          "Only these rows, such as zset/json,feed/default+zstd-dict,packed/default (default: all).")
  List<String> rows;

  /** The plan these options describe. */
  MemoryBench.Plan plan() {
    MemoryBench.Plan defaults = MemoryBench.Plan.defaults(kind, options.quick);
    return new MemoryBench.Plan(
        kind,
        count == null ? defaults.count() : count,
        options.quick,
        rows == null ? List.of() : rows,
        false);
  }

  @Override
  public Integer call() {
    PrintWriter stderr = spec.commandLine().getErr();
    MemoryBench.Plan plan = plan();
    ResultsDocument results;
    try (BenchRedis redis = options.open()) {
      stderr.printf("bench memory: %,d %s records on %s%n", plan.count(), plan.kind(), redis);
      stderr.flush();
      results = MemoryBench.run(plan, redis, new PrintStream(System.err, true));
    } catch (BenchmarkRunException | IllegalArgumentException | IllegalStateException e) {
      stderr.println("bench memory failed: " + e.getMessage());
      return 1;
    }
    return options.finish(
        MemoryBench.BENCH_NAME,
        results,
        MemoryBench.table(plan.kind()),
        spec.commandLine().getOut(),
        stderr);
  }

  /** Converts board or person. */
  static final class KindConverter implements ITypeConverter<RecordKind> {
    @Override
    public RecordKind convert(String value) {
      try {
        return RecordKind.forName(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
