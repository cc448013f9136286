package dev.stowage.bench.spring;

import dev.stowage.Inspector;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ClosedLoop;
import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Runs {@code stowage bench spring} (issue 15): an {@code @Cacheable} method's hit path and its
 * miss-then-put path under many concurrent callers, in a Spring Boot application per row (see
 * {@link CacheContexts}): Spring's {@code RedisCacheManager} with {@code
 * GenericJackson2JsonRedisSerializer}, Stowage's {@code StowageCacheManager} with its defaults,
 * and, for scale, Spring's in-process {@code ConcurrentMapCacheManager}. Every row gets the same
 * callers, the same Redis and the same board records.
 *
 * <p>Each row: a warm-up of {@code warmupRecords} misses and {@code warmup} of hits on records of
 * their own, whose keys are then deleted; then {@code records} misses, one per record, each running
 * the method once and storing its record (Redis's {@code used_memory} growth over them, per record,
 * is the memory a record costs); then {@code duration} of hits on ids drawn uniformly from the
 * stored ones, during which the method must not run. Stowage learns its compression dictionary from
 * the cache's first values, during the warm-up: the dictionary (one per cache, reported as {@code
 * dictionary_bytes}) is not in the per-record figure.
 */
public final class SpringCacheBench {

  /** The bench name: results go to {@code spring.json}. */
  public static final String BENCH_NAME = "spring";

  /** The cache's name in every row; its keys are {@code <name>::<id>} in both Redis layouts. */
  public static final String CACHE = "stowage-bench:spring:boards";

  /** The prefix of the cache's keys. */
  public static final String KEY_PREFIX = CACHE + "::";

  /** Spring's {@code RedisCacheManager} with {@code GenericJackson2JsonRedisSerializer}. */
  public static final String SPRING = "spring-redis-cache-manager";

  /** Stowage's {@code StowageCacheManager} with its defaults. */
  public static final String STOWAGE = "stowage-cache-manager";

  /**
   * {@code StowageCacheManager} with the cache's near cache turned on ({@code
   * stowage.caches.<name>.near-cache.enabled}): hits answered in the process while Redis says the
   * value has not changed.
   */
  public static final String STOWAGE_NEAR = "stowage-near-cache";

  /** Spring's {@code ConcurrentMapCacheManager}: no Redis. */
  public static final String IN_PROCESS = "in-process-map";

  /** The row ratios compare with. */
  public static final String BASELINE_ROW = SPRING;

  /** The concurrency. */
  public static final int DEFAULT_CONCURRENCY = 200;

  /** How long the keys of a row's misses may take to reach Redis after its last miss returned. */
  private static final Duration WRITES_LANDED = Duration.ofSeconds(30);

  private SpringCacheBench() {}

  /**
   * What to run.
   *
   * @param records records cached in the timed miss phase, and the ids the hits are drawn from
   * @param warmupRecords records missed (and then hit) during the warm-up
   * @param concurrency concurrent callers
   * @param warmup hits during the warm-up
   * @param duration timed hits
   * @param quick whether this is a {@code --quick} run
   * @param rows only these rows (empty: all)
   * @param keepKeys leave the last row's keys (and Stowage's dictionary) in Redis, for tests
   */
  public record Plan(
      int records,
      int warmupRecords,
      int concurrency,
      Duration warmup,
      Duration duration,
      boolean quick,
      List<String> rows,
      boolean keepKeys) {
    public Plan {
      rows = List.copyOf(rows);
      if (records < 1
          || warmupRecords < 0
          || concurrency < 1
          || warmup.isNegative()
          || duration.isNegative()
          || duration.isZero()) {
        throw new IllegalArgumentException(
            "need records >= 1, warm-up records >= 0, concurrency >= 1 and a positive duration");
      }
    }

    /**
     * 100,000 records (quick: 20,000) after 20,000 (quick: 5,000) of warm-up, 200 callers, 30 s of
     * hits (quick: 10 s).
     */
    public static Plan defaults(boolean quick) {
      return quick
          ? new Plan(
              20_000,
              5_000,
              DEFAULT_CONCURRENCY,
              Duration.ofSeconds(5),
              Duration.ofSeconds(10),
              true,
              List.of(),
              false)
          : new Plan(
              100_000,
              20_000,
              DEFAULT_CONCURRENCY,
              Duration.ofSeconds(10),
              Duration.ofSeconds(30),
              false,
              List.of(),
              false);
    }
  }

