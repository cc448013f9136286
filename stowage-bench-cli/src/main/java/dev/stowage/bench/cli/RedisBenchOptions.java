package dev.stowage.bench.cli;

import static java.util.Objects.requireNonNull;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options every Redis-backed {@code stowage bench} subcommand shares: {@code --redis}, {@code
 * --out} and {@code --quick}, and the common end of a run (print the table, write the results).
 */
final class RedisBenchOptions {

  @Option(
      names = "--redis",
      paramLabel = "URL",
      description =
          "Redis to measure against, such as redis://127.0.0.1:6380. It is never flushed: only the bench's own keys"
              + " (prefix stowage-bench:) are removed. Default: an embedded redis-server started for the run.")
  String redis;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "results",
      description = "Directory for the results JSON (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--quick",
      description = "Smaller sizes and fewer repeats, for a run of a few minutes.")
  boolean quick;

  /** The Redis to use: embedded unless {@code --redis} was given. */
  BenchRedis open() {
    return BenchRedis.of(redis);
  }

  /** Prints the table and writes the results; returns the exit code. */
  int finish(
      String bench,
      ResultsDocument results,
      ResultTable table,
      PrintWriter stdout,
      PrintWriter stderr) {
    stdout.print(table.render(results.rows()));
    stdout.flush();
    try {
      Path file = results.writeTo(out);
      stderr.println("results written to " + file);
      stderr.flush();
      return 0;
    } catch (UncheckedIOException e) {
      stderr.println(
          "bench "
              + bench
              + ": "
              + e.getMessage()
              + ": "
              + requireNonNull(e.getCause()).getMessage());
      return 1;
    }
  }
}
