package dev.stowage.bench.transport;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.bench.http.BoardPostMaker;
import dev.stowage.bench.http.BoardPreload;
import dev.stowage.bench.http.BoardProcess;
import dev.stowage.bench.http.HttpLoadClient;
import dev.stowage.bench.http.ReactorHttpLoadClient;
import dev.stowage.bench.load.LoadGenerator;
import dev.stowage.bench.load.LoadPlan;
import dev.stowage.bench.load.LoadResult;
import dev.stowage.bench.load.Outcome;
import dev.stowage.bench.load.RequestIssuer;
import dev.stowage.board.BoardFormats;
import dev.stowage.board.BoardMode;
import dev.stowage.board.client.StowageBoardClient;
import dev.stowage.board.protocol.NewBoard;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

/**
 * Table T6: the same board reads and writes over HTTP with JSON, HTTP with MessagePack, the board
 * protocol over TCP, and the board protocol over TLS.
 *
 * <p>One board service runs in a JVM of its own ({@link BoardProcess}, stowage mode, embedded
 * Redis, in-memory H2) with its HTTP port, a plain TCP port and a TLS port whose certificate this
 * bench generates and its TLS clients trust. It is preloaded with {@link Plan#records()} posts.
 * Then, for each operation (the read {@value #READ_PATH}, or a write of one post) and each
 * concurrency, closed-loop users keep one request each in flight on every transport, the transports
 * taking turns in {@link Plan#rounds()} rounds so that whatever else the machine does weighs on all
 * alike. Rows report requests per second, p50/p99 and the bytes that crossed the sockets per
 * request (headers, frames and TLS records included; {@code bytes_per_request} in the results
 * counts bodies only, where the issuer sees them); ratios are against HTTP with JSON at the same
 * operation and concurrency.
 *
 * <p>The HTTP users share one Reactor Netty client with a keep-alive connection per user; the TCP
 * users share {@link Plan#tcpConnections()} {@link StowageBoardClient}s, each one connection with
 * many requests multiplexed on it. Both sides get as many client I/O threads: one per connection
 * for TCP, {@code tcpConnections} event loops for HTTP. Neither decodes the page it reads; both
 * send pre-made posts, which the TCP client encodes as MessagePack.
 */
public final class TransportBench {

  /** The results' {@code bench} name and file name. */
  public static final String BENCH_NAME = "transport";

  /** The read: the newest 25 posts, as in table T1. */
  public static final String READ_PATH = "/boards?page=1&size=25";

  private static final int PAGE = 1;
  private static final int PAGE_SIZE = 25;
  private static final int WRITE_BODIES = 2000;

  /** A way of reaching the board service. */
  public enum Transport {
    /** HTTP/1.1 keep-alive, JSON bodies: the seed's configuration and the baseline. */
    HTTP_JSON("http-json", RowRole.SEED),
    /** HTTP/1.1 keep-alive, MessagePack bodies. */
    HTTP_MSGPACK("http-msgpack", RowRole.PEER),
    /** The board protocol on a persistent TCP connection, MessagePack bodies. */
    TCP("tcp", RowRole.STOWAGE),
    /** The board protocol inside TLS. */
    TCP_TLS("tcp-tls", RowRole.STOWAGE);

    private final String label;
    private final RowRole role;

    Transport(String label, RowRole role) {
      this.label = label;
      this.role = role;
    }

    /** The name on the command line and in the results. */
    public String label() {
      return label;
    }

    /**
     * The transport named {@code label}.
     *
     * @throws IllegalArgumentException naming the accepted labels
     */
    public static Transport parse(String label) {
      for (Transport transport : values()) {
        if (transport.label.equalsIgnoreCase(label.strip())) {
          return transport;
        }
      }
      throw new IllegalArgumentException(
          "unknown transport '"
              + label
              + "'; expected one of "
              + Arrays.stream(values()).map(Transport::label).collect(Collectors.joining(", ")));
    }
  }

  /** The baseline row of every ratio. */
  public static final String BASELINE = Transport.HTTP_JSON.label();

