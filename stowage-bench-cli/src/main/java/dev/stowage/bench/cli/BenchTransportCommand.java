package dev.stowage.bench.cli;

import static java.util.Objects.requireNonNull;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.transport.TransportBench;
import dev.stowage.bench.transport.TransportBench.Transport;
import dev.stowage.cli.StowageVersion;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code stowage bench transport}: table T6, HTTP with JSON or MessagePack against the board
 * protocol.
 */
@Command(
    name = "transport",
    mixinStandardHelpOptions = true,
    versionProvider = StowageVersion.class,
    header = "Table T6: board reads and writes over HTTP (JSON, MessagePack) and the TCP protocol.",
    description = {
      "Table T6: the same board reads (GET /boards?page=1&size=25) and writes (one post) over HTTP with JSON, "
          + "HTTP with MessagePack, the board protocol on a persistent TCP connection, and the same inside TLS, against "
          + "one board service in a JVM of its own (embedded Redis, in-memory H2). RPS, p50/p99 and the bytes that crossed "
          + "the sockets per request, at several concurrencies; ratios are against HTTP with JSON."
    })
final class BenchTransportCommand implements Callable<Integer> {

  @Spec CommandSpec spec;

  @Option(
      names = "--quick",
      description =
          "5,000 posts, 32 and 128 users, 6 s per cell after 3 s of warm-up: about 3 minutes.")
  boolean quick;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      defaultValue = "results",
      description =
          "Directory for transport.json and the board service's log (default: ${DEFAULT-VALUE}).")
  Path out;

  @Option(
      names = "--transports",
      paramLabel = "T",
      split = ",",
      converter = TransportConverter.class,
      description =
          "Comma-separated transports, taking turns in this order"
              + " (default: http-json,http-msgpack,tcp,tcp-tls).")
  List<Transport> transports;

  @Option(
      names = "--users",
      paramLabel = "N",
      split = ",",
      description = "Comma-separated concurrencies (default: 16,64,256; 32,128 with --quick).")
  List<Integer> users;

  @Option(
      names = "--records",
      paramLabel = "N",
      description = "Posts preloaded before the loads (default: 20000; 5000 with --quick).")
  Integer records;

  @Option(
      names = "--duration",
      paramLabel = "SECONDS",
      description =
          "Measured time of each transport at each operation and concurrency (default: 20; 6 with --quick).")
  Integer duration;

  @Option(
      names = "--warmup",
      paramLabel = "SECONDS",
      description =
          "Unmeasured run of each operation on each transport first (default: 5; 3 with --quick).")
  Integer warmup;

  @Option(
      names = "--rounds",
      paramLabel = "N",
      description = "Each duration is cut into N slices, the transports taking turns (default: 2).")
  Integer rounds;

  @Option(
      names = "--tcp-connections",
      paramLabel = "N",
      description =
          "Connections of each TCP transport, and the HTTP client's I/O threads (default: half the cores).")
  Integer tcpConnections;

  /** The plan these options describe. */
  TransportBench.Plan plan() {
    TransportBench.Plan defaults = TransportBench.Plan.defaults(quick, out.resolve("logs"));
    return new TransportBench.Plan(
        transports != null ? transports : defaults.transports(),
        users != null ? users : defaults.concurrencies(),
        records != null ? records : defaults.records(),
        duration != null ? Duration.ofSeconds(duration) : defaults.duration(),
        warmup != null ? Duration.ofSeconds(warmup) : defaults.warmup(),
        rounds != null ? rounds : defaults.rounds(),
        tcpConnections != null ? tcpConnections : defaults.tcpConnections(),
        quick,
        defaults.logDir());
  }

  @Override
  public Integer call() {
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter stderr = spec.commandLine().getErr();
    TransportBench.Plan plan;
    try {
      plan = plan();
    } catch (IllegalArgumentException e) {
      stderr.println("bench transport: " + e.getMessage());
      return 2;
    }
    stderr.printf(
        "bench transport: %s at %s users, %,d posts, %ds per cell in %d rounds after %ds of warm-up,"
            + " %d TCP connections%n",
        plan.transports().stream().map(Transport::label).toList(),
        plan.concurrencies(),
        plan.records(),
        plan.duration().toSeconds(),
        plan.rounds(),
        plan.warmup().toSeconds(),
        plan.tcpConnections());
    stderr.flush();
    ResultsDocument results;
    try {
      results = TransportBench.run(plan, new PrintStream(System.err, true));
    } catch (BenchmarkRunException e) {
      stderr.println("bench transport failed: " + e.getMessage());
      return 1;
    }
    stdout.print(TransportBench.table().render(results.rows()));
    stdout.flush();
    try {
      stderr.println("results written to " + results.writeTo(out));
    } catch (UncheckedIOException e) {
      stderr.println(
          "bench transport: " + e.getMessage() + ": " + requireNonNull(e.getCause()).getMessage());
      return 1;
    }
    return 0;
  }

  /** Converts a transport label, naming the valid ones when it is unknown. */
  static final class TransportConverter implements ITypeConverter<Transport> {
    @Override
    public Transport convert(String value) {
      try {
        return Transport.parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
