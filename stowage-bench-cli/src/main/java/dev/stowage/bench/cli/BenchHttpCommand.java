package dev.stowage.bench.cli;

import static java.util.Objects.requireNonNull;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.http.HttpBench;
import dev.stowage.bench.http.HttpClientKind;
import dev.stowage.bench.http.Wrk;
import dev.stowage.bench.load.LoadPlan;
import dev.stowage.board.BoardMode;
import dev.stowage.cli.StowageVersion;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code stowage bench http}: table T1, the board service's write and read loads in each mode. */
@Command(
    name = "http",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header = "Table T1: the board service's writes and reads in its stowage and seed modes.",
    description = {
      "Table T1: the board service in stowage, seed-json and seed-msgpack modes, each in a JVM of its own "
          + "with a fresh embedded Redis and H2, preloaded through POST /boards/bulk, then a write load (POST /boards) "
          + "and a read load (GET /boards?page=1&size=25) from the same virtual users: RPS, p50/p95/p99, errors, "
          + "Redis used_memory, and wrk's RPS on the read page when wrk is on the PATH. Ratios are against seed-json.",
      "Each load is measured in rounds in which the modes take turns, so that a busy machine weighs on all alike.",
      "With --events, the cost of the events outbox: an embedded one-node Kafka broker (KRaft, loopback) starts "
          + "first and each mode also runs as <mode>+events, publishing every created post through its outbox; its "
          + "write row stands beside the events-off row with their ratio over the load and its range over the rounds, "
          + "and says whether the outbox drained after the load. `--modes stowage --events` measures stowage alone."
    })
final class BenchHttpCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description =
          "20,000 posts, 200 users started in 5 s, 10 s of warm-up and 15 s per load: about 5 minutes for"
              + " the three modes (6 with --events).")
  boolean quick;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "results",
      description =
          "Directory for http.json and the board services' logs (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--modes",
      paramLabel = "MODE",
      split = ",",
      converter = ModeConverter.class,
      description =
          "Comma-separated modes, run in this order (default: stowage,seed-json,seed-msgpack).")
  List<BoardMode> modes = List.of(BoardMode.STOWAGE, BoardMode.SEED_JSON, BoardMode.SEED_MSGPACK);

  @Option(
      names = "--records",
      paramLabel = "N",
      description = "Posts preloaded before the loads (default: 120000; 20000 with --quick).")
  Integer records;

  @Option(
      names = "--users",
      paramLabel = "U",
      description =
          "Concurrent virtual users, each with one request in flight (default: 1000; 200 with --quick).")
  Integer users;

  @Option(
      names = "--ramp",
      paramLabel = "PER_SECOND",
      description = "Users started per second (default: 200; 40 with --quick).")
  Double ramp;

  @Option(
      names = "--duration",
      paramLabel = "SECONDS",
      description = "Length of each load, ramp included (default: 60; 15 with --quick).")
  Integer duration;

  @Option(
      names = "--warmup",
      paramLabel = "SECONDS",
      description =
          "Unmeasured warm-up of each load before it is measured (default: 10, as with --quick).")
  Integer warmup;

  @Option(
      names = "--rounds",
      paramLabel = "N",
      defaultValue = "3",
      description =
          "Each load's duration is cut into N slices, the modes taking turns (default: ${DEFAULT-VALUE}).")
  int rounds;

  @Option(
      names = "--client",
      paramLabel = "KIND",
      defaultValue = "netty",
      description =
          "HTTP client of the virtual users: netty (Netty's HTTP codec alone, the cheapest per"
              + " request), reactor (Reactor Netty) or jdk (default: ${DEFAULT-VALUE}).")
  String client;

  @Option(
      names = "--no-wrk",
      description = "Do not run wrk after the loads even when it is on the PATH.")
  boolean noWrk;

  @Option(
      names = "--events",
      description =
          "Also measure each mode's writes with a Kafka event for every created post (an outbox"
              + " relayed to an embedded one-node broker the bench starts), beside the same mode with events off:"
              + " one more service per mode, in the write load only.")
  boolean events;

  @Option(
      names = "--no-near-cache",
      description =
          "Stowage mode reads every page from Redis instead of keeping decoded pages in the process"
              + " (its default), to measure the Redis path alone.")
  boolean noNearCache;

  /** The plan these options describe. */
  HttpBench.Plan plan() {
    int userCount =
        users != null ? users : quick ? HttpBench.Plan.QUICK_USERS : HttpBench.Plan.DEFAULT_USERS;
    double rampRate =
        ramp != null ? ramp : quick ? HttpBench.Plan.QUICK_RAMP : HttpBench.Plan.DEFAULT_RAMP;
    Duration length =
        duration != null
            ? Duration.ofSeconds(duration)
            : quick ? HttpBench.Plan.QUICK_DURATION : HttpBench.Plan.DEFAULT_DURATION;
    int posts =
        records != null
            ? records
            : quick ? HttpBench.Plan.QUICK_RECORDS : HttpBench.Plan.DEFAULT_RECORDS;
    Duration warm =
        warmup != null
            ? Duration.ofSeconds(warmup)
            : quick ? HttpBench.Plan.QUICK_WARMUP : HttpBench.Plan.DEFAULT_WARMUP;
    Optional<Wrk> wrk = noWrk ? Optional.empty() : Wrk.onPath();
    return new HttpBench.Plan(
        modes,
        posts,
        new LoadPlan(userCount, rampRate, length),
        warm,
        rounds,
        quick,
        HttpClientKind.parse(client),
        wrk,
        out.resolve("logs"),
        !noNearCache,
        events);
  }

  @Override
  public Integer call() {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter stderr = spec.commandLine().getErr();
    HttpBench.Plan plan;
    try {
      plan = plan();
    } catch (IllegalArgumentException e) {
      stderr.println("bench http: " + e.getMessage());
      return 2;
    }
    stderr.printf(
        "bench http: modes %s%s, %,d posts, %d users at %.0f/s for %ds per load after %ds of warm-up,"
            + " client %s, wrk %s%n",
        plan.modes(),
        plan.events() ? " with events off and on" : "",
        plan.records(),
        plan.load().users(),
        plan.load().rampPerSecond(),
        plan.load().duration().toSeconds(),
        plan.warmup().toSeconds(),
        plan.client().label(),
        plan.wrk().map(w -> w.executable().toString()).orElse("not run"));
    stderr.flush();
    ResultsDocument results;
    try {
      results = HttpBench.run(plan, new PrintStream(System.err, true));
    } catch (BenchmarkRunException e) {
      stderr.println("bench http failed: " + e.getMessage());
      return 1;
    }
    stdout.print(HttpBench.table(plan.events()).render(results.rows()));
    stdout.print(HttpBench.eventsSummary(results.rows()));
    stdout.flush();
    try {
      Path file = results.writeTo(out);
      stderr.println("results written to " + file);
    } catch (UncheckedIOException e) {
      stderr.println(
          "bench http: " + e.getMessage() + ": " + requireNonNull(e.getCause()).getMessage());
      return 1;
    }
    return 0;
  }

  /** Converts a mode label, naming the valid ones when it is unknown. */
  static final class ModeConverter implements ITypeConverter<BoardMode> {
    @Override
    public BoardMode convert(String value) {
      try {
        return BoardMode.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