  /**
   * What to run.
   *
   * @param transports the transports, in the order they take turns; at least one, no repeats
   * @param concurrencies the numbers of concurrent users, each with one request in flight
   * @param records posts preloaded before the loads, at least 1
   * @param duration each cell's measured time (operation × concurrency × transport)
   * @param warmup each operation's unmeasured run per transport, at the highest concurrency
   * @param rounds slices each cell's duration is cut into, the transports taking turns
   * @param tcpConnections TCP connections per TCP transport (and HTTP client I/O threads)
   * @param quick whether these are the {@code --quick} settings (recorded in the results)
   * @param logDir where the board service's log is written
   */
  public record Plan(
      List<Transport> transports,
      List<Integer> concurrencies,
      int records,
      Duration duration,
      Duration warmup,
      int rounds,
      int tcpConnections,
      boolean quick,
      Path logDir) {

    /** Concurrencies by default. */
    public static final List<Integer> DEFAULT_CONCURRENCIES = List.of(16, 64, 256);

    /** {@code --quick}: concurrencies. */
    public static final List<Integer> QUICK_CONCURRENCIES = List.of(32, 128);

    /** Posts preloaded by default. */
    public static final int DEFAULT_RECORDS = 20_000;

    /** {@code --quick}: posts preloaded. */
    public static final int QUICK_RECORDS = 5_000;

    /** Each cell's measured time by default. */
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(20);

    /** {@code --quick}: each cell's measured time. */
    public static final Duration QUICK_DURATION = Duration.ofSeconds(6);

    /** The warm-up by default. */
    public static final Duration DEFAULT_WARMUP = Duration.ofSeconds(5);

    /** {@code --quick}: the warm-up. */
    public static final Duration QUICK_WARMUP = Duration.ofSeconds(3);

    /** Rounds each cell is cut into. */
    public static final int DEFAULT_ROUNDS = 2;

    /**
     * Checks the plan.
     *
     * @throws IllegalArgumentException naming what is out of range
     */
    public Plan {
      transports = List.copyOf(Objects.requireNonNull(transports, "transports"));
      concurrencies = List.copyOf(Objects.requireNonNull(concurrencies, "concurrencies"));
      Objects.requireNonNull(duration, "duration");
      Objects.requireNonNull(warmup, "warmup");
      Objects.requireNonNull(logDir, "logDir");
      if (transports.isEmpty()) {
        throw new IllegalArgumentException(
            "no transport to run; choose from "
                + Arrays.stream(Transport.values())
                    .map(Transport::label)
                    .collect(Collectors.joining(", ")));
      }
      if (transports.stream().distinct().count() != transports.size()) {
        throw new IllegalArgumentException("a transport is listed twice: " + transports);
      }
      if (concurrencies.isEmpty() || concurrencies.stream().anyMatch(c -> c < 1 || c > 10_000)) {
        throw new IllegalArgumentException(
            "concurrencies must be from 1 to 10000, not " + concurrencies);
      }
      if (records < 1) {
        throw new IllegalArgumentException("records must be at least 1, not " + records);
      }
      if (warmup.isNegative()) {
        throw new IllegalArgumentException("warm-up must not be negative, not " + warmup);
      }
      if (rounds < 1 || duration.dividedBy(rounds).toMillis() < 100) {
        throw new IllegalArgumentException(
            "rounds must be at least 1 and leave each slice 100 ms,"
                + " not "
                + rounds
                + " rounds of "
                + duration);
      }
      if (tcpConnections < 1 || tcpConnections > 64) {
        throw new IllegalArgumentException(
            "TCP connections must be from 1 to 64, not " + tcpConnections);
      }
    }

    /** The plan {@code stowage bench transport} runs with no options ({@code quick}: --quick). */
    public static Plan defaults(boolean quick, Path logDir) {
      return new Plan(
          List.of(Transport.values()),
          quick ? QUICK_CONCURRENCIES : DEFAULT_CONCURRENCIES,
          quick ? QUICK_RECORDS : DEFAULT_RECORDS,
          quick ? QUICK_DURATION : DEFAULT_DURATION,
          quick ? QUICK_WARMUP : DEFAULT_WARMUP,
          DEFAULT_ROUNDS,
          defaultTcpConnections(),
          quick,
          logDir);
    }

    /** Half the cores, at least one: the load shares the machine with the service. */
    public static int defaultTcpConnections() {
      return Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    }
  }

  private final Plan plan;
  private final PrintStream progress;

  private TransportBench(Plan plan, PrintStream progress) {
    this.plan = Objects.requireNonNull(plan, "plan");
    this.progress = Objects.requireNonNull(progress, "progress");
  }

