package dev.stowage.bench.cli;

import dev.stowage.cli.StowageCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;

/** One run of the {@code stowage} command line in this JVM: its exit code and what it printed. */
record CliRun(int exit, String stdout, String stderr) {

  /** Runs {@code args} as {@code ./stowage} would. */
  static CliRun of(String... args) {
    StringWriter stdout = new StringWriter();
    StringWriter stderr = new StringWriter();
    CommandLine command = StowageCli.commandLine();
    command.setOut(new PrintWriter(stdout, true));
    command.setErr(new PrintWriter(stderr, true));
    int exit = command.execute(args);
    return new CliRun(exit, stdout.toString(), stderr.toString());
  }

  /**
   * A tiny {@code bench http} into {@code out}: 200 posts, 10 users, loads of 1 s in 2 rounds after
   * 1 s of warm-up, no wrk; {@code options} come first.
   */
  static CliRun tinyHttpBench(Path out, String... options) {
    List<String> args = new ArrayList<>(List.of("bench", "http"));
    args.addAll(List.of(options));
    args.addAll(
        List.of(
            "--records",
            "200",
            "--users",
            "10",
            "--ramp",
            "100",
            "--duration",
            "1",
            "--warmup",
            "1",
            "--rounds",
            "2",
            "--no-wrk",
            "--out",
            out.toString()));
    return of(args.toArray(String[]::new));
  }
}