  /** The rows, in table order. */
  public static List<String> rowNames() {
    return List.of(SPRING, STOWAGE, STOWAGE_NEAR, IN_PROCESS);
  }

  /**
   * Runs the plan.
   *
   * @throws IllegalArgumentException if a row is unknown
   * @throws BenchmarkRunException if a row fails, a call returns the wrong record, or a miss left
   *     no key
   */
  public static ResultsDocument run(Plan plan, BenchRedis redis, PrintStream progressOut) {
    List<String> chosen = plan.rows().isEmpty() ? rowNames() : plan.rows();
    for (String name : chosen) {
      if (!rowNames().contains(name)) {
        throw new IllegalArgumentException(
            "unknown row '" + name + "'; choose from " + String.join(", ", rowNames()));
      }
    }
    List<BoardRecord> records = Samples.boards(plan.records() + plan.warmupRecords());
    ProgressReporter progress = new ProgressReporter(chosen.size(), progressOut);
    List<ResultRow> rows = new ArrayList<>();
    try {
      for (String name : chosen) {
        boolean last = name.equals(chosen.get(chosen.size() - 1));
        ResultRow row = measure(name, plan, redis, records, plan.keepKeys() && last);
        rows.add(row);
        progress.finished(
            name
                + String.format(
                    Locale.ROOT,
                    "  hits %.0f/s  misses %.0f/s",
                    row.metric("hit_ops_per_s").orElse(0),
                    row.metric("miss_ops_per_s").orElse(0)));
      }
    } catch (BenchmarkRunException | IllegalArgumentException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new BenchmarkRunException("bench spring failed: " + e, e);
    }
    return new ResultsDocument(
        BENCH_NAME,
        plan.quick(),
        RunEnvironment.capture(redis.version(), Clock.system(ZoneId.systemDefault())),
        rows);
  }

  /** The terminal table, ratios against Spring's {@code RedisCacheManager}. */
  public static ResultTable table() {
    return ResultTable.builder()
        .text("cache manager", ResultRow::name)
        .text("role", row -> row.role().jsonName())
        .metric("hits/s", "hit_ops_per_s", 0)
        .ratio("x", "hit_ops_per_s")
        .metric("hit p99", "hit_p99_ms", 2)
        .metric("\u00b5s cpu/hit", "hit_cpu_us_per_op", 1)
        .metric("misses/s", "miss_ops_per_s", 0)
        .ratio("x", "miss_ops_per_s")
        .metric("miss p99", "miss_p99_ms", 2)
        .metric("B/record", "bytes_per_record", 0)
        .ratio("x", "bytes_per_record")
        .baseline(BASELINE_ROW)
        .build();
  }

