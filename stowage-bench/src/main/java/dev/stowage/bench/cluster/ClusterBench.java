package dev.stowage.bench.cluster;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ClosedLoop;
import dev.stowage.bench.Figures;
import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import java.io.PrintStream;
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
import java.util.SplittableRandom;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@code stowage bench cluster} (issue 16): every client, on one server and on a cluster of
 * three masters, writes N items in bulk and reads them back in bulk, several times after warm-ups,
 * and then answers random GETs of those items from many callers.
 *
 * <p>Rows are client × topology ({@code stowage@single}, {@code redisson-RBatch@cluster}, ...). The
 * timed bulk runs take turns across every row of both topologies (each row once, then each again),
 * so that load from other processes on a shared machine falls on every row alike; before each write
 * the row's keys are removed, and each bulk read is compared with the items written (outside the
 * clock). After the timed runs each row writes once more, its keys are counted on every master and
 * read back, and its GET loop runs ({@link ClosedLoop}, a warm-up then the timed loop). A row whose
 * client fails is kept with its message in {@code params.error} and no metrics; the others go on.
 *
 * <p>Two cores cannot show a cluster's scaling, so each cluster row also carries the per-operation
 * cost against the same client's single-server row: {@code putall_x_single} and {@code
 * getall_x_single} (the median times' ratio) and {@code get_x_single} (the single server's GETs per
 * second over the cluster's, the ratio of the time per GET); above 1 the cluster costs more.
 */
public final class ClusterBench {

  /** The bench name: results go to {@code cluster.json}. */
  public static final String BENCH_NAME = "cluster";

  /** The ratio column's baseline: Redisson's batch on the cluster. */
  public static final String BASELINE_ROW = rowName(RedissonBatchClient.NAME, Topology.CLUSTER);

  /** Stowage on the cluster, with its defaults. */
  public static final String DEFAULT_ROW = rowName(StowageBulkClient.NAME, Topology.CLUSTER);

  /** The prefix of every key this bench writes. */
  public static final String KEY_PREFIX = "stowage-bench:cluster:";

  /** The issue's N: 30,000 items. */
  public static final int DEFAULT_ITEMS = 30_000;

  /** The issue's callers: 200. */
  public static final int DEFAULT_CONCURRENCY = 200;

  private ClusterBench() {}

  /**
   * What to run.
   *
   * @param items how many items each bulk call writes or reads
   * @param concurrency caller threads of the GET loop
   * @param warmups untimed bulk runs per row
   * @param repeats timed bulk runs per row; the median is reported
   * @param warmup untimed GET loop per row
   * @param duration timed GET loop per row
   * @param quick whether this is a {@code --quick} run (recorded in the results)
   * @param rows only these rows, by full name ({@code stowage@cluster}) or client ({@code
   *     stowage}); empty for all
   * @param keepKeys leave the last row's keys in Redis at the end (for tests)
   */
  public record Plan(
      int items,
      int concurrency,
      int warmups,
      int repeats,
      Duration warmup,
      Duration duration,
      boolean quick,
      List<String> rows,
      boolean keepKeys) {
    public Plan {
      rows = List.copyOf(rows);
      Objects.requireNonNull(warmup, "warmup");
      Objects.requireNonNull(duration, "duration");
      if (items < 1) {
        throw new IllegalArgumentException("items must be at least 1, not " + items);
      }
      if (concurrency < 1) {
        throw new IllegalArgumentException("concurrency must be at least 1, not " + concurrency);
      }
      if (warmups < 0 || repeats < 1) {
        throw new IllegalArgumentException(
            "need warmups >= 0 and repeats >= 1, not " + warmups + " and " + repeats);
      }
      if (warmup.isNegative() || duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException(
            "the GET loop needs a warm-up >= 0 s and a duration > 0 s, not "
                + warmup.toSeconds()
                + " s and "
                + duration.toSeconds()
                + " s");
      }
    }

    /**
     * 30,000 items and 200 callers; quick runs time 3 bulk runs after 1 warm-up and a 5 s GET loop
     * after 2 s, full runs 7 after 3 and 15 s after 5 s.
     */
    public static Plan defaults(boolean quick) {
      return quick
          ? new Plan(
              DEFAULT_ITEMS,
              DEFAULT_CONCURRENCY,
              1,
              3,
              Duration.ofSeconds(2),
              Duration.ofSeconds(5),
              true,
              List.of(),
              false)
          : new Plan(
              DEFAULT_ITEMS,
              DEFAULT_CONCURRENCY,
              3,
              7,
              Duration.ofSeconds(5),
              Duration.ofSeconds(15),
              false,
              List.of(),
              false);
    }
  }

  /** The clients, in table order. */
  public static List<String> clientNames() {
    return List.of(
        StowageBulkClient.NAME,
        RedissonBatchClient.NAME,
        SpringPipelinedClient.NAME,
        LettuceRawClient.NAME);
  }

  /** Every row, in table order: each client on one server, then each on the cluster. */
  public static List<String> rowNames() {
    List<String> names = new ArrayList<>();
    for (String topology : List.of(Topology.SINGLE, Topology.CLUSTER)) {
      for (String client : clientNames()) {
        names.add(rowName(client, topology));
      }
    }
    return names;
  }

  /** A row's name: {@code client@topology}. */
  public static String rowName(String client, String topology) {
    return client + "@" + topology;
  }

  /**
   * Runs the plan on one server and on a cluster and returns the results.
   *
   * @throws IllegalArgumentException if the plan names a row that does not exist
   * @throws BenchmarkRunException if the bench itself fails (a client's failure only fails its row)
   */
  public static ResultsDocument run(
      Plan plan, Topology single, Topology cluster, PrintStream progressOut) {
    Objects.requireNonNull(plan, "plan");
    if (single.isCluster() || !cluster.isCluster()) {
      throw new IllegalArgumentException(
          "need one server and one cluster, not " + single + " and " + cluster);
    }
    List<String> chosen = chosenRows(plan.rows());
    List<Item> items = Samples.items(plan.items());
    List<Long> ids = items.stream().map(Item::id).toList();
    List<Row> rows = new ArrayList<>();
    try {
      for (String name : chosen) {
        Topology topology = name.endsWith("@" + Topology.CLUSTER) ? cluster : single;
        rows.add(open(name.substring(0, name.lastIndexOf('@')), topology, plan.repeats()));
      }
      for (Row row : rows) {
        if (row.client instanceof LettuceRawClient raw) {
          raw.prepare(items);
        }
      }
      ProgressReporter progress = new ProgressReporter(2 * rows.size(), progressOut);
      for (Row row : rows) {
        for (int run = 0; run < plan.warmups() && row.live(); run++) {
          row.bulkRun(items, ids, -1);
        }
      }
      // Interleave the timed runs (row A, B, C, A, B, C, ...) so that a noisy neighbour on a shared
      // machine slows every row alike rather than one.
      for (int run = 0; run < plan.repeats(); run++) {
        for (Row row : rows) {
          if (row.live()) {
            row.bulkRun(items, ids, run);
          }
        }
      }
      // Row by row, as clearing one row's keys may flush a Redis the bench owns: write once more,
      // count and read back, then the GET loop on those keys.
      for (Row row : rows) {
        if (row.live()) {
          row.check(items, ids);
        }
        progress.finished(
            row.name
                + "  "
                + (row.live()
                    ? String.format(
                        Locale.ROOT,
                        "putAll %.1f ms, getAll %.1f ms",
                        Figures.median(row.putMillis),
                        Figures.median(row.getMillis))
                    : "failed: " + row.error));
        if (row.live()) {
          row.getLoop(plan, items);
        }
        progress.finished(
            row.name
                + "  "
                + (row.live()
                    ? String.format(
                        Locale.ROOT, "%,.0f GET/s", Objects.requireNonNull(row.loop).opsPerSecond())
                    : "failed: " + row.error));
      }
      if (!plan.keepKeys()) {
        single.clear(KEY_PREFIX);
        cluster.clear(KEY_PREFIX);
      }
    } catch (BenchmarkRunException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new BenchmarkRunException("bench cluster failed: " + e, e);
    } finally {
      for (Row row : rows) {
        row.close();
      }
    }
    List<ResultRow> results = new ArrayList<>();
    for (Row row : rows) {
      results.add(row.result(plan));
    }
    return new ResultsDocument(
        BENCH_NAME,
        plan.quick(),
        RunEnvironment.capture(single.version(), Clock.system(ZoneId.systemDefault())),
        withSingleRatios(results));
  }

  /**
   * The terminal table, one section per topology; ratios against Redisson's batch on the cluster.
   */
  public static ResultTable table() {
    return ResultTable.builder()
        .text("row", ResultRow::name)
        .text("role", row -> row.role().jsonName())
        .metric("putAll ms", "putall_ms", 1)
        .metric("getAll ms", "getall_ms", 1)
        .metric("GET/s", "get_ops_per_s", 0)
        .metric("p50 ms", "get_p50_ms", 2)
        .metric("p99 ms", "get_p99_ms", 2)
        .metric("putAll x1", "putall_x_single", 2)
        .metric("getAll x1", "getall_x_single", 2)
        .metric("GET x1", "get_x_single", 2)
        .ratio("putAll x RBatch", "putall_ms")
        .metric("keys", "keys", 0)
        .metric("verified", "verified", 0)
        .text("error", row -> Objects.requireNonNullElse(row.param("error"), ""))
        .baseline(BASELINE_ROW, "topology")
        .groupBy("topology")
        .build();
  }

  /** The rows {@code wanted} (row names or client names; empty for all) chooses, in table order. */
  static List<String> chosenRows(List<String> wanted) {
    for (String name : wanted) {
      if (!rowNames().contains(name) && !clientNames().contains(name)) {
        throw new IllegalArgumentException(
            "unknown row '"
                + name
                + "'; choose from "
                + String.join(", ", rowNames())
                + ", or a client on both topologies ("
                + String.join(", ", clientNames())
                + ")");
      }
    }
    List<String> chosen = new ArrayList<>();
    for (String name : rowNames()) {
      if (wanted.isEmpty()
          || wanted.contains(name)
          || wanted.contains(name.substring(0, name.lastIndexOf('@')))) {
        chosen.add(name);
      }
    }
    return chosen;
  }

  private static Row open(String client, Topology topology, int repeats) {
    Map<String, Function<Topology, BulkClient>> factories = new LinkedHashMap<>();
    factories.put(StowageBulkClient.NAME, StowageBulkClient::new);
    factories.put(RedissonBatchClient.NAME, RedissonBatchClient::new);
    factories.put(SpringPipelinedClient.NAME, SpringPipelinedClient::new);
    factories.put(LettuceRawClient.NAME, LettuceRawClient::new);
    Function<Topology, BulkClient> factory = Objects.requireNonNull(factories.get(client), client);
    Row row = new Row(rowName(client, topology.name()), client, topology, repeats);
    try {
      row.client = factory.apply(topology);
    } catch (RuntimeException e) {
      row.fail("cannot connect: " + e);
    }
    return row;
  }

  /** Adds each cluster row's ratios to the same client's single-server row. */
  private static List<ResultRow> withSingleRatios(List<ResultRow> rows) {
    List<ResultRow> out = new ArrayList<>();
    for (ResultRow row : rows) {
      if (!Topology.CLUSTER.equals(row.param("topology"))) {
        out.add(row);
        continue;
      }
      String singleName =
          rowName(Objects.requireNonNull(row.param("client_name")), Topology.SINGLE);
      ResultRow single =
          rows.stream().filter(r -> r.name().equals(singleName)).findFirst().orElse(null);
      if (single == null) {
        out.add(row);
        continue;
      }
      Map<String, Number> metrics = new LinkedHashMap<>(row.metrics());
      ResultTable.ratio(row, single, "putall_ms")
          .ifPresent(ratio -> metrics.put("putall_x_single", Figures.round(ratio, 3)));
      ResultTable.ratio(row, single, "getall_ms")
          .ifPresent(ratio -> metrics.put("getall_x_single", Figures.round(ratio, 3)));
      // The time per GET is the inverse of the rate at the same number of callers.
      ResultTable.ratio(single, row, "get_ops_per_s")
          .ifPresent(ratio -> metrics.put("get_x_single", Figures.round(ratio, 3)));
      out.add(new ResultRow(row.name(), row.role(), row.params(), metrics));
    }
    return out;
  }

  /** One row while it runs: its client, its timings, and its failure if it failed. */
  private static final class Row {
    final String name;
    final String clientName;
    final Topology topology;
    final double[] putMillis;
    final double[] getMillis;
    @Nullable BulkClient client;
    @Nullable String error;
    ClosedLoop.@Nullable Result loop;
    List<Long> keysPerMaster = List.of();
    int verified;

    Row(String name, String clientName, Topology topology, int repeats) {
      this.name = name;
      this.clientName = clientName;
      this.topology = topology;
      this.putMillis = new double[repeats];
      this.getMillis = new double[repeats];
    }

    boolean live() {
      return client != null && error == null;
    }

    String prefix() {
      return KEY_PREFIX + name + ":item:";
    }

    void fail(String message) {
      if (error == null) {
        error = message;
      }
    }

    /** Clears the row's keys, writes and reads them back timed; {@code run} < 0 is a warm-up. */
    void bulkRun(List<Item> items, List<Long> ids, int run) {
      BulkClient bulk = Objects.requireNonNull(client);
      try {
        topology.clear(prefix());
        long begin = System.nanoTime();
        bulk.putAll(items, prefix());
        long written = System.nanoTime();
        List<@Nullable Item> read = bulk.getAll(ids, prefix());
        long end = System.nanoTime();
        int matching = matching(items, read);
        if (matching != items.size()) {
          fail("getAll returned " + matching + " of the " + items.size() + " items written");
          return;
        }
        if (run >= 0) {
          putMillis[run] = (written - begin) / 1e6;
          getMillis[run] = (end - written) / 1e6;
        }
      } catch (Exception e) {
        fail(describe(e));
      }
    }

    /** Writes once more, counts the keys on every master and reads every item back. */
    void check(List<Item> items, List<Long> ids) {
      BulkClient bulk = Objects.requireNonNull(client);
      try {
        topology.clear(prefix());
        bulk.putAll(items, prefix());
        keysPerMaster = topology.countKeysPerMaster(prefix());
        verified = matching(items, bulk.getAll(ids, prefix()));
        if (verified != items.size()) {
          fail("read back " + verified + " of the " + items.size() + " items written");
        }
      } catch (Exception e) {
        fail(describe(e));
      }
    }

    /** Random GETs of the written items from the plan's callers: a warm-up, then the timed loop. */
    void getLoop(Plan plan, List<Item> items) {
      BulkClient reader = Objects.requireNonNull(client);
      SplittableRandom seeds = new SplittableRandom(42);
      SplittableRandom[] randoms = new SplittableRandom[plan.concurrency()];
      for (int t = 0; t < randoms.length; t++) {
        randoms[t] = seeds.split();
      }
      ClosedLoop.Operation get =
          (thread, sequence) -> {
            Item expected = items.get(randoms[thread].nextInt(items.size()));
            Item actual = reader.get(prefix(), expected.id());
            if (!expected.equals(actual)) {
              throw new IllegalStateException(
                  name + " read item " + expected.id() + " as " + actual);
            }
          };
      try {
        if (!plan.warmup().isZero()) {
          ClosedLoop.run(name + "-warmup", plan.concurrency(), Long.MAX_VALUE, plan.warmup(), get);
        }
        loop =
            ClosedLoop.run(
                name, plan.concurrency(), Long.MAX_VALUE, plan.duration(), ClosedLoop.ROUNDS, get);
      } catch (BenchmarkRunException e) {
        fail(describe(e.getCause() == null ? e : e.getCause()));
      }
    }

    ResultRow result(Plan plan) {
      Map<String, Object> params = new LinkedHashMap<>();
      params.put("topology", topology.name());
      params.put("client_name", clientName);
      if (client != null) {
        params.putAll(client.params());
      }
      params.put("masters", topology.masterCount());
      params.put("items", plan.items());
      params.put("concurrency", plan.concurrency());
      Map<String, Number> metrics = new LinkedHashMap<>();
      RowRole role =
          client != null
              ? client.role()
              : clientName.equals(StowageBulkClient.NAME)
                  ? RowRole.STOWAGE
                  : clientName.equals(LettuceRawClient.NAME) ? RowRole.LIMIT : RowRole.PEER;
      if (error != null) {
        params.put("error", error);
        return new ResultRow(name, role, params, metrics);
      }
      ClosedLoop.Result get = Objects.requireNonNull(loop);
      params.put("keys_per_master", keysPerMaster);
      metrics.put("putall_ms", Figures.round(Figures.median(putMillis), 3));
      metrics.put("getall_ms", Figures.round(Figures.median(getMillis), 3));
      metrics.put("putall_ms_min", Figures.round(Arrays.stream(putMillis).min().orElse(0), 3));
      metrics.put("putall_ms_max", Figures.round(Arrays.stream(putMillis).max().orElse(0), 3));
      metrics.put("getall_ms_min", Figures.round(Arrays.stream(getMillis).min().orElse(0), 3));
      metrics.put("getall_ms_max", Figures.round(Arrays.stream(getMillis).max().orElse(0), 3));
      metrics.put("runs", putMillis.length);
      metrics.put("get_ops_per_s", Figures.round(get.opsPerSecond(), 1));
      get.putRounds(metrics, "get_ops_per_s");
      metrics.put("get_p50_ms", Figures.round(get.percentileMillis(50), 3));
      metrics.put("get_p99_ms", Figures.round(get.percentileMillis(99), 3));
      metrics.put("keys", keysPerMaster.stream().mapToLong(Long::longValue).sum());
      metrics.put("verified", verified);
      return new ResultRow(name, role, params, metrics);
    }

    void close() {
      if (client != null) {
        try {
          client.close();
        } catch (RuntimeException e) {
          // closing a client after a failed run must not hide the failure
        }
      }
    }

    private static int matching(List<Item> items, List<@Nullable Item> read) {
      int matching = 0;
      for (int i = 0; i < items.size() && i < read.size(); i++) {
        if (items.get(i).equals(read.get(i))) {
          matching++;
        }
      }
      return matching;
    }

    private static String describe(Throwable e) {
      String message = e.getMessage();
      return e.getClass().getSimpleName()
          + (message == null ? "" : ": " + message.lines().findFirst().orElse(""));
    }
  }
}
