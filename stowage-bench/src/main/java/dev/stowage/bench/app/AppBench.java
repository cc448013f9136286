package dev.stowage.bench.app;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
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
 * {@code /check} operations, each reading the next 100 people back and checking every one against its
 * MD5 and the person written. The row reports operations per second and p50/p99 for each, and the
 * growth of Redis's {@code used_memory} during the adds per person stored.
 */
public final class AppBench {

  /** The bench name: results go to {@code app.json}. */
  public static final String BENCH_NAME = "app";

  /** People per operation, as the seed's {@code TIMES}. */
  public static final int PEOPLE_PER_OPERATION = 100;

  /** The seed's concurrency ({@code ab -c 200}). */
  public static final int SEED_CONCURRENCY = 200;

  /** The key prefix on a Redis server the bench does not own; on its own server keys are the seed's {@code person_<id>}. */
  public static final String BORROWED_PREFIX = "stowage-bench:app:";

  /** The row ratios compare with: the seed's fastjson string app. */
  public static final String BASELINE_ROW = SeedPersonStore.FASTJSON;

  private static final int TEMPLATES = 10_000;

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
   */
  public record Plan(int requests, int warmupRequests, int concurrency, boolean quick, List<String> rows, boolean keepKeys) {
    public Plan {
      rows = List.copyOf(rows);
      if (requests < 1 || warmupRequests < 0 || concurrency < 1) {
        throw new IllegalArgumentException("need requests >= 1, warm-up >= 0 and concurrency >= 1");
      }
    }

    /** 5,000 operations of each kind (quick: 1,000) after 500 (quick: 200) of warm-up, 200 callers. */
    public static Plan defaults(boolean quick) {
      return quick ? new Plan(1_000, 200, SEED_CONCURRENCY, true, List.of(), false) : new Plan(5_000, 500, SEED_CONCURRENCY, false, List.of(), false);
    }
  }

  /** The rows, in table order. */
  public static List<String> rowNames() {
    return List.of(SeedPersonStore.FASTJSON, SeedPersonStore.KRYO, StowagePersonStore.NAME);
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
        throw new IllegalArgumentException("unknown row '" + name + "'; choose from " + String.join(", ", rowNames()));
      }
    }
    List<Person> templates = Samples.people(TEMPLATES);
    String prefix = keyPrefix(redis);
    ProgressReporter progress = new ProgressReporter(chosen.size(), progressOut);
    List<ResultRow> rows = new ArrayList<>();
    try {
      for (String name : chosen) {
        rows.add(measure(name, plan, redis, prefix, templates));
        ResultRow row = rows.get(rows.size() - 1);
        progress.finished(name + String.format(Locale.ROOT, "  add %.0f/s  check %.0f/s",
            row.metric("add_ops_per_s").orElse(0), row.metric("check_ops_per_s").orElse(0)));
        if (!plan.keepKeys() || !name.equals(chosen.get(chosen.size() - 1))) {
          redis.clear(prefix);
        }
      }
    } catch (BenchmarkRunException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new BenchmarkRunException("bench app failed: " + e, e);
    }
    return new ResultsDocument(BENCH_NAME, plan.quick(), RunEnvironment.capture(redis.version(), Clock.systemDefaultZone()), rows);
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

  private static ResultRow measure(String name, Plan plan, BenchRedis redis, String prefix, List<Person> templates) {
    redis.clear(prefix);
    PersonStore store = name.equals(StowagePersonStore.NAME)
        ? new StowagePersonStore(redis.uri(), prefix)
        : new SeedPersonStore(name, redis.redisUri(), prefix);
    try {
      AtomicLong addIds = new AtomicLong();
      AtomicLong checkIds = new AtomicLong();
      if (plan.warmupRequests() > 0) {
        ClosedLoop.run(name + "-warmup-add", plan.concurrency(), plan.warmupRequests(), Duration.ofHours(1), (t, s) -> add(store, addIds, templates));
        ClosedLoop.run(name + "-warmup-check", plan.concurrency(), plan.warmupRequests(), Duration.ofHours(1), (t, s) -> check(store, checkIds, templates, name));
        redis.clear(prefix);
        addIds.set(0);
        checkIds.set(0);
      }
      redis.awaitLazyFree();
      long before = redis.usedMemory();
      ClosedLoop.Result adds = ClosedLoop.run(name + "-add", plan.concurrency(), plan.requests(), Duration.ofHours(1), (t, s) -> add(store, addIds, templates));
      long after = redis.usedMemory();
      ClosedLoop.Result checks = ClosedLoop.run(name + "-check", plan.concurrency(), plan.requests(), Duration.ofHours(1), (t, s) -> check(store, checkIds, templates, name));
      long people = (long) plan.requests() * PEOPLE_PER_OPERATION;
      long stored = redis.countKeys(prefix);
      if (stored != people) {
        throw new BenchmarkRunException(name + " left " + stored + " people in Redis, not " + people, null);
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
      return new ResultRow(name, store.role(), params, metrics);
    } finally {
      store.close();
    }
  }

  private static void add(PersonStore store, AtomicLong ids, List<Person> templates) {
    long first = ids.getAndAdd(PEOPLE_PER_OPERATION) + 1;
    List<Person> people = new ArrayList<>(PEOPLE_PER_OPERATION);
    for (long id = first; id < first + PEOPLE_PER_OPERATION; id++) {
      people.add(person(templates, id));
    }
    store.add(people);
  }

  private static void check(PersonStore store, AtomicLong ids, List<Person> templates, String name) {
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
        throw new IllegalStateException(name + ": person " + wanted[i] + " reads back as " + person);
      }
    }
  }

  private static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
