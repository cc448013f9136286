package dev.stowage.bench.app;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.BulkLoader;
import dev.stowage.bench.ClosedLoop;
import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.samples.Person;
import dev.stowage.samples.Samples;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Runs table T5 ({@code stowage bench app}): the fifth seed's {@code /add} and {@code /check}, in
 * process rather than over HTTP (the seed compares serializers and Redis access, and its HTTP layer
 * was the same for both apps).
 *
 * <p>Each row: a warm-up of both operations, then the row's keys are removed and the id counters
 * reset, as the seed flushed Redis and called {@code /reset}; then {@code requests} {@code /add}
 * operations from {@code concurrency} callers, each storing the next 100 people by id; then as many
 * {@code /check} operations, each reading the next 100 people back and checking every one against
 * its MD5 and the person written. The row reports operations per second and p50/p99 for each, and
 * the growth of Redis's {@code used_memory} during the adds per person stored.
 *
 * <p>With {@code records} set (the seed's 15,000,000 with {@code --records 15000000}), each row
 * then also loads that many people in bulk in its own layout (pipelined, a window of chunks in
 * flight, with progress) and reports Redis's {@code used_memory} per person at that scale and the
 * load rate; one row's people are removed before the next row loads, so Redis holds one layout at a
 * time.
 */
public final class AppBench {

  /** The bench name: results go to {@code app.json}. */
  public static final String BENCH_NAME = "app";

  /** People per operation, as the seed's {@code TIMES}. */
  public static final int PEOPLE_PER_OPERATION = 100;

  /** The seed's concurrency ({@code ab -c 200}). */
  public static final int SEED_CONCURRENCY = 200;

  /**
   * The key prefix on a Redis server the bench does not own; on its own server keys are the seed's
   * {@code person_<id>}.
   */
  public static final String BORROWED_PREFIX = "stowage-bench:app:";

  /** The row ratios compare with: the seed's fastjson string app. */
  public static final String BASELINE_ROW = SeedPersonStore.FASTJSON;

  /** Stowage's row with its defaults (a key per person). */
  public static final String STOWAGE_ROW = StowagePersonStore.NAME;

  /** The fifth seed's full scale: the people it stored for its memory figures. */
  public static final long SEED_RECORDS = 15_000_000L;

  /** The most people a full-scale load takes (about 20 GB as the seed's fastjson strings). */
  public static final long MAX_RECORDS = 100_000_000L;

  private static final int TEMPLATES = 10_000;
  private static final int LOAD_CHUNK = 5_000;
  private static final int LOAD_WINDOW = 4;
  private static final int SCALE_CHECKS = 1_000;

  private AppBench() {}

  /**
   * What to run.
   *
   * @param requests operations of each kind per row
   * @param warmupRequests untimed operations of each kind first
   * @param concurrency concurrent callers
   * @param quick whether this is a {@code --quick} run
   * @param rows only these rows (empty: all)
   * @param keepKeys leave the last row's people in Redis (for tests)
   * @param records people each row also loads in bulk to measure Redis memory at that scale (the
   *     seed's {@link #SEED_RECORDS}); 0 for none
   */
  public record Plan(
      int requests,
      int warmupRequests,
      int concurrency,
      boolean quick,
      List<String> rows,
      boolean keepKeys,
      long records) {
    public Plan {
      rows = List.copyOf(rows);
      if (requests < 1 || warmupRequests < 0 || concurrency < 1) {
        throw new IllegalArgumentException("need requests >= 1, warm-up >= 0 and concurrency >= 1");
      }
      if (records < 0 || records > MAX_RECORDS) {
        throw new IllegalArgumentException(
            "records must be between 0 and " + MAX_RECORDS + ", not " + records);
      }
    }

    /**
     * 5,000 operations of each kind (quick: 1,000) after 500 (quick: 200) of warm-up, 200 callers,
     * no full-scale load.
     */
    public static Plan defaults(boolean quick) {
      return quick
          ? new Plan(1_000, 200, SEED_CONCURRENCY, true, List.of(), false, 0)
          : new Plan(5_000, 500, SEED_CONCURRENCY, false, List.of(), false, 0);
    }
  }

  /** The rows, in table order. */
  public static List<String> rowNames() {
    return List.of(
        SeedPersonStore.FASTJSON,
        SeedPersonStore.KRYO,
        StowagePersonStore.NAME,
        StowagePersonStore.PACKED);
  }

  /** The person with this id: fields from one of 10,000 sample people, the id, and its checksum. */
  static Person person(List<Person> templates, long id) {
    Person t = templates.get((int) (id % templates.size()));
    return Person.of(id, t.name(), t.address(), t.phone(), t.sex(), t.age());
  }

  /** The key prefix on {@code redis}. */
  public static String keyPrefix(BenchRedis redis) {
    return (redis.owned() ? "" : BORROWED_PREFIX) + "person_";
  }

  /**
   * Runs the plan.
   *
   * @throws BenchmarkRunException if a row fails or a person does not read back intact
   */
  public static ResultsDocument run(Plan plan, BenchRedis redis, PrintStream progressOut) {
    List<String> chosen = plan.rows().isEmpty() ? rowNames() : plan.rows();
    for (String name : chosen) {
      if (!rowNames().contains(name)) {
        throw new IllegalArgumentException(
            "unknown row '" + name + "'; choose from " + String.join(", ", rowNames()));
      }
    }
    List<Person> templates = Samples.people(TEMPLATES);
    String prefix = keyPrefix(redis);
    ProgressReporter progress = new ProgressReporter(chosen.size(), progressOut);
    List<ResultRow> rows = new ArrayList<>();
    try {
      for (String name : chosen) {
        ResultRow row = measure(name, plan, redis, prefix, templates, progressOut);
        rows.add(row);
        progress.finished(
            name
                + String.format(
                    Locale.ROOT,
                    "  add %.0f/s  check %.0f/s",
                    row.metric("add_ops_per_s").orElse(0),
                    row.metric("check_ops_per_s").orElse(0)));
        if (!plan.keepKeys() || !name.equals(chosen.get(chosen.size() - 1))) {
          redis.clear(prefix);
        }
      }
    } catch (BenchmarkRunException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new BenchmarkRunException("bench app failed: " + e, e);
    }
    return new ResultsDocument(
        BENCH_NAME,
        plan.quick(),
        RunEnvironment.capture(redis.version(), Clock.system(ZoneId.systemDefault())),
        rows);
  }

  /** The terminal table, ratios against the seed's fastjson string app. */
  public static ResultTable table() {
    return ResultTable.builder()
        .text("app", ResultRow::name)
        .text("role", row -> row.role().jsonName())
        .metric("add/s", "add_ops_per_s", 1)
        .ratio("x", "add_ops_per_s")
        .metric("add p50", "add_p50_ms", 1)
        .metric("add p99", "add_p99_ms", 1)
        .metric("check/s", "check_ops_per_s", 1)
        .ratio("x", "check_ops_per_s")
        .metric("check p50", "check_p50_ms", 1)
        .metric("check p99", "check_p99_ms", 1)
        .metric("B/person", "bytes_per_person", 0)
        .baseline(BASELINE_ROW)
        .build();
  }

  private static ResultRow measure(
      String name,
      Plan plan,
      BenchRedis redis,
      String prefix,
      List<Person> templates,
      PrintStream progressOut) {
    redis.clear(prefix);
    PersonStore store =
        name.equals(StowagePersonStore.NAME)
            ? new StowagePersonStore(redis.uri(), prefix, 0)
            : name.equals(StowagePersonStore.PACKED)
                ? new StowagePersonStore(
                    redis.uri(),
                    prefix,
                    Math.max(plan.records(), (long) plan.requests() * PEOPLE_PER_OPERATION))
                : new SeedPersonStore(name, redis, prefix);
    try {
      AtomicLong addIds = new AtomicLong();
      AtomicLong checkIds = new AtomicLong();
      if (plan.warmupRequests() > 0) {
        ClosedLoop.run(
            name + "-warmup-add",
            plan.concurrency(),
            plan.warmupRequests(),
            Duration.ofHours(1),
            (t, s) -> add(store, addIds, templates));
        ClosedLoop.run(
            name + "-warmup-check",
            plan.concurrency(),
            plan.warmupRequests(),
            Duration.ofHours(1),
            (t, s) -> check(store, checkIds, templates, name));
        redis.clear(prefix);
        addIds.set(0);
        checkIds.set(0);
      }
      redis.awaitLazyFree();
      long before = redis.usedMemory();
      ClosedLoop.Result adds =
          ClosedLoop.run(
              name + "-add",
              plan.concurrency(),
              plan.requests(),
              Duration.ofHours(1),
              (t, s) -> add(store, addIds, templates));
      long after = redis.usedMemory();
      ClosedLoop.Result checks =
          ClosedLoop.run(
              name + "-check",
              plan.concurrency(),
              plan.requests(),
              Duration.ofHours(1),
              (t, s) -> check(store, checkIds, templates, name));
      long people = (long) plan.requests() * PEOPLE_PER_OPERATION;
      long stored = store.stored(redis, prefix);
      if (stored != people) {
        throw new BenchmarkRunException(
            name + " left " + stored + " people in Redis, not " + people, null);
      }
      Map<String, Object> params = new LinkedHashMap<>(store.params());
      params.put("requests", plan.requests());
      params.put("concurrency", plan.concurrency());
      Map<String, Number> metrics = new LinkedHashMap<>();
      metrics.put("add_ops", adds.operations());
      metrics.put("add_ops_per_s", round(adds.opsPerSecond()));
      metrics.put("add_p50_ms", round(adds.percentileMillis(50)));
      metrics.put("add_p99_ms", round(adds.percentileMillis(99)));
      metrics.put("check_ops", checks.operations());
      metrics.put("check_ops_per_s", round(checks.opsPerSecond()));
      metrics.put("check_p50_ms", round(checks.percentileMillis(50)));
      metrics.put("check_p99_ms", round(checks.percentileMillis(99)));
      metrics.put("people", people);
      metrics.put("people_stored", stored);
      metrics.put("people_checked", checkIds.get());
      metrics.put("used_memory_bytes", after - before);
      metrics.put("bytes_per_person", round((after - before) / (double) people));
      if (plan.records() > 0) {
        redis.clear(prefix);
        params.put("records", plan.records());
        metrics.putAll(
            measureScale(name, plan.records(), redis, prefix, templates, store, progressOut));
      }
      return new ResultRow(name, store.role(), params, metrics);
    } finally {
      store.close();
    }
  }

  /**
   * Loads {@code records} people in bulk in this row's layout and reads Redis's {@code used_memory}
   * growth per person: the seed's memory measurement at its own scale. Then checks that every
   * person is there (a count of the row's keys) and that 1,000 spread over the range read back
   * intact through the row's own read path.
   */
  private static Map<String, Number> measureScale(
      String name,
      long records,
      BenchRedis redis,
      String prefix,
      List<Person> templates,
      PersonStore store,
      PrintStream progressOut) {
    progressOut.printf(Locale.ROOT, "[%s] loading %,d people in bulk%n", name, records);
    redis.awaitLazyFree();
    long before = redis.usedMemory();
    BulkLoader.Loaded loaded =
        new BulkLoader("people", LOAD_CHUNK, LOAD_WINDOW, progressOut)
            .load(
                records,
                Duration.ofMinutes(2),
                (first, count) -> {
                  List<Person> people = new ArrayList<>(count);
                  for (long id = first + 1; id <= first + count; id++) {
                    people.add(person(templates, id));
                  }
                  return store.load(people);
                });
    long used = redis.usedMemory() - before;
    long stored = store.stored(redis, prefix);
    if (stored != records) {
      throw new BenchmarkRunException(
          name + " left " + stored + " people in Redis after loading " + records, null);
    }
    long step = Math.max(1, records / SCALE_CHECKS);
    long[] sample = new long[(int) Math.min(SCALE_CHECKS, records)];
    for (int i = 0; i < sample.length; i++) {
      sample[i] = 1 + i * step;
    }
    List<Person> read = store.read(sample);
    for (int i = 0; i < sample.length; i++) {
      Person person = read.get(i);
      if (person == null || !person.equals(person(templates, sample[i]))) {
        throw new BenchmarkRunException(
            name + ": person " + sample[i] + " of the bulk load reads back as " + person, null);
      }
    }
    Map<String, Number> metrics = new LinkedHashMap<>();
    metrics.put("scale_people", records);
    metrics.put("scale_used_memory_bytes", used);
    metrics.put("scale_bytes_per_person", round(used / (double) records));
    metrics.put("scale_load_per_s", Math.round(loaded.perSecond()));
    metrics.put("scale_people_checked", sample.length);
    progressOut.printf(
        Locale.ROOT,
        "[%s] %,d people: Redis used_memory %,.2f GB = %,.2f GiB (%,.1f B per person), loaded at %,.0f/s%n",
        name,
        records,
        used / 1e9,
        used / (double) (1L << 30),
        used / (double) records,
        loaded.perSecond());
    redis.clear(prefix);
    return metrics;
  }

  private static void add(PersonStore store, AtomicLong ids, List<Person> templates) {
    long first = ids.getAndAdd(PEOPLE_PER_OPERATION) + 1;
    List<Person> people = new ArrayList<>(PEOPLE_PER_OPERATION);
    for (long id = first; id < first + PEOPLE_PER_OPERATION; id++) {
      people.add(person(templates, id));
    }
    store.add(people);
  }

  private static void check(
      PersonStore store, AtomicLong ids, List<Person> templates, String name) {
    long first = ids.getAndAdd(PEOPLE_PER_OPERATION) + 1;
    long[] wanted = new long[PEOPLE_PER_OPERATION];
    for (int i = 0; i < wanted.length; i++) {
      wanted[i] = first + i;
    }
    List<Person> people = store.read(wanted);
    for (int i = 0; i < wanted.length; i++) {
      Person person = people.get(i);
      if (person == null) {
        throw new IllegalStateException(name + ": person " + wanted[i] + " does not exist");
      }
      if (!person.checksumMatches() || !person.equals(person(templates, wanted[i]))) {
        throw new IllegalStateException(
            name + ": person " + wanted[i] + " reads back as " + person);
      }
    }
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