  private static ResultRow measure(
      String name, Plan plan, BenchRedis redis, List<BoardRecord> records, boolean keepKeys) {
    boolean usesRedis = !name.equals(IN_PROCESS);
    if (usesRedis) {
      redis.clear(KEY_PREFIX);
    }
    int n = plan.records();
    int w = plan.warmupRecords();
    try (ConfigurableApplicationContext context = CacheContexts.start(name, redis.uri(), records)) {
      BoardLookup lookup = context.getBean(BoardLookup.class);
      if (w > 0) {
        ClosedLoop.run(
            name + "-warmup-miss",
            plan.concurrency(),
            w,
            Duration.ofHours(1),
            (t, s) -> find(lookup, n + s));
        ClosedLoop.run(
            name + "-warmup-hit",
            plan.concurrency(),
            Long.MAX_VALUE,
            plan.warmup(),
            (t, s) -> find(lookup, n + ThreadLocalRandom.current().nextInt(w)));
      }
      long before = 0;
      if (usesRedis) {
        redis.deleteKeys(
            KEY_PREFIX); // only the cache's keys: Stowage's dictionary stays, as in an application
        redis.awaitLazyFree();
        before = redis.usedMemory();
      }
      long callsBefore = lookup.calls();
      ClosedLoop.Result misses =
          ClosedLoop.run(
              name + "-miss",
              plan.concurrency(),
              n,
              Duration.ofHours(1),
              (t, s) -> find(lookup, s));
      long methodCalls = lookup.calls() - callsBefore;
      if (misses.operations() != n || methodCalls != n) {
        throw new BenchmarkRunException(
            name
                + ": "
                + misses.operations()
                + " misses ran the method "
                + methodCalls
                + " times, not "
                + n,
            null);
      }
      long stored = usesRedis ? awaitKeys(redis, n) : n;
      long after = usesRedis ? redis.usedMemory() : 0;
      if (stored != n) {
        throw new BenchmarkRunException(
            name + " left " + stored + " keys in Redis after " + n + " misses", null);
      }
      long callsBeforeHits = lookup.calls();
      ClosedLoop.Result hits =
          ClosedLoop.run(
              name + "-hit",
              plan.concurrency(),
              Long.MAX_VALUE,
              plan.duration(),
              ClosedLoop.ROUNDS,
              (t, s) -> find(lookup, ThreadLocalRandom.current().nextInt(n)));
      long methodCallsDuringHits = lookup.calls() - callsBeforeHits;

      Map<String, Object> params = new LinkedHashMap<>();
      Map<String, Number> metrics = new LinkedHashMap<>();
      params.put(
          "cache_manager",
          switch (name) {
            case SPRING ->
                "RedisCacheManager, GenericJackson2JsonRedisSerializer (with JavaTimeModule), TTL 1 h,"
                    + " writes asynchronous (Spring Data Redis 4's default)";
            case STOWAGE ->
                "StowageCacheManager, defaults (Stowage's Spring Boot auto-configuration), writes acknowledged";
            case STOWAGE_NEAR ->
                "StowageCacheManager, defaults and the cache's near cache (one entry per record),"
                    + " writes acknowledged";
            default -> "ConcurrentMapCacheManager (no Redis)";
          });
      params.put("record", "BoardRecord");
      params.put("records", n);
      params.put("concurrency", plan.concurrency());
      params.put("client", usesRedis ? "Lettuce, Spring Boot's ClientResources" : "none");
      // The report charts the first metrics whose names say what they measure (TableSpec.generic):
      // the headline ones first.
      metrics.put("hit_ops_per_s", round(hits.opsPerSecond()));
      hits.putRounds(metrics, "hit_ops_per_s");
      metrics.put("hit_p99_ms", round(hits.percentileMillis(99)));
      metrics.put("miss_ops_per_s", round(misses.opsPerSecond()));
      metrics.put("miss_p99_ms", round(misses.percentileMillis(99)));
      if (usesRedis) {
        metrics.put("bytes_per_record", round((after - before) / (double) n));
      }
      metrics.put("hit_p50_ms", round(hits.percentileMillis(50)));
      metrics.put("miss_p50_ms", round(misses.percentileMillis(50)));
      metrics.put("hit_ops", hits.operations());
      metrics.put("miss_ops", misses.operations());
      metrics.put("hit_cpu_us_per_op", round(cpuMicrosPerOp(hits)));
      metrics.put("miss_cpu_us_per_op", round(cpuMicrosPerOp(misses)));
      metrics.put("method_calls_during_hits", methodCallsDuringHits);
      if (usesRedis) {
        metrics.put("keys_stored", stored);
        metrics.put("used_memory_bytes", after - before);
        describeValues(name, context, redis, params, metrics, keepKeys);
      }
      if (usesRedis && !keepKeys) {
        redis.deleteKeys(KEY_PREFIX);
      }
      return new ResultRow(name, role(name), params, metrics);
    }
  }