  /**
   * Runs the plan, printing progress to {@code progress}.
   *
   * @throws BenchmarkRunException if Redis or the board service cannot start or the preload fails;
   *     whatever was started is stopped first
   */
  public static ResultsDocument run(Plan plan, PrintStream progress) {
    return new TransportBench(plan, progress).runAll();
  }

  /** The terminal table: one section per operation and concurrency, ratios against HTTP/JSON. */
  public static ResultTable table() {
    return ResultTable.builder()
        .text("transport", ResultRow::name)
        .metric("rps", "rps", 0)
        .metric("p50 ms", "p50_ms", 2)
        .metric("p99 ms", "p99_ms", 2)
        .metric("errors", "errors", 0)
        .metric("wire B/req", "wire_bytes_per_request", 0)
        .ratio("rps/json", "rps")
        .ratio("p99/json", "p99_ms")
        .ratio("B/json", "wire_bytes_per_request")
        .baseline(BASELINE, "operation", "users")
        .groupBy("cell")
        .build();
  }

  private ResultsDocument runAll() {
    SelfSignedCertificate certificate = null;
    BenchRedis redis = null;
    BoardProcess board = null;
    Clients clients = null;
    try {
      progress.println("== starting Redis and the board service (HTTP, TCP and TLS ports)");
      certificate = new SelfSignedCertificate("localhost");
      redis = BenchRedis.embedded();
      int tcpPort = BoardProcess.freePort();
      int tlsPort = BoardProcess.freePort();
      int maxUsers = plan.concurrencies().stream().mapToInt(Integer::intValue).max().orElseThrow();
      board =
          BoardProcess.start(
              BoardMode.STOWAGE,
              redis.uri(),
              List.of(),
              List.of(
                  "--stowage.board.tcp.port=" + tcpPort,
                  "--stowage.board.tcp.tls-port=" + tlsPort,
                  "--stowage.board.tcp.tls-cert=" + certificate.certificate().getAbsolutePath(),
                  "--stowage.board.tcp.tls-key=" + certificate.privateKey().getAbsolutePath()),
              plan.logDir().resolve("board-transport.log"),
              BoardProcess.DEFAULT_START_TIMEOUT);
      progress.printf(
          "== board pid %d: %s, tcp 127.0.0.1:%d, tls 127.0.0.1:%d (log %s)%n",
          board.pid(), board.url(), tcpPort, tlsPort, board.log());
      clients = new Clients(board, tcpPort, tlsPort, certificate.certificate().toPath(), maxUsers);
      new BoardPreload(plan.records(), progress).load("transport", clients.http, board);
      Writes writes = new Writes();
      List<ResultRow> rows = new ArrayList<>();
      for (String operation : List.of("read", "write")) {
        Map<Transport, RequestIssuer> issuers = new LinkedHashMap<>();
        for (Transport transport : plan.transports()) {
          issuers.put(transport, issuer(transport, operation, clients, writes));
        }
        warmUp(operation, issuers, maxUsers);
        for (int users : plan.concurrencies()) {
          rows.addAll(measure(operation, users, issuers, clients));
        }
      }
      if (!board.isAlive()) {
        throw new BenchmarkRunException(
            "the board service died during the loads; last lines of "
                + board.log()
                + ":\n"
                + board.lastLogLines(),
            null);
      }
      return new ResultsDocument(
          BENCH_NAME,
          plan.quick(),
          RunEnvironment.capture(redis.version(), Clock.system(ZoneId.systemDefault())),
          rows);
    } catch (CertificateException e) {
      throw new BenchmarkRunException(
          "cannot generate a self-signed certificate for the TLS port: " + e.getMessage(), e);
    } finally {
      if (clients != null) {
        clients.close();
      }
      if (board != null) {
        board.close();
      }
      if (redis != null) {
        redis.close();
      }
      if (certificate != null) {
        certificate.delete();
      }
    }
  }

  private void warmUp(String operation, Map<Transport, RequestIssuer> issuers, int users) {
    if (plan.warmup().isZero()) {
      return;
    }
    for (Map.Entry<Transport, RequestIssuer> entry : issuers.entrySet()) {
      String label = "warm-up " + operation + " " + entry.getKey().label();
      LoadResult warm =
          LoadGenerator.run(label, allAtOnce(users, plan.warmup()), entry.getValue(), progress);
      progress.printf(
          Locale.ROOT,
          "== %s: %.0f rps, %d errors (not counted)%n",
          label,
          warm.requestsPerSecond(),
          warm.errors());
    }
  }

