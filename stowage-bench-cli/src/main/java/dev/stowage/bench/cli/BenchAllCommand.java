package dev.stowage.bench.cli;

import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.report.ReportBuilder;
import dev.stowage.cli.StowageVersion;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code stowage bench all}: every table of {@code stowage bench} in turn, then the report. A table
 * that fails is reported and the next one still runs; the exit code is 1 when any failed, and the
 * report is written either way.
 */
@Command(
    name = "all",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header =
        "Every table in turn, each a line of progress with the time left, then the report page.",
    description = {
      "Runs every other bench subcommand in turn with --out DIR (and --quick and --redis when given; --redis only "
          + "reaches the tables that take it), prints which table runs and about how long is left, goes on past a table that "
          + "fails, and then builds DIR/report.html as 'stowage report' does. Exit code 1 when any table failed."
    })
final class BenchAllCommand implements Callable<Integer> {

  /**
   * About how long each table takes on the project's machine (2 shared cores), quick and full, in
   * seconds: only the estimate of the time left uses them, scaled by how the finished tables
   * compared with theirs. The quick ones are the tables of one {@code ./stowage bench all --quick}
   * (2026-11-29: 12 min 35 s of tables, 12 min 53 s for the whole command on a built tree); the
   * full ones are rougher. A table not listed counts as {@link #UNKNOWN_SECONDS}.
   */
  private static final Map<String, int[]> EXPECTED_SECONDS =
      Map.of(
          "codecs", new int[] {74, 1_500},
          "pipeline", new int[] {46, 120},
          "clients", new int[] {42, 300},
          "memory", new int[] {56, 120},
          "app", new int[] {16, 300},
          "http", new int[] {190, 900},
          "transport", new int[] {133, 600},
          "nearcache", new int[] {52, 300},
          "cluster", new int[] {74, 240},
          "spring", new int[] {70, 300});

  private static final int UNKNOWN_SECONDS = 60;

  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description =
          "Every table with --quick: about 13 minutes of tables on 2 cores instead of over an hour, and a"
              + " first run's build before them.")
  boolean quick;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "results",
      description = "Where the tables' JSON and the report go (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--redis",
      paramLabel = "URL",
      description =
          "The Redis of the tables that take --redis (default: each starts an embedded one).")
  @Nullable String redis;

  @Option(
      names = "--tables",
      paramLabel = "TABLE",
      split = ",",
      description =
          "Only these tables, in this order (default: all of them, in the order 'bench --help' lists).")
  @Nullable List<String> tables;

  /** How one table ended. */
  record Outcome(String table, int exitCode, Duration took, @Nullable String failure) {
    boolean succeeded() {
      return exitCode == 0;
    }
  }

  @Override
  public Integer call() {
    CommandLine bench = spec.parent().commandLine();
    Map<String, CommandLine> planned = planned(bench);
    PrintWriter err = spec.commandLine().getErr();
    List<Outcome> outcomes = new ArrayList<>();
    long start = System.nanoTime();
    double expectedDone = 0;
    int index = 0;
    for (Map.Entry<String, CommandLine> table : planned.entrySet()) {
      index++;
      Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
      err.printf(
          "bench all: [%d/%d] %s, elapsed %s%s%n",
          index,
          planned.size(),
          table.getKey(),
          ProgressReporter.format(elapsed),
          timeLeft(planned, index - 1, expectedDone, elapsed));
      err.flush();
      outcomes.add(run(table.getKey(), table.getValue()));
      expectedDone += expected(table.getKey());
    }
    Duration total = Duration.ofNanos(System.nanoTime() - start);
    err.printf("bench all: %d table(s) in %s%n", outcomes.size(), ProgressReporter.format(total));
    for (Outcome outcome : outcomes) {
      err.printf(
          "  %-10s %-6s %s%s%n",
          outcome.table(),
          outcome.succeeded() ? "ok" : "FAILED",
          ProgressReporter.format(outcome.took()),
          outcome.failure() == null ? "" : "  " + outcome.failure());
    }
    err.flush();
    boolean reported =
        ReportCommand.write(
            out, out.resolve(ReportBuilder.FILE_NAME), spec.commandLine().getOut(), err);
    boolean allSucceeded = outcomes.stream().allMatch(Outcome::succeeded);
    return allSucceeded && reported ? 0 : 1;
  }

  /** The tables to run, by name, in order; refuses unknown names. */
  private Map<String, CommandLine> planned(CommandLine bench) {
    Map<String, CommandLine> all = new LinkedHashMap<>(bench.getSubcommands());
    all.remove(spec.name());
    if (tables == null || tables.isEmpty()) {
      return all;
    }
    Map<String, CommandLine> chosen = new LinkedHashMap<>();
    for (String table : tables) {
      CommandLine command = all.get(table);
      if (command == null) {
        throw new ParameterException(
            spec.commandLine(), "no table '" + table + "'; the tables are " + all.keySet());
      }
      chosen.put(table, command);
    }
    return chosen;
  }

  /**
   * Runs one table with this command's options; any failure, thrown or returned, is its outcome.
   */
  private Outcome run(String table, CommandLine command) {
    List<String> args = new ArrayList<>(List.of("--out", out.toString()));
    if (quick) {
      args.add("--quick");
    }
    if (redis != null && command.getCommandSpec().findOption("--redis") != null) {
      args.addAll(List.of("--redis", redis));
    }
    long start = System.nanoTime();
    int exitCode;
    String failure = null;
    try {
      exitCode = command.execute(args.toArray(new String[0]));
      if (exitCode != 0) {
        failure = "exit code " + exitCode + " (its error is above)";
      }
    } catch (RuntimeException e) {
      exitCode = 1;
      failure = e.toString();
    }
    return new Outcome(table, exitCode, Duration.ofNanos(System.nanoTime() - start), failure);
  }

  /**
   * The time left once {@code done} tables finished, from the tables' expected durations, scaled by
   * how long the finished ones took against theirs; empty before the first has finished.
   */
  private String timeLeft(
      Map<String, CommandLine> planned, int done, double expectedDone, Duration elapsed) {
    double expectedLeft = 0;
    int index = 0;
    for (String table : planned.keySet()) {
      if (index++ >= done) {
        expectedLeft += expected(table);
      }
    }
    double scale = done == 0 ? 1.0 : elapsed.toMillis() / 1000.0 / expectedDone;
    return ", about "
        + ProgressReporter.format(Duration.ofMillis(Math.round(expectedLeft * scale * 1000)))
        + " left";
  }

  private double expected(String table) {
    int[] seconds = EXPECTED_SECONDS.get(table);
    return seconds == null ? UNKNOWN_SECONDS : seconds[quick ? 0 : 1];
  }
}
