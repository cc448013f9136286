package dev.stowage.bench.http;

import static java.util.Objects.requireNonNull;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.Figures;
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
import dev.stowage.embedded.KafkaBroker;
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
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.kafka.common.utils.AppInfoParser;
import org.jspecify.annotations.Nullable;

/**
 * Table T1: the board service's write and read loads in each mode.
 *
 * <p>For each mode, in the plan's order: a fresh embedded Redis; the board service in a JVM of its
 * own ({@link BoardProcess}) with its own in-memory H2; the preload of {@link Plan#records()} posts
 * through {@code POST /boards/bulk} ({@link BoardPreload}); Redis {@code used_memory}; one {@code
 * GET} of the read page to record its size. All services stay up; then the write load ({@code POST
 * /boards}) and the read load ({@value #READ_PATH}) from the same virtual users, each after an
 * unmeasured warm-up per mode (so that both JVMs have compiled their paths) and measured in rounds
 * in which the modes take turns, so that whatever else the machine is doing weighs on every mode
 * alike; last, {@code wrk} on each read page when the plan asks for it. Rows are named by mode and
 * grouped by load; ratios are against seed-json in the same run.
 *
 * <p>With {@link Plan#events()}, an embedded one-node Kafka broker ({@link KafkaBroker}: KRaft, on
 * loopback) starts first, and each mode runs twice, as {@code <mode>} with events off and as {@code
 * <mode>+events} with every created post published through the board's outbox (the preload's too;
 * the load starts once they are out). Both take part in the write load's rounds, side by side; the
 * events row carries the ratio of its rates and p99 to the events-off row's, over the whole load
 * and round by round (the spread), and whether the outbox drained after the load ({@link
 * OutboxDrain}). The events services are then stopped: reads do not touch the outbox.
 */
public final class HttpBench {

  /** The read the seed measured: the newest 25 posts. */
  public static final String READ_PATH = "/boards?page=1&size=25";

  /** The mode the ratios are taken against. */
  public static final String BASELINE = BoardMode.SEED_JSON.label();

  /** The board on Stowage with its defaults (its near cache on, no events). */
  public static final String STOWAGE_ROW = BoardMode.STOWAGE.label();

  /**
   * What a row's name adds to its mode when the service published events: {@code stowage+events}.
   */
  public static final String EVENTS_SUFFIX = "+events";

  /** The broker of the events rows, as their {@code kafka} parameter names it. */
  public static final String EMBEDDED_BROKER = "embedded one-node KRaft broker on loopback";

  private static final int WRITE_BODIES = 4000;