  /**
   * One cell per transport at {@code users}, measured in rounds in which the transports take turns.
   */
  private List<ResultRow> measure(
      String operation, int users, Map<Transport, RequestIssuer> issuers, Clients clients) {
    Duration slice = plan.duration().dividedBy(plan.rounds());
    Map<Transport, List<LoadResult>> slices = new LinkedHashMap<>();
    Map<Transport, long[]> wire = new LinkedHashMap<>();
    for (int round = 1; round <= plan.rounds(); round++) {
      for (Map.Entry<Transport, RequestIssuer> entry : issuers.entrySet()) {
        Transport transport = entry.getKey();
        LongSupplier wireBytes = clients.wireBytes(transport);
        long before = wireBytes.getAsLong();
        String label =
            operation + " " + transport.label() + " x" + users + " " + round + "/" + plan.rounds();
        LoadResult result =
            LoadGenerator.run(label, allAtOnce(users, slice), entry.getValue(), progress);
        long[] totals = wire.computeIfAbsent(transport, t -> new long[2]);
        totals[0] += wireBytes.getAsLong() - before;
        totals[1] += result.succeeded() + result.errors();
        slices.computeIfAbsent(transport, t -> new ArrayList<>()).add(result);
      }
    }
    List<ResultRow> rows = new ArrayList<>();
    for (Transport transport : issuers.keySet()) {
      LoadResult combined =
          LoadResult.combine(
              operation + " " + transport.label() + " x" + users,
              requireNonNull(slices.get(transport)));
      progress.printf(
          Locale.ROOT,
          "== %s: %.0f rps, p50 %.2f ms, p99 %.2f ms, %d errors%s%n",
          combined.label(),
          combined.requestsPerSecond(),
          combined.latencyMillis(50),
          combined.latencyMillis(99),
          combined.errors(),
          combined.failures().isEmpty() ? "" : " " + combined.failures());
      long[] totals = requireNonNull(wire.get(transport));
      rows.add(
          row(transport, operation, users, combined, totals[1] == 0 ? 0 : totals[0] / totals[1]));
    }
    return rows;
  }

  private ResultRow row(
      Transport transport,
      String operation,
      int users,
      LoadResult result,
      long wireBytesPerRequest) {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("transport", transport.label());
    params.put("operation", operation);
    params.put("users", users);
    params.put("cell", operation + ", " + users + " users");
    params.put(
        "request",
        operation.equals("read") ? "page " + PAGE + ", size " + PAGE_SIZE : "create one post");
    params.put("records", plan.records());
    params.put("duration_s", plan.duration().toMillis() / 1000.0);
    params.put("rounds", plan.rounds());
    params.put("tcp_connections", plan.tcpConnections());
    if (!result.failures().isEmpty()) {
      params.put("errors_by_cause", result.failures());
    }
    Map<String, Number> metrics = new LinkedHashMap<>(result.metrics());
    if (!bodiesCounted(transport, operation)) {
      metrics.remove("bytes_per_request");
    }
    metrics.put("wire_bytes_per_request", wireBytesPerRequest);
    return new ResultRow(transport.label(), transport.role, params, metrics);
  }

  /**
   * Whether the issuer counts request and response bodies: the TCP client's create encodes the post
   * and decodes the reply itself, so only the sockets' bytes are known for it.
   */
  private static boolean bodiesCounted(Transport transport, String operation) {
    return operation.equals("read")
        || transport == Transport.HTTP_JSON
        || transport == Transport.HTTP_MSGPACK;
  }

  private static LoadPlan allAtOnce(int users, Duration duration) {
    return new LoadPlan(users, users * 1000.0, duration);
  }

