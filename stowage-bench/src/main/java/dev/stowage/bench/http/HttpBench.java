package dev.stowage.bench.http;

import static java.util.Objects.requireNonNull;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.bench.load.LoadGenerator;
import dev.stowage.bench.load.LoadPlan;
import dev.stowage.bench.load.LoadResult;
import dev.stowage.bench.load.RequestIssuer;
import dev.stowage.board.BoardMode;
import dev.stowage.embedded.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Table T1: the board service's write and read loads in each mode.
 *
 * <p>For each mode, in the plan's order: a fresh embedded Redis; the board service in a JVM of its
 * own ({@link BoardProcess}) with its own in-memory H2; the preload of {@link Plan#records()} posts
 * through {@code POST /boards/bulk} ({@link BoardPreload}); Redis {@code used_memory}; one
 * {@code GET} of the read page to record its size. All services stay up; then the write load
 * ({@code POST /boards}) and the read load ({@value #READ_PATH}) from the same virtual users, each
 * after an unmeasured warm-up per mode (so that both JVMs have compiled their paths) and measured
 * in rounds in which the modes take turns, so that whatever else the machine is doing weighs on
 * every mode alike; last, {@code wrk} on each read page when the plan asks for it. Rows are named by mode and grouped by load; ratios are against
 * seed-json in the same run.
 */
public final class HttpBench {

  /** The read the seed measured: the newest 25 posts. */
  public static final String READ_PATH = "/boards?page=1&size=25";

  /** The mode the ratios are taken against. */
  public static final String BASELINE = BoardMode.SEED_JSON.label();

  private static final int WRITE_BODIES = 4000;

  private final Plan plan;
  private final PrintStream progress;
  private final BoardPreload preload;
  private @Nullable List<byte[]> writeBodies;
  private @Nullable String redisVersion;

  private HttpBench(Plan plan, PrintStream progress) {
    this.plan = Objects.requireNonNull(plan, "plan");
    this.progress = Objects.requireNonNull(progress, "progress");
    this.preload = new BoardPreload(plan.records(), progress);
  }

  /**
   * What to run.
   *
   * @param modes the modes, in the order they run; at least one, no repeats
   * @param records posts preloaded before the loads, at least 1
   * @param load users, ramp and duration of each load
   * @param warmup how long each load runs unmeasured first; zero for no warm-up
   * @param rounds how many slices each load's duration is cut into, the modes taking turns
   * @param quick whether these are the short {@code --quick} settings (recorded in the results)
   * @param client the HTTP client the users send with
   * @param wrk run {@code wrk} on the read page after the read load, or empty for none
   * @param logDir where the board services' logs are written
   * @param nearCache whether stowage mode keeps decoded pages in the process (its default)
   */
  public record Plan(List<BoardMode> modes, int records, LoadPlan load, Duration warmup, int rounds,
      boolean quick, HttpClientKind client,
      Optional<Wrk> wrk, Path logDir, boolean nearCache) {

    /** The seed's figures: 120,000 posts, 1000 users at 200 a second for 60 s. */
    public static final int DEFAULT_RECORDS = 120_000;
    /** Users in the seed's locust run. */
    public static final int DEFAULT_USERS = 1000;
    /** Users started per second in the seed's locust run. */
    public static final double DEFAULT_RAMP = 200;
    /** The seed's locust run time. */
    public static final Duration DEFAULT_DURATION = Duration.ofSeconds(60);
    /** {@code --quick}: posts preloaded. */
    public static final int QUICK_RECORDS = 20_000;
    /** {@code --quick}: users. */
    public static final int QUICK_USERS = 200;
    /** {@code --quick}: users per second (all started in 5 s). */
    public static final double QUICK_RAMP = 40;
    /** {@code --quick}: each load's length. */
    public static final Duration QUICK_DURATION = Duration.ofSeconds(15);
    /** Rounds each load is cut into, the modes taking turns. */
    public static final int DEFAULT_ROUNDS = 3;
    /** The unmeasured warm-up before each load. */
    public static final Duration DEFAULT_WARMUP = Duration.ofSeconds(10);
    /**
     * {@code --quick}: the warm-up before each load: the ramp's 5 s, then 5 s with every user, so
     * that the services' compilers have settled before the measured rounds (with 5 s, read rates
     * still tripled from the first round to the last on two cores).
     */
    public static final Duration QUICK_WARMUP = Duration.ofSeconds(10);

    /**
     * Checks the plan.
     *
     * @throws IllegalArgumentException if there is no mode, a mode repeats, or records is below 1
     */
    public Plan {
      modes = List.copyOf(Objects.requireNonNull(modes, "modes"));
      Objects.requireNonNull(load, "load");
      Objects.requireNonNull(warmup, "warmup");
      if (warmup.isNegative()) {
        throw new IllegalArgumentException("warm-up must not be negative, not " + warmup);
      }
      Objects.requireNonNull(client, "client");
      Objects.requireNonNull(wrk, "wrk");
      Objects.requireNonNull(logDir, "logDir");
      if (modes.isEmpty()) {
        throw new IllegalArgumentException("no mode to run; choose from stowage, seed-json, seed-msgpack");
      }
      if (modes.stream().distinct().count() != modes.size()) {
        throw new IllegalArgumentException("a mode is listed twice: " + modes);
      }
      if (rounds < 1 || load.duration().dividedBy(rounds).isZero()) {
        throw new IllegalArgumentException("rounds must be at least 1 and leave each slice some time, not " + rounds);
      }
      if (records < 1) {
        throw new IllegalArgumentException("records must be at least 1, not " + records);
      }
    }
  }

  /**
   * Runs the plan, printing progress to {@code progress}, and returns the results document
   * ({@code "bench": "http"}).
   *
   * @throws BenchmarkRunException if Redis or a board service cannot start, or a preload request
   *     fails; the services started are stopped first
   */
  public static ResultsDocument run(Plan plan, PrintStream progress) {
    return new HttpBench(plan, progress).runAll();
  }

  /** The terminal table: one section per load, ratios against seed-json. */
  public static ResultTable table() {
    return ResultTable.builder()
        .text("mode", ResultRow::name)
        .metric("rps", "rps", 0)
        .metric("p50 ms", "p50_ms", 1)
        .metric("p95 ms", "p95_ms", 1)
        .metric("p99 ms", "p99_ms", 1)
        .metric("max ms", "max_ms", 1)
        .metric("errors", "errors", 0)
        .metric("wrk rps", "wrk_rps", 0)
        .metric("resp B", "bytes_per_request", 0)
        .metric("redis MB", "redis_used_memory_mb", 1)
        .ratio("rps/json", "rps")
        .ratio("p99/json", "p99_ms")
        .baseline(BASELINE, "load")
        .groupBy("load")
        .build();
  }

  private ResultsDocument runAll() {
    List<Target> targets = new ArrayList<>();
    try {
      for (BoardMode mode : plan.modes()) {
        targets.add(start(mode));
      }
      Map<BoardMode, LoadResult> writes = interleave("write", targets, target -> {
        List<byte[]> bodies = writeBodies();
        AtomicInteger next = new AtomicInteger();
        return user -> target.client().postJson("/boards",
            bodies.get(Math.floorMod(next.getAndIncrement(), bodies.size())));
      });
      Map<BoardMode, LoadResult> reads = interleave("read", targets, target -> target.client().getting(READ_PATH));
      List<ResultRow> rows = new ArrayList<>();
      for (Target target : targets) {
        Optional<Wrk.Result> wrk = runWrk(target);
        if (!target.board().isAlive()) {
          throw new BenchmarkRunException("the board service (" + target.mode().label() + ") died during the loads;"
              + " last lines of " + target.board().log() + ":\n" + target.board().lastLogLines(), null);
        }
        rows.add(row(target.mode(), "write", "POST /boards", requireNonNull(writes.get(target.mode())), target.usedMemory(), Map.of()));
        rows.add(row(target.mode(), "read", "GET " + READ_PATH, requireNonNull(reads.get(target.mode())), target.usedMemory(),
            readExtras(target.pageBytes(), wrk)));
      }
      return new ResultsDocument("http", plan.quick(), RunEnvironment.capture(redisVersion, Clock.systemDefaultZone()),
          rows);
    } finally {
      for (int i = targets.size() - 1; i >= 0; i--) {
        targets.get(i).close();
      }
    }
  }

  /** One mode's service, its Redis and the client of its users, preloaded and measured at rest. */
  private record Target(BoardMode mode, RedisServer redis, BoardProcess board, HttpLoadClient client,
      long usedMemory, int pageBytes) implements AutoCloseable {
    @Override
    public void close() {
      try {
        client.close();
      } finally {
        try {
          board.close();
        } finally {
          redis.close();
        }
      }
    }
  }

  private Target start(BoardMode mode) {
    String label = mode.label();
    progress.printf("== %s: starting Redis and the board service%n", label);
    RedisServer redis = RedisServer.start();
    BoardProcess board = null;
    HttpLoadClient client = null;
    try {
      List<String> arguments = mode == BoardMode.STOWAGE && !plan.nearCache()
          ? List.of("--stowage.board.near-cache=false") : List.of();
      board = BoardProcess.start(mode, redis.uri(), List.of(), arguments, plan.logDir().resolve("board-" + label + ".log"),
          BoardProcess.DEFAULT_START_TIMEOUT);
      client = plan.client().open(board.url(), plan.load().users());
      progress.printf("== %s: board pid %d on %s (log %s), redis %s%n", label, board.pid(), board.url(),
          board.log(), redis.uri());
      preload.load(label, client, board);
      long usedMemory = usedMemory(redis.uri());
      progress.printf("== %s: redis used_memory after %,d posts: %.1f MB%n", label, plan.records(), usedMemory / 1e6);
      int pageBytes = readPageSize(board.url());
      progress.printf("== %s: %s answers %,d bytes%n", label, READ_PATH, pageBytes);
      return new Target(mode, redis, board, client, usedMemory, pageBytes);
    } catch (RuntimeException e) {
      if (client != null) {
        client.close();
      }
      if (board != null) {
        board.close();
      }
      redis.close();
      throw e;
    }
  }

  /**
   * Runs one load against every target: first each one's warm-up (with the plan's ramp), then
   * {@link Plan#rounds()} rounds in which each target in turn gets its slice of the duration, so
   * that a noisy neighbour on the machine hits every mode alike. The ramp applies once per target,
   * in the warm-up or else in the first round; later rounds start every user at once (their
   * connections are already open).
   */
  private Map<BoardMode, LoadResult> interleave(String load, List<Target> targets,
      Function<Target, RequestIssuer> issuerOf) {
    Map<BoardMode, RequestIssuer> issuers = new LinkedHashMap<>();
    for (Target target : targets) {
      issuers.put(target.mode(), issuerOf.apply(target));
    }
    LoadPlan shape = plan.load();
    boolean warm = !plan.warmup().isZero();
    if (warm) {
      for (Target target : targets) {
        String label = "warm-up " + load + " " + target.mode().label();
        LoadResult warmup = LoadGenerator.run(label,
            new LoadPlan(shape.users(), shape.rampPerSecond(), plan.warmup(), shape.progressInterval()),
            requireNonNull(issuers.get(target.mode())), progress);
        progress.printf(Locale.ROOT, "== %s: %.0f rps, %d errors (not counted)%n", label,
            warmup.requestsPerSecond(), warmup.errors());
      }
    }
    Duration slice = shape.duration().dividedBy(plan.rounds());
    double allAtOnce = shape.users() * 1000.0;
    Map<BoardMode, List<LoadResult>> slices = new LinkedHashMap<>();
    for (int round = 1; round <= plan.rounds(); round++) {
      for (Target target : targets) {
        double ramp = round == 1 && !warm ? shape.rampPerSecond() : allAtOnce;
        String label = load + " " + target.mode().label() + " " + round + "/" + plan.rounds();
        slices.computeIfAbsent(target.mode(), m -> new ArrayList<>()).add(LoadGenerator.run(label,
            new LoadPlan(shape.users(), ramp, slice, shape.progressInterval()), requireNonNull(issuers.get(target.mode())), progress));
      }
    }
    Map<BoardMode, LoadResult> results = new LinkedHashMap<>();
    for (Target target : targets) {
      LoadResult combined = LoadResult.combine(load + " " + target.mode().label(), requireNonNull(slices.get(target.mode())));
      summary(combined);
      results.put(target.mode(), combined);
    }
    return results;
  }

  private Optional<Wrk.Result> runWrk(Target target) {
    return plan.wrk().map(w -> {
      String label = target.mode().label();
      progress.printf("== %s: wrk -c%d -d%ds %s%n", label, plan.load().users(), plan.load().duration().toSeconds(),
          READ_PATH);
      Wrk.Result result = w.run(target.board().url() + READ_PATH, plan.load().users(),
          Runtime.getRuntime().availableProcessors(), plan.load().duration());
      progress.printf(Locale.ROOT, "== %s: wrk %.0f rps, p99 %.1f ms, %d errors%n", label,
          result.requestsPerSecond(), result.p99Millis(), result.errors());
      return result;
    });
  }

  private static Map<String, Number> readExtras(int pageBytes, Optional<Wrk.Result> wrk) {
    Map<String, Number> extras = new LinkedHashMap<>();
    extras.put("page_bytes", pageBytes);
    wrk.ifPresent(result -> {
      extras.put("wrk_rps", Math.round(result.requestsPerSecond() * 10) / 10.0);
      extras.put("wrk_p99_ms", result.p99Millis());
      extras.put("wrk_errors", result.errors());
    });
    return extras;
  }

  private ResultRow row(BoardMode mode, String load, String request, LoadResult result, long usedMemory,
      Map<String, Number> extras) {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("mode", mode.label());
    params.put("load", load);
    params.put("request", request);
    params.put("users", plan.load().users());
    params.put("ramp_per_s", plan.load().rampPerSecond());
    params.put("duration_s", plan.load().duration().toSeconds());
    params.put("warmup_s", plan.warmup().toSeconds());
    params.put("rounds", plan.rounds());
    params.put("records", plan.records());
    params.put("client", plan.client().label());
    if (mode == BoardMode.STOWAGE) {
      params.put("near_cache", plan.nearCache());
    }
    if (!result.failures().isEmpty()) {
      params.put("errors_by_cause", result.failures());
    }
    Map<String, Number> metrics = new LinkedHashMap<>(result.metrics());
    metrics.put("redis_used_memory_bytes", usedMemory);
    metrics.put("redis_used_memory_mb", Math.round(usedMemory / 1e5) / 10.0);
    metrics.putAll(extras);
    return new ResultRow(mode.label(), mode == BoardMode.STOWAGE ? RowRole.STOWAGE : RowRole.SEED, params, metrics);
  }

  private void summary(LoadResult result) {
    progress.printf(Locale.ROOT, "== %s: %.0f rps, p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, %d errors%s%n",
        result.label(), result.requestsPerSecond(), result.latencyMillis(50), result.latencyMillis(95),
        result.latencyMillis(99), result.errors(), result.failures().isEmpty() ? "" : " " + result.failures());
  }

  private List<byte[]> writeBodies() {
    if (writeBodies == null) {
      BoardPostMaker maker = new BoardPostMaker(BoardPostMaker.DEFAULT_SEED + 1);
      List<byte[]> bodies = new ArrayList<>(WRITE_BODIES);
      for (int i = 0; i < WRITE_BODIES; i++) {
        bodies.add(maker.post());
      }
      writeBodies = List.copyOf(bodies);
    }
    return writeBodies;
  }

  private int readPageSize(String baseUrl) {
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    try {
      HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(URI.create(baseUrl + READ_PATH))
          .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
      String start = new String(response.body(), 0, Math.min(40, response.body().length), StandardCharsets.UTF_8);
      if (response.statusCode() != 200 || !start.startsWith("{\"code\":200")) {
        throw new BenchmarkRunException("GET " + READ_PATH + " answered HTTP " + response.statusCode() + ": " + start, null);
      }
      return response.body().length;
    } catch (IOException e) {
      throw new BenchmarkRunException("GET " + READ_PATH + " failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkRunException("interrupted reading " + READ_PATH, e);
    }
  }

  private long usedMemory(String uri) {
    RedisClient redis = RedisClient.create(uri);
    try (StatefulRedisConnection<String, String> connection = redis.connect()) {
      if (redisVersion == null) {
        redisVersion = field(connection.sync().info("server"), "redis_version");
      }
      String value = field(connection.sync().info("memory"), "used_memory");
      if (value == null) {
        throw new BenchmarkRunException("INFO memory from " + uri + " has no used_memory", null);
      }
      return Long.parseLong(value);
    } finally {
      redis.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  private static @Nullable String field(String info, String name) {
    for (String line : info.split("\r?\n")) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).strip();
      }
    }
    return null;
  }
}