  private final Plan plan;
  private final PrintStream progress;
  private final BoardPreload preload;
  private @Nullable List<byte[]> writeBodies;
  private @Nullable String redisVersion;
  private @Nullable KafkaBroker kafka;

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
   * @param events whether each mode's writes are measured a second time with an events outbox
   *     publishing to an embedded Kafka broker
   */
  public record Plan(
      List<BoardMode> modes,
      int records,
      LoadPlan load,
      Duration warmup,
      int rounds,
      boolean quick,
      HttpClientKind client,
      Optional<Wrk> wrk,
      Path logDir,
      boolean nearCache,
      boolean events) {

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
        throw new IllegalArgumentException(
            "no mode to run; choose from stowage, seed-json, seed-msgpack");
      }
      if (modes.stream().distinct().count() != modes.size()) {
        throw new IllegalArgumentException("a mode is listed twice: " + modes);
      }
      if (rounds < 1 || load.duration().dividedBy(rounds).isZero()) {
        throw new IllegalArgumentException(
            "rounds must be at least 1 and leave each slice some time, not " + rounds);
      }
      if (records < 1) {
        throw new IllegalArgumentException("records must be at least 1, not " + records);
      }
    }
  }

  /**
   * Runs the plan, printing progress to {@code progress}, and returns the results document ({@code
   * "bench": "http"}).
   *
   * @throws BenchmarkRunException if Redis or a board service cannot start, or a preload request
   *     fails; the services started are stopped first
   */
  public static ResultsDocument run(Plan plan, PrintStream progress) {
    return new HttpBench(plan, progress).runAll();
  }

  /** The terminal table: one section per load, ratios against seed-json. */
  public static ResultTable table() {
    return table(false);
  }

  /**
   * The terminal table: one section per load, ratios against seed-json; with {@code events}, the
   * columns of {@link Plan#events()} too: each row's events setting, and on the events rows the
   * ratios of their rate and p99 to the same mode's events-off row, the range of the rate's ratio
   * over the rounds, and the events still pending after the load.
   */
  public static ResultTable table(boolean events) {
    ResultTable.Builder table = ResultTable.builder().text("mode", ResultRow::name);
    if (events) {
      table.param("events", "events");
    }
    table
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
        .ratio("p99/json", "p99_ms");
    if (events) {
      table
          .metric("rps on/off", "events_rps_ratio", 2)
          .text("per round", HttpBench::roundRange)
          .metric("p99 on/off", "events_p99_ratio", 2)
          .metric("pending", "outbox_pending", 0);
    }
    return table.baseline(BASELINE, "load").groupBy("load").build();
  }

  /**
   * What the events rows of {@code rows} ran against and whether their outboxes drained, one line
   * each, ending with a line separator; empty when no row had events on.
   */
  public static String eventsSummary(List<ResultRow> rows) {
    StringBuilder out = new StringBuilder();
    for (ResultRow row : rows) {
      if (!"on".equals(row.param("events"))) {
        continue;
      }
      if (out.isEmpty()) {
        out.append(
            String.format(
                Locale.ROOT,
                "events: %s, Kafka %s, topic per service, acks=all, idempotent producer%n",
                row.param("kafka"),
                row.param("kafka_version")));
      }
      boolean drained = row.metric("outbox_pending").orElse(-1) == 0;
      out.append(
          String.format(
              Locale.ROOT,
              "%s: outbox %s after the load: %,.0f pending, %,.0f events published for"
                  + " %,.0f acknowledged posts, %.1f s%s%n",
              row.name(),
              drained ? "drained" : "NOT drained",
              row.metric("outbox_pending").orElse(-1),
              row.metric("events_published").orElse(-1),
              row.metric("posts_acknowledged").orElse(-1),
              row.metric("outbox_drain_ms").orElse(-1) / 1000.0,
              drained
                  ? ""
                  : " (the broker fell behind: the rate with events does not include all their publication)"));
    }
    return out.toString();
  }

  private static String roundRange(ResultRow row) {
    return row.metric("events_rps_ratio_min").isPresent()
            && row.metric("events_rps_ratio_max").isPresent()
        ? String.format(
            Locale.ROOT,
            "%.2f-%.2f",
            row.metric("events_rps_ratio_min").getAsDouble(),
            row.metric("events_rps_ratio_max").getAsDouble())
        : ResultTable.MISSING;
  }

  private ResultsDocument runAll() {
    List<Target> targets = new ArrayList<>();
    try {
      if (plan.events()) {
        startKafka();
      }
      for (BoardMode mode : plan.modes()) {
        targets.add(start(new Setup(mode, false)));
        if (plan.events()) {
          targets.add(start(new Setup(mode, true)));
        }
      }
      Map<Setup, Measured> writes =
          interleave(
              "write",
              targets,
              target -> {
                List<byte[]> bodies = writeBodies();
                AtomicInteger next = new AtomicInteger();
                return user ->
                    target
                        .client()
                        .postJson(
                            "/boards",
                            bodies.get(Math.floorMod(next.getAndIncrement(), bodies.size())));
              });
      Map<Setup, OutboxDrain> drains = new LinkedHashMap<>();
      for (Target target : List.copyOf(targets)) {
        if (target.setup().events()) {
          requireAlive(target);
          drains.put(target.setup(), drain(target, requireNonNull(writes.get(target.setup()))));
          // Reads do not touch the outbox: the events services leave the machine to the others.
          targets.remove(target);
          target.close();
        }
      }
      Map<Setup, Measured> reads =
          interleave("read", targets, target -> target.client().getting(READ_PATH));
      List<ResultRow> rows = new ArrayList<>();
      for (Target target : targets) {
        Optional<Wrk.Result> wrk = runWrk(target);
        requireAlive(target);
        Setup off = target.setup();
        rows.add(
            row(
                off,
                "write",
                "POST /boards",
                requireNonNull(writes.get(off)).combined(),
                target.usedMemory(),
                Map.of()));
        Setup on = new Setup(off.mode(), true);
        OutboxDrain drain = drains.get(on);
        if (drain != null) {
          rows.add(
              row(
                  on,
                  "write",
                  "POST /boards",
                  requireNonNull(writes.get(on)).combined(),
                  requireNonNull(writes.get(on)).usedMemory(),
                  eventsExtras(
                      requireNonNull(writes.get(on)), requireNonNull(writes.get(off)), drain)));
        }
        rows.add(
            row(
                off,
                "read",
                "GET " + READ_PATH,
                requireNonNull(reads.get(off)).combined(),
                target.usedMemory(),
                readExtras(target.pageBytes(), wrk)));
      }
      Map<String, Object> env =
          new LinkedHashMap<>(
              RunEnvironment.capture(redisVersion, Clock.system(ZoneId.systemDefault())));
      if (plan.events()) {
        env.put("kafka", EMBEDDED_BROKER);
        env.put("kafka_version", AppInfoParser.getVersion());
      }
      return new ResultsDocument("http", plan.quick(), env, rows);
    } finally {
      for (int i = targets.size() - 1; i >= 0; i--) {
        targets.get(i).close();
      }
      if (kafka != null) {
        kafka.close();
      }
    }
  }

  /** A service to measure: its mode, and whether it publishes an event for every created post. */
  private record Setup(BoardMode mode, boolean events) {
    String label() {
      return events ? mode.label() + EVENTS_SUFFIX : mode.label();
    }
  }

  /**
   * One load's figures for one service: its warm-up (if any), each round's slice, and all slices as
   * one.
   */
  private record Measured(
      @Nullable LoadResult warmup, List<LoadResult> slices, LoadResult combined, long usedMemory) {}

  /** One service, its Redis and the client of its users, preloaded and measured at rest. */
  private record Target(
      Setup setup,
      RedisServer redis,
      BoardProcess board,
      HttpLoadClient client,
      long usedMemory,
      int pageBytes)
      implements AutoCloseable {
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

  private void startKafka() {
    progress.printf(
        "== events: starting an %s (Kafka %s)%n", EMBEDDED_BROKER, AppInfoParser.getVersion());
    try {
      kafka = KafkaBroker.start();
    } catch (IllegalStateException e) {
      throw new BenchmarkRunException(
          "cannot start the embedded Kafka broker for --events: " + e.getMessage(), e);
    }
    progress.printf(
        "== events: broker %s up in %.1f s%n",
        kafka.bootstrapServers(), kafka.lastStartTime().toMillis() / 1000.0);
  }

  private Target start(Setup setup) {
    String label = setup.label();
    progress.printf("== %s: starting Redis and the board service%n", label);
    RedisServer redis = RedisServer.start();
    BoardProcess board = null;
    HttpLoadClient client = null;
    try {
      List<String> arguments = new ArrayList<>();
      if (setup.mode() == BoardMode.STOWAGE && !plan.nearCache()) {
        arguments.add("--stowage.board.near-cache=false");
      }
      if (setup.events()) {
        arguments.add(
            "--stowage.board.kafka.bootstrap-servers=" + requireNonNull(kafka).bootstrapServers());
        arguments.add("--stowage.board.kafka.topic=" + topic(setup));
      }
      board =
          BoardProcess.start(
              setup.mode(),
              redis.uri(),
              List.of(),
              arguments,
              plan.logDir().resolve("board-" + label + ".log"),
              BoardProcess.DEFAULT_START_TIMEOUT);
      client = plan.client().open(board.url(), plan.load().users());
      progress.printf(
          "== %s: board pid %d on %s (log %s), redis %s%n",
          label, board.pid(), board.url(), board.log(), redis.uri());
      preload.load(label, client, board);
      if (setup.events()) {
        // The load starts from an empty outbox, not behind the preload's events.
        OutboxDrain drain = OutboxDrain.await(board, plan.records(), OutboxDrain.DEFAULT_TIMEOUT);
        progress.printf("== %s: preload's events %s%n", label, drain.describe());
      }
      long usedMemory = usedMemory(redis.uri());
      progress.printf(
          "== %s: redis used_memory after %,d posts: %.1f MB%n",
          label, plan.records(), usedMemory / 1e6);
      int pageBytes = readPageSize(board.url());
      progress.printf("== %s: %s answers %,d bytes%n", label, READ_PATH, pageBytes);
      return new Target(setup, redis, board, client, usedMemory, pageBytes);
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

  private static String topic(Setup setup) {
    return "bench-http-" + setup.mode().label();
  }

  /**
   * Waits for {@code target}'s outbox to cover every post it acknowledged: the preload's and every
   * successful write of the load, its warm-up included.
   */
  private OutboxDrain drain(Target target, Measured writes) {
    long acknowledged =
        plan.records()
            + writes.slices().stream().mapToLong(LoadResult::succeeded).sum()
            + (writes.warmup() == null ? 0 : writes.warmup().succeeded());
    OutboxDrain drain =
        OutboxDrain.await(target.board(), acknowledged, OutboxDrain.DEFAULT_TIMEOUT);
    progress.printf(
        "== %s: outbox after the write load %s%n", target.setup().label(), drain.describe());
    return drain;
  }

  /**
   * The events row's comparison with its mode's events-off row: the ratios of the rates and p99s
   * over the whole load, the rate's ratio in each round (its lowest and highest: the spread), and
   * the outbox's state after the load.
   */
  private static Map<String, Number> eventsExtras(Measured on, Measured off, OutboxDrain drain) {
    Map<String, Number> extras = new LinkedHashMap<>();
    double offRate = off.combined().requestsPerSecond();
    double offP99 = off.combined().latencyMillis(99);
    if (offRate > 0) {
      extras.put("events_rps_ratio", Figures.round(on.combined().requestsPerSecond() / offRate, 3));
    }
    if (offP99 > 0) {
      extras.put("events_p99_ratio", Figures.round(on.combined().latencyMillis(99) / offP99, 3));
    }
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (int round = 0; round < Math.min(on.slices().size(), off.slices().size()); round++) {
      double base = off.slices().get(round).requestsPerSecond();
      if (base > 0) {
        double ratio = on.slices().get(round).requestsPerSecond() / base;
        min = Math.min(min, ratio);
        max = Math.max(max, ratio);
      }
    }
    if (min <= max) {
      extras.put("events_rps_ratio_min", Figures.round(min, 3));
      extras.put("events_rps_ratio_max", Figures.round(max, 3));
    }
    extras.put("outbox_pending", drain.pending());
    extras.put("outbox_drain_ms", drain.waited().toMillis());
    extras.put("events_published", drain.published());
    extras.put("posts_acknowledged", drain.acknowledged());
    return extras;
  }

  private static void requireAlive(Target target) {
    if (!target.board().isAlive()) {
      throw new BenchmarkRunException(
          "the board service ("
              + target.setup().label()
              + ") died during the loads;"
              + " last lines of "
              + target.board().log()
              + ":\n"
              + target.board().lastLogLines(),
          null);
    }
  }

  /**
   * Runs one load against every target: first each one's warm-up (with the plan's ramp), then
   * {@link Plan#rounds()} rounds in which each target in turn gets its slice of the duration, so
   * that a noisy neighbour on the machine hits every mode alike. The ramp applies once per target,
   * in the warm-up or else in the first round; later rounds start every user at once (their
   * connections are already open).
   */
  private Map<Setup, Measured> interleave(
      String load, List<Target> targets, Function<Target, RequestIssuer> issuerOf) {
    Map<Setup, RequestIssuer> issuers = new LinkedHashMap<>();
    for (Target target : targets) {
      issuers.put(target.setup(), issuerOf.apply(target));
    }
    LoadPlan shape = plan.load();
    boolean warm = !plan.warmup().isZero();
    Map<Setup, LoadResult> warmups = new LinkedHashMap<>();
    if (warm) {
      for (Target target : targets) {
        String label = "warm-up " + load + " " + target.setup().label();
        LoadResult warmup =
            LoadGenerator.run(
                label,
                new LoadPlan(
                    shape.users(), shape.rampPerSecond(), plan.warmup(), shape.progressInterval()),
                requireNonNull(issuers.get(target.setup())),
                progress);
        progress.printf(
            Locale.ROOT,
            "== %s: %.0f rps, %d errors (not counted)%n",
            label,
            warmup.requestsPerSecond(),
            warmup.errors());
        warmups.put(target.setup(), warmup);
      }
    }
    Duration slice = shape.duration().dividedBy(plan.rounds());
    double allAtOnce = shape.users() * 1000.0;
    Map<Setup, List<LoadResult>> slices = new LinkedHashMap<>();
    for (int round = 1; round <= plan.rounds(); round++) {
      for (Target target : targets) {
        double ramp = round == 1 && !warm ? shape.rampPerSecond() : allAtOnce;
        String label = load + " " + target.setup().label() + " " + round + "/" + plan.rounds();
        slices
            .computeIfAbsent(target.setup(), m -> new ArrayList<>())
            .add(
                LoadGenerator.run(
                    label,
                    new LoadPlan(shape.users(), ramp, slice, shape.progressInterval()),
                    requireNonNull(issuers.get(target.setup())),
                    progress));
      }
    }
    Map<Setup, Measured> results = new LinkedHashMap<>();
    for (Target target : targets) {
      List<LoadResult> rounds = requireNonNull(slices.get(target.setup()));
      LoadResult combined = LoadResult.combine(load + " " + target.setup().label(), rounds);
      summary(combined);
      results.put(
          target.setup(),
          new Measured(warmups.get(target.setup()), rounds, combined, target.usedMemory()));
    }
    return results;
  }

  private Optional<Wrk.Result> runWrk(Target target) {
    return plan.wrk()
        .map(
            w -> {
              String label = target.setup().label();
              progress.printf(
                  "== %s: wrk -c%d -d%ds %s%n",
                  label, plan.load().users(), plan.load().duration().toSeconds(), READ_PATH);
              Wrk.Result result =
                  w.run(
                      target.board().url() + READ_PATH,
                      plan.load().users(),
                      Runtime.getRuntime().availableProcessors(),
                      plan.load().duration());
              progress.printf(
                  Locale.ROOT,
                  "== %s: wrk %.0f rps, p99 %.1f ms, %d errors%n",
                  label,
                  result.requestsPerSecond(),
                  result.p99Millis(),
                  result.errors());
              return result;
            });
  }

  private static Map<String, Number> readExtras(int pageBytes, Optional<Wrk.Result> wrk) {
    Map<String, Number> extras = new LinkedHashMap<>();
    extras.put("page_bytes", pageBytes);
    wrk.ifPresent(
        result -> {
          extras.put("wrk_rps", Math.round(result.requestsPerSecond() * 10) / 10.0);
          extras.put("wrk_p99_ms", result.p99Millis());
          extras.put("wrk_errors", result.errors());
        });
    return extras;
  }

  private ResultRow row(
      Setup setup,
      String load,
      String request,
      LoadResult result,
      long usedMemory,
      Map<String, Number> extras) {
    BoardMode mode = setup.mode();
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("mode", mode.label());
    params.put("load", load);
    params.put("events", setup.events() ? "on" : "off");
    if (setup.events()) {
      params.put("kafka", EMBEDDED_BROKER);
      params.put("kafka_version", AppInfoParser.getVersion());
      params.put("kafka_topic", topic(setup));
    }
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
    return new ResultRow(
        setup.label(), mode == BoardMode.STOWAGE ? RowRole.STOWAGE : RowRole.SEED, params, metrics);
  }

  private void summary(LoadResult result) {
    progress.printf(
        Locale.ROOT,
        "== %s: %.0f rps, p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, %d errors%s%n",
        result.label(),
        result.requestsPerSecond(),
        result.latencyMillis(50),
        result.latencyMillis(95),
        result.latencyMillis(99),
        result.errors(),
        result.failures().isEmpty() ? "" : " " + result.failures());
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
      HttpResponse<byte[]> response =
          http.send(
              HttpRequest.newBuilder(URI.create(baseUrl + READ_PATH))
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofByteArray());
      String start =
          new String(
              response.body(), 0, Math.min(40, response.body().length), StandardCharsets.UTF_8);
      if (response.statusCode() != 200 || !start.startsWith("{\"code\":200")) {
        throw new BenchmarkRunException(
            "GET " + READ_PATH + " answered HTTP " + response.statusCode() + ": " + start, null);
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