  /**
   * Checks how a stored value is laid out (fails if not as the row promises) and records its size.
   */
  private static void describeValues(
      String name,
      ConfigurableApplicationContext context,
      BenchRedis redis,
      Map<String, Object> params,
      Map<String, Number> metrics,
      boolean keepKeys) {
    byte[] value = rawValue(context, KEY_PREFIX + 0);
    if (value == null) {
      throw new BenchmarkRunException(name + ": no value under " + KEY_PREFIX + 0, null);
    }
    metrics.put("sample_value_bytes", value.length);
    if (name.equals(STOWAGE) || name.equals(STOWAGE_NEAR)) {
      Optional<Inspector.Header> read = Inspector.header(value);
      if (read.isEmpty()) {
        throw new BenchmarkRunException(
            name + ": the value under " + KEY_PREFIX + 0 + " is not in Stowage's envelope", null);
      }
      Inspector.Header header = read.get();
      params.put(
          "value_format",
          String.format(
              Locale.ROOT,
              "envelope: codec %d, compression %s, dictionary %s",
              header.codecId(),
              header.compressionName(),
              header.dictionaryId().isEmpty()
                  ? "none"
                  : Inspector.hexId(header.dictionaryId().getAsLong())));
      if (header.dictionaryId().isPresent()) {
        long dictionaryId = header.dictionaryId().getAsLong();
        String dictionary = Inspector.Keys.dictionary(dictionaryId);
        metrics.put("dictionary_bytes", redis.admin().strlen(dictionary));
        if (!keepKeys) {
          redis
              .admin()
              .unlink(
                  dictionary,
                  Inspector.Keys.dictionaryInfo(dictionaryId),
                  Inspector.Keys.learnedByCache(CACHE));
        }
      }
    } else {
      String text = new String(value, StandardCharsets.UTF_8);
      if (!text.startsWith("{")
          || !text.contains("\"@class\":\"" + BoardRecord.class.getName() + "\"")) {
        throw new BenchmarkRunException(
            name + ": the value under " + KEY_PREFIX + 0 + " is not Spring's JSON with @class",
            null);
      }
      params.put("value_format", "JSON with @class");
    }
  }

  /**
   * The cache's keys once {@code n} are there, or after {@link #WRITES_LANDED} if fewer: Spring
   * Data Redis 4's cache writes asynchronously by default, so its last puts may still be on their
   * way when the last miss returned.
   */
  private static long awaitKeys(BenchRedis redis, long n) {
    long deadline = System.nanoTime() + WRITES_LANDED.toNanos();
    long stored = redis.countKeys(KEY_PREFIX);
    while (stored < n && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
      stored = redis.countKeys(KEY_PREFIX);
    }
    return stored;
  }

  private static byte @Nullable [] rawValue(ConfigurableApplicationContext context, String key) {
    try (RedisConnection connection =
        context.getBean(RedisConnectionFactory.class).getConnection()) {
      return connection.stringCommands().get(key.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void find(BoardLookup lookup, long id) {
    BoardRecord record = lookup.find(id);
    if (record.score() != id + 1) {
      throw new IllegalStateException(
          "id " + id + " answered the record of id " + (record.score() - 1));
    }
  }

  private static RowRole role(String name) {
    return switch (name) {
      case SPRING -> RowRole.SEED;
      case STOWAGE, STOWAGE_NEAR -> RowRole.STOWAGE;
      default -> RowRole.LIMIT;
    };
  }

  private static double cpuMicrosPerOp(ClosedLoop.Result result) {
    return result.processCpuNanos() < 0 || result.operations() == 0
        ? -1
        : result.processCpuNanos() / 1e3 / result.operations();
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