  private RequestIssuer issuer(
      Transport transport, String operation, Clients clients, Writes writes) {
    boolean read = operation.equals("read");
    AtomicInteger next = new AtomicInteger();
    return switch (transport) {
      case HTTP_JSON ->
          read
              ? user -> clients.http.get(READ_PATH, HttpLoadClient.JSON)
              : user ->
                  clients.http.post(
                      "/boards",
                      HttpLoadClient.JSON,
                      HttpLoadClient.JSON,
                      writes.json.get(Math.floorMod(next.getAndIncrement(), writes.json.size())));
      case HTTP_MSGPACK ->
          read
              ? user -> clients.http.get(READ_PATH, HttpLoadClient.MSGPACK)
              : user ->
                  clients.http.post(
                      "/boards",
                      HttpLoadClient.MSGPACK,
                      HttpLoadClient.MSGPACK,
                      writes.msgpack.get(
                          Math.floorMod(next.getAndIncrement(), writes.msgpack.size())));
      case TCP, TCP_TLS -> {
        List<StowageBoardClient> connections =
            transport == Transport.TCP ? clients.tcp : clients.tls;
        yield read
            ? user ->
                outcome(
                    connections
                        .get(user % connections.size())
                        .pageBytes(PAGE, PAGE_SIZE)
                        .thenApply(body -> (long) body.length))
            : user ->
                outcome(
                    connections
                        .get(user % connections.size())
                        .create(
                            writes.posts.get(
                                Math.floorMod(next.getAndIncrement(), writes.posts.size())))
                        .thenApply(board -> 0L));
      }
    };
  }

  private static CompletionStage<Outcome> outcome(CompletionStage<Long> bodyBytes) {
    return bodyBytes.handle(
        (bytes, error) -> error == null ? Outcome.success(bytes) : Outcome.failure(error));
  }

  /** The posts the write load sends, in each transport's form, made once. */
  private static final class Writes {
    final List<byte[]> json = new ArrayList<>(WRITE_BODIES);
    final List<byte[]> msgpack = new ArrayList<>(WRITE_BODIES);
    final List<NewBoard> posts = new ArrayList<>(WRITE_BODIES);

    Writes() {
      BoardFormats formats = new BoardFormats();
      ObjectMapper jsonMapper = formats.json();
      ObjectMapper msgpackMapper = formats.msgpack();
      BoardPostMaker maker = new BoardPostMaker(BoardPostMaker.DEFAULT_SEED + 2);
      try {
        for (int i = 0; i < WRITE_BODIES; i++) {
          byte[] body = maker.post();
          NewBoard post = jsonMapper.readValue(body, NewBoard.class);
          json.add(body);
          msgpack.add(msgpackMapper.writeValueAsBytes(post));
          posts.add(post);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot prepare the posts of the write load", e);
      }
    }
  }

  /** The HTTP client and the TCP and TLS connections the users share. */
  private final class Clients implements AutoCloseable {
    final ReactorHttpLoadClient http;
    final List<StowageBoardClient> tcp = new ArrayList<>();
    final List<StowageBoardClient> tls = new ArrayList<>();

    Clients(BoardProcess board, int tcpPort, int tlsPort, Path certificate, int maxUsers) {
      http = new ReactorHttpLoadClient(board.url(), maxUsers, plan.tcpConnections());
      try {
        for (int i = 0; i < plan.tcpConnections(); i++) {
          tcp.add(open(StowageBoardClient.builder("127.0.0.1", tcpPort)));
          tls.add(
              open(
                  StowageBoardClient.builder("127.0.0.1", tlsPort)
                      .tls(certificate)
                      .tlsServerName("localhost")));
        }
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }

    private StowageBoardClient open(StowageBoardClient.Builder builder) {
      StowageBoardClient client = builder.requestTimeout(Duration.ofSeconds(60)).build();
      try {
        client.ping().get(30, TimeUnit.SECONDS);
      } catch (Exception e) {
        client.close();
        throw new BenchmarkRunException("the board's TCP endpoint does not answer a ping: " + e, e);
      }
      return client;
    }

    /** Bytes that crossed the sockets of {@code transport}'s users so far, both ways. */
    LongSupplier wireBytes(Transport transport) {
      return switch (transport) {
        case HTTP_JSON, HTTP_MSGPACK -> () -> http.wireBytesSent() + http.wireBytesReceived();
        case TCP -> () -> sum(tcp);
        case TCP_TLS -> () -> sum(tls);
      };
    }

    private long sum(List<StowageBoardClient> clients) {
      long total = 0;
      for (StowageBoardClient client : clients) {
        total += client.bytesSent() + client.bytesReceived();
      }
      return total;
    }

    @Override
    public void close() {
      for (StowageBoardClient client : tcp) {
        client.close();
      }
      for (StowageBoardClient client : tls) {
        client.close();
      }
      if (http != null) {
        http.close();
      }
    }
  }
}
