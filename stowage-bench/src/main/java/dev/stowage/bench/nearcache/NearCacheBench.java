package dev.stowage.bench.nearcache;

import dev.stowage.Encoding;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ClosedLoop;
import dev.stowage.bench.Figures;
import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs issue 13's benchmark ({@code stowage bench nearcache}): N items (Stowage's default
 * envelope), read by many caller threads in a closed loop, each read's key drawn from a Zipf
 * distribution, while a writer thread writes a new version of a uniformly drawn key at a fixed rate
 * (by default 1% of the keys a second) through a connection of its own.
 *
 * <p>Rows: Stowage without a near cache (every read goes to Redis: the baseline of the ratios),
 * Stowage with {@code NearCache.maximumSize(N)}, Lettuce's {@code ClientSideCaching} over a {@code
 * ConcurrentHashMap}, and Redisson's {@code RLocalCachedMap}, which keeps its own copy of the items
 * in a hash and is written through Redisson (see {@link RedissonLocalCachedClient}).
 *
 * <p>Each item carries its version in its price. After Redis acknowledges a write, the writer reads
 * the key through the client under test until it returns the new version (then the key's floor
 * rises to it) or until the visibility bound has passed (an invalidation timeout). A caller's read
 * that took the key's floor before it was sent and returned an older version is a stale read
 * ({@link VersionFloors}). Each row reports reads per second, p50 and p99 latency, the near cache's
 * hit ratio where the client counts it, stale reads, invalidation timeouts, the keys the client
 * still returned an old version of after the run ({@link #staleKeysAtEnd}), and the time from a
 * write's acknowledgement to the client returning it.
 */
public final class NearCacheBench {

  /** The bench name: results go to {@code nearcache.json}. */
  public static final String BENCH_NAME = "nearcache";

  /**
   * Every key the bench writes starts with this; only these keys are removed from a server it does
   * not own.
   */
  public static final String KEY_PREFIX = KeySpace.PREFIX;

  /** The row ratios compare with: Stowage without a near cache. */
  public static final String BASELINE_ROW = StowageReadClient.PLAIN;

  /** Stowage with its near cache. */
  public static final String NEAR_ROW = StowageReadClient.NEAR;

  /** The ratio of each row's reads per second to the baseline's, also in the JSON. */
  public static final String RATIO_METRIC = "reads_per_s_x_stowage";

  private static final int TEMPLATES = 10_000;
  private static final int LOAD_CHUNK = 1_000;

  private NearCacheBench() {}

  /**
   * What to run.
   *
   * @param keys how many items
   * @param zipfExponent the skew of the reads' keys ({@code s}; 0 is uniform)
   * @param concurrency caller threads
   * @param writesPerSecond new versions written per second
   * @param warmup untimed loop per row (the writer runs meanwhile)
   * @param duration timed loop per row
   * @param visibilityTimeout how long after a write's acknowledgement the client may take to return
   *     it
   * @param quick whether this is a {@code --quick} run
   * @param rows only these rows (empty: all)
   * @param keepKeys leave the items in Redis (for tests)
   */
  public record Plan(
      int keys,
      double zipfExponent,
      int concurrency,
      int writesPerSecond,
      Duration warmup,
      Duration duration,
      Duration visibilityTimeout,
      boolean quick,
      List<String> rows,
      boolean keepKeys) {
    public Plan {
      rows = List.copyOf(rows);
      Objects.requireNonNull(warmup, "warmup");
      Objects.requireNonNull(duration, "duration");
      Objects.requireNonNull(visibilityTimeout, "visibilityTimeout");
      if (keys < 1 || keys > 10_000_000) {
        throw new IllegalArgumentException("keys must be between 1 and 10,000,000, not " + keys);
      }
      if (!(zipfExponent >= 0) || Double.isInfinite(zipfExponent)) {
        throw new IllegalArgumentException(
            "the Zipf exponent must be a finite number of at least 0, not " + zipfExponent);
      }
      if (concurrency < 1) {
        throw new IllegalArgumentException("concurrency must be at least 1, not " + concurrency);
      }
      if (writesPerSecond < 1 || writesPerSecond > 1_000_000) {
        throw new IllegalArgumentException(
            "writes per second must be between 1 and 1,000,000, not " + writesPerSecond);
      }
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException("the duration must be positive, not " + duration);
      }
    }

    /**
     * 100,000 keys, s = 1.0, 200 callers, 1,000 writes a second (1% of the keys), a 2 s visibility
     * bound, and 5 s + 20 s per row (quick: 3 s + 8 s).
     */
    public static Plan defaults(boolean quick) {
      return quick
          ? new Plan(
              100_000,
              1.0,
              200,
              1_000,
              Duration.ofSeconds(3),
              Duration.ofSeconds(8),
              Duration.ofSeconds(2),
              true,
              List.of(),
              false)
          : new Plan(
              100_000,
              1.0,
              200,
              1_000,
              Duration.ofSeconds(5),
              Duration.ofSeconds(20),
              Duration.ofSeconds(2),
              false,
              List.of(),
              false);
    }
  }

  /** The rows, in table order. */
  public static List<String> rowNames() {
    return List.of(
        StowageReadClient.PLAIN,
        StowageReadClient.NEAR,
        LettuceCachingClient.NAME,
        RedissonLocalCachedClient.NAME);
  }

  /** The envelope that values are stored in: Stowage's default codec and compression. */
  static Encoding.Serializer<Item> envelope() {
    return Encoding.of(Codecs.defaultFor(Item.class))
        .compression(Compression.standard())
        .serializer();
  }

  /**
   * Runs the plan.
   *
   * @throws IllegalArgumentException if a row is unknown
   * @throws BenchmarkRunException if loading, a client or the writer fails
   */
  public static ResultsDocument run(Plan plan, BenchRedis redis, PrintStream progressOut) {
    List<String> chosen = plan.rows().isEmpty() ? rowNames() : plan.rows();
    for (String name : chosen) {
      if (!rowNames().contains(name)) {
        throw new IllegalArgumentException(
            "unknown row '" + name + "'; choose from " + String.join(", ", rowNames()));
      }
    }
    boolean hashRow = chosen.contains(RedissonLocalCachedClient.NAME);
    boolean stringRows =
        chosen.stream().anyMatch(name -> !name.equals(RedissonLocalCachedClient.NAME));
    ProgressReporter progress = new ProgressReporter(1 + chosen.size(), progressOut);
    Encoding.Serializer<Item> envelope = envelope();
    List<Item> templates = Samples.items(TEMPLATES);
    KeySpace keys = new KeySpace(plan.keys());
    ZipfSampler zipf = new ZipfSampler(plan.keys(), plan.zipfExponent());
    // The version each item has in Redis: one array for the strings, one for Redisson's hash.
    long[] stringVersions = new long[plan.keys()];
    long[] hashVersions = new long[plan.keys()];
    Arrays.fill(stringVersions, 1);
    Arrays.fill(hashVersions, 1);
    List<ResultRow> rows = new ArrayList<>();
    try {
      redis.clear(KEY_PREFIX);
      load(plan.keys(), keys, templates, envelope, redis, stringRows, hashRow, progressOut);
      progress.finished(
          String.format(
              Locale.ROOT,
              "loaded %,d items%s",
              plan.keys(),
              stringRows && hashRow ? " as strings and as a hash" : hashRow ? " as a hash" : ""));
      for (String name : chosen) {
        long[] versions =
            name.equals(RedissonLocalCachedClient.NAME) ? hashVersions : stringVersions;
        ResultRow row = measure(name, plan, redis, envelope, templates, keys, zipf, versions);
        rows.add(row);
        progress.finished(
            String.format(
                Locale.ROOT,
                "%s  %,.0f reads/s  %,d stale  %,d invalidation timeouts",
                name,
                row.metric("reads_per_s").orElse(0),
                (long) row.metric("stale_reads").orElse(0),
                (long) row.metric("invalidation_timeouts").orElse(0)));
      }
      if (!plan.keepKeys()) {
        redis.clear(KEY_PREFIX);
      }
    } catch (BenchmarkRunException | IllegalArgumentException e) {
      throw e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkRunException("bench nearcache was interrupted", e);
    } catch (Exception e) {
      throw new BenchmarkRunException("bench nearcache failed: " + e, e);
    }
    return new ResultsDocument(
        BENCH_NAME,
        plan.quick(),
        RunEnvironment.capture(redis.version(), Clock.system(ZoneId.systemDefault())),
        withRatios(rows));
  }

  /** The terminal table, ratios against Stowage without a near cache. */
  public static ResultTable table() {
    return ResultTable.builder()
        .text("row", ResultRow::name)
        .text("role", row -> row.role().jsonName())
        .metric("reads/s", "reads_per_s", 0)
        .ratio("x stowage", "reads_per_s")
        .metric("p50 us", "p50_us", 1)
        .metric("p99 us", "p99_us", 1)
        .metric("near hits", "near_hit_ratio", 4)
        .metric("stale", "stale_reads", 0)
        .metric("stale>t/o", "stale_reads_after_timeout", 0)
        .metric("inval t/o", "invalidation_timeouts", 0)
        .metric("stale@end", "stale_keys_at_end", 0)
        .metric("vis p50 ms", "visible_p50_ms", 1)
        .metric("vis p99 ms", "visible_p99_ms", 1)
        .metric("writes/s", "writes_per_s", 0)
        .baseline(BASELINE_ROW)
        .build();
  }

  /**
   * The rows, each with its reads per second over the baseline's as {@link #RATIO_METRIC} when the
   * baseline ran.
   */
  static List<ResultRow> withRatios(List<ResultRow> rows) {
    Optional<ResultRow> baseline =
        rows.stream().filter(row -> row.name().equals(BASELINE_ROW)).findFirst();
    if (baseline.isEmpty()) {
      return rows;
    }
    List<ResultRow> out = new ArrayList<>();
    for (ResultRow row : rows) {
      OptionalDouble ratio = ResultTable.ratio(row, baseline.get(), "reads_per_s");
      Map<String, Number> metrics = new LinkedHashMap<>(row.metrics());
      ratio.ifPresent(value -> metrics.put(RATIO_METRIC, Figures.round(value, 2)));
      out.add(new ResultRow(row.name(), row.role(), row.params(), metrics));
    }
    return out;
  }

  /**
   * Loads the items as strings and as Redisson's hash, one pipelined chunk at a time, printing a
   * line every five seconds.
   */
  @SuppressWarnings(
      "ArrayAsKeyOfSetOrMap") // distinct fields by construction, handed to Lettuce's hset as they
  // are
  static void load(
      int count,
      KeySpace keys,
      List<Item> templates,
      Encoding.Serializer<Item> envelope,
      BenchRedis redis,
      boolean strings,
      boolean hash,
      PrintStream progressOut) {
    long start = System.nanoTime();
    long lastPrint = start;
    long total = (long) (strings ? count : 0) + (hash ? count : 0);
    long done = 0;
    byte[] hashKey = KeySpace.HASH_KEY.getBytes(StandardCharsets.UTF_8);
    RedisClient client = RedisClient.create(redis.redisUri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      RedisAsyncCommands<byte[], byte[]> async = connection.async();
      connection.setAutoFlushCommands(false);
      for (int part = 0; part < 2; part++) {
        if (part == 0 ? !strings : !hash) {
          continue;
        }
        List<RedisFuture<?>> replies = new ArrayList<>();
        Map<byte[], byte[]> fields = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
          byte[] value = envelope.encode(UpdateLoop.item(templates, i, 1));
          if (part == 0) {
            replies.add(async.set(keys.keyBytes(i), value));
          } else {
            fields.put(keys.suffix(i).getBytes(StandardCharsets.UTF_8), value);
          }
          if ((i + 1) % LOAD_CHUNK == 0 || i == count - 1) {
            if (part == 1) {
              replies.add(async.hset(hashKey, fields));
              fields = new LinkedHashMap<>();
            }
            connection.flushCommands();
            if (!LettuceFutures.awaitAll(
                Duration.ofMinutes(1), replies.toArray(RedisFuture[]::new))) {
              throw new BenchmarkRunException(
                  "Redis did not acknowledge " + replies.size() + " writes within a minute", null);
            }
            done += (i % LOAD_CHUNK) + 1;
            replies.clear();
            long now = System.nanoTime();
            if (now - lastPrint >= TimeUnit.SECONDS.toNanos(5)) {
              lastPrint = now;
              Duration elapsed = Duration.ofNanos(now - start);
              progressOut.printf(
                  Locale.ROOT,
                  "[load] %,d/%,d items  %s  ETA %s%n",
                  done,
                  total,
                  ProgressReporter.format(elapsed),
                  ProgressReporter.format(elapsed.multipliedBy(total - done).dividedBy(done)));
            }
          }
        }
      }
    } finally {
      client.shutdown();
    }
  }

  private static ReadClient client(
      String name, BenchRedis redis, KeySpace keys, Encoding.Serializer<Item> envelope) {
    return switch (name) {
      case StowageReadClient.PLAIN, StowageReadClient.NEAR ->
          new StowageReadClient(name, redis.uri(), keys, keys.size());
      case LettuceCachingClient.NAME -> new LettuceCachingClient(redis.redisUri(), keys, envelope);
      case RedissonLocalCachedClient.NAME ->
          new RedissonLocalCachedClient(redis.redisUri(), keys, envelope, keys.size());
      default -> throw new IllegalArgumentException("unknown row '" + name + "'");
    };
  }

  private static ItemWriter writer(
      String name, BenchRedis redis, KeySpace keys, Encoding.Serializer<Item> envelope) {
    return name.equals(RedissonLocalCachedClient.NAME)
        ? new RedissonLocalCachedClient.Writer(redis.redisUri(), keys, envelope, keys.size())
        : new StringKeyWriter(redis.redisUri(), keys, envelope);
  }

  private static ResultRow measure(
      String name,
      Plan plan,
      BenchRedis redis,
      Encoding.Serializer<Item> envelope,
      List<Item> templates,
      KeySpace keys,
      ZipfSampler zipf,
      long[] versions)
      throws Exception {
    try (ReadClient client = client(name, redis, keys, envelope);
        ItemWriter writer = writer(name, redis, keys, envelope)) {
      VersionFloors floors = new VersionFloors(versions);
      UpdateLoop updates =
          new UpdateLoop(
              name,
              writer,
              client,
              versions,
              floors,
              templates,
              plan.writesPerSecond(),
              plan.visibilityTimeout());
      LongAdder misses = new LongAdder();
      SplittableRandom seeds = new SplittableRandom(42);
      SplittableRandom[] randoms = new SplittableRandom[plan.concurrency()];
      for (int t = 0; t < randoms.length; t++) {
        randoms[t] = seeds.split();
      }
      ClosedLoop.Operation read =
          (thread, sequence) -> {
            int index = zipf.next(randoms[thread]);
            long floor = floors.beforeRead(index);
            Item item = client.get(index);
            if (item == null) {
              misses.increment();
            } else if (item.id() != index) {
              throw new IllegalStateException(
                  name + " read item " + item.id() + " for key " + index);
            } else {
              floors.afterRead(floor, UpdateLoop.version(item));
            }
          };
      long[] atStart = versions.clone();
      updates.start();
      try {
        if (!plan.warmup().isZero()) {
          ClosedLoop.run(name + "-warmup", plan.concurrency(), Long.MAX_VALUE, plan.warmup(), read);
        }
        floors.resetCounts();
        updates.resetCounts();
        misses.reset();
        OptionalLong redisReadsBefore = client.redisReads();
        long confirmingBefore = updates.confirmingReads();
        ClosedLoop.Result result =
            ClosedLoop.run(
                name, plan.concurrency(), Long.MAX_VALUE, plan.duration(), ClosedLoop.ROUNDS, read);
        OptionalLong redisReadsAfter = client.redisReads();
        long confirming = updates.confirmingReads() - confirmingBefore;
        UpdateLoop.Counts written;
        try {
          written = updates.stop();
        } catch (IllegalStateException e) {
          throw new BenchmarkRunException(name + ": " + e.getMessage(), e);
        }
        if (misses.sum() > 0) {
          throw new BenchmarkRunException(
              name + " missed " + misses.sum() + " of the loaded items", null);
        }
        Map<String, Object> params = new LinkedHashMap<>(client.params());
        params.put("writer", writer.describe());
        params.put("keys", plan.keys());
        params.put("zipf_exponent", plan.zipfExponent());
        params.put("concurrency", plan.concurrency());
        params.put("planned_writes_per_s", plan.writesPerSecond());
        params.put("visibility_timeout_ms", plan.visibilityTimeout().toMillis());
        Map<String, Number> metrics = new LinkedHashMap<>();
        metrics.put("reads", result.operations());
        metrics.put("reads_per_s", Figures.round(result.opsPerSecond(), 1));
        result.putRounds(metrics, "reads_per_s");
        metrics.put("p50_us", Figures.round(result.percentileMillis(50) * 1e3, 2));
        metrics.put("p99_us", Figures.round(result.percentileMillis(99) * 1e3, 2));
        if (redisReadsBefore.isPresent() && redisReadsAfter.isPresent()) {
          // Every read through the client meanwhile: the callers' and the writer's confirming
          // reads.
          long reads = result.operations() + confirming;
          long nearMisses = redisReadsAfter.getAsLong() - redisReadsBefore.getAsLong();
          metrics.put(
              "near_hit_ratio", reads == 0 ? 0 : Figures.round(1 - (double) nearMisses / reads, 5));
        }
        metrics.put("stale_reads", floors.staleReads());
        metrics.put("stale_reads_after_timeout", floors.staleReadsAfterTimeout());
        metrics.put("invalidation_timeouts", written.timeouts());
        metrics.put(
            "stale_keys_at_end",
            staleKeysAtEnd(client, versions, atStart, plan.visibilityTimeout()));
        metrics.put("writes", written.writes());
        metrics.put("writes_per_s", Figures.round(written.writesPerSecond(), 1));
        metrics.put("visible_p50_ms", Figures.round(written.visibleP50Millis(), 3));
        metrics.put("visible_p99_ms", Figures.round(written.visibleP99Millis(), 3));
        metrics.put("client_cpu_pct", Figures.round(result.cpuPercentOfOneCore(), 1));
        metrics.put("misses", misses.sum());
        return new ResultRow(name, client.role(), params, metrics);
      } finally {
        updates.close();
      }
    }
  }

  /**
   * How many of the keys written during the row the client still returns an older version of once
   * the readers have stopped, after reading them again for up to {@code bound}: invalidations that
   * were lost, not late.
   */
  static long staleKeysAtEnd(ReadClient client, long[] versions, long[] atStart, Duration bound)
      throws Exception {
    List<Integer> behind = new ArrayList<>();
    for (int i = 0; i < versions.length; i++) {
      if (versions[i] != atStart[i]) {
        behind.add(i);
      }
    }
    long deadline = System.nanoTime() + bound.toNanos();
    while (true) {
      List<Integer> still = new ArrayList<>();
      for (int index : behind) {
        Item item = client.get(index);
        if (item == null || UpdateLoop.version(item) < versions[index]) {
          still.add(index);
        }
      }
      behind = still;
      if (behind.isEmpty() || System.nanoTime() >= deadline) {
        return behind.size();
      }
      LockSupport.parkNanos(UpdateLoop.POLL_INTERVAL.toNanos());
    }
  }
}
