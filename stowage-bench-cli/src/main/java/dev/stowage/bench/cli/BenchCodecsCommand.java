package dev.stowage.bench.cli;

import static java.util.Objects.requireNonNull;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.codecs.CodecUnderTest;
import dev.stowage.bench.codecs.CodecsBench;
import dev.stowage.bench.codecs.DataShape;
import dev.stowage.bench.codecs.PayloadVariant;
import dev.stowage.cli.StowageVersion;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code stowage bench codecs}: table T3, the cost and size of every codec, on JMH. */
@Command(
    name = "codecs",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header =
        "Table T3: time and size of every codec, bare and in Stowage's envelope with each compression.",
    description = {
      "Table T3: create, ser, deser and total ns per record, size and size after deflate, for every codec, "
          + "bare and inside Stowage's envelope with no compression, lz4, zstd and zstd with a trained dictionary.",
      "Ratios are against Jackson JSON, bare, on the same data; the default column marks Stowage's defaults.",
      "Runs JMH: one forked JVM per configuration, or with --quick every configuration in this JVM."
    })
final class BenchCodecsCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description =
          "Short warmup and measurement in this JVM: everything in under 3 minutes on 2 cores.")
  boolean quick;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "results",
      description = "Directory for codecs.json (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--data",
      paramLabel = "DATA",
      defaultValue = "all",
      converter = DataConverter.class,
      description = "board, media or all (default: ${DEFAULT-VALUE}).")
  DataSelection data;

  @Option(
      names = "--codecs",
      paramLabel = "CODEC",
      split = ",",
      converter = CodecConverter.class,
      description =
          "Comma-separated codecs (default: all): json, fastjson2, msgpack, msgpack-compact, kryo, fory, protobuf, avro, thrift, jdk.")
  List<CodecUnderTest> codecs = List.of(CodecUnderTest.values());

  /** The plan these options describe. */
  CodecsBench.Plan plan() {
    return new CodecsBench.Plan(quick, codecs, List.of(PayloadVariant.values()), data.shapes());
  }

  @Override
  public Integer call() {
    CodecsBench.Plan plan = plan();
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter stderr = spec.commandLine().getErr();
    stderr.printf(
        "bench codecs: %d configurations (%d codecs x %d variants x %d data), %s%n",
        plan.configurations(),
        plan.codecs().size(),
        plan.variants().size(),
        plan.data().size(),
        quick ? "quick" : "thorough (use --quick for a short run)");
    stderr.flush();
    ResultsDocument results;
    try {
      results = CodecsBench.run(plan, new PrintStream(System.err, true));
    } catch (BenchmarkRunException e) {
      stderr.println("bench codecs failed: " + e.getMessage());
      return 1;
    }
    stdout.print(CodecsBench.table().render(results.rows()));
    stdout.flush();
    try {
      Path file = results.writeTo(out);
      stderr.println("results written to " + file);
    } catch (UncheckedIOException e) {
      stderr.println(
          "bench codecs: " + e.getMessage() + ": " + requireNonNull(e.getCause()).getMessage());
      return 1;
    }
    return 0;
  }

  /** Converts a codec name, naming the valid ones when it is unknown. */
  static final class CodecConverter implements ITypeConverter<CodecUnderTest> {
    @Override
    public CodecUnderTest convert(String value) {
      try {
        return CodecUnderTest.forName(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** The record shapes that {@code --data} chose. */
  record DataSelection(List<DataShape> shapes) {}

  /** Converts board, media or all to the data shapes. */
  static final class DataConverter implements ITypeConverter<DataSelection> {
    @Override
    public DataSelection convert(String value) {
      if (value.strip().equalsIgnoreCase("all")) {
        return new DataSelection(List.of(DataShape.values()));
      }
      try {
        return new DataSelection(List.of(DataShape.forName(value)));
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(
            String.valueOf(e.getMessage()).replace("; choose from ", "; choose from all, "));
      }
    }
  }
}
