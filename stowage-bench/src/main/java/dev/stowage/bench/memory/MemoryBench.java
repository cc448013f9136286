package dev.stowage.bench.memory;

import dev.stowage.Codec;
import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ProgressReporter;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultTable;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.RunEnvironment;
import dev.stowage.bench.app.PersonSerializers;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.samples.Person;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
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
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * Runs the memory tables ({@code stowage bench memory}): stores N records once per row (a layout
 * and a value form) and reports how much Redis's {@code used_memory} grew.
 *
 * <p>Layouts: {@code zset}, the whole record as a member of one sorted set scored by its position
 * (the first seed's); {@code keys}, one string key per record (the fifth seed's); and {@code feed},
 * Stowage's feed; and Stowage's cache with its defaults, a key per value and packed into hashes
 * ({@link CacheRows}). Value forms: the seeds' bare codecs and Stowage's envelope with each codec
 * and compression. A zstd dictionary is trained on the run's own records (encoded by the row's
 * codec) and stored in Redis beside them, so its size is counted.
 *
 * <p>Before each row, the row's keys are removed; on an embedded server that is {@code FLUSHALL}
 * and keys have the seed's own names ({@code board}, {@code person_<id>}); on a borrowed server
 * every key starts with {@link #BORROWED_PREFIX}. After writing, the record count is checked and
 * records are read back and compared with those written ({@code verified} in the row).
 */
public final class MemoryBench {

  /** The bench name: results go to {@code memory.json}. */
  public static final String BENCH_NAME = "memory";

  /** The key prefix on a Redis server the bench does not own. */
  public static final String BORROWED_PREFIX = "stowage-bench:memory:";

  /** The codecs whose enveloped forms are measured. */
  public static final List<String> CODECS =
      List.of("json", "msgpack", "msgpack-compact", "kryo", "fory");

  /** The compressions of the envelope, besides lz4 which is measured for the default codec only. */
  public static final List<String> COMPRESSIONS = List.of("none", "zstd", "zstd-dict");

  /** The size of the trained dictionary. */
  public static final int DICTIONARY_SIZE = 64 * 1024;

  /** How many of the run's records train the dictionary, at most. */
  public static final int DICTIONARY_SAMPLES = 5_000;

  private static final int CHUNK = 1_000;
  private static final int VERIFY_AT_MOST = 1_000;

  private MemoryBench() {}

  /**
   * What to run.
   *
   * @param kind the records
   * @param count how many
   * @param quick whether this is a {@code --quick} run
   * @param rows only these rows, by name (empty: all)
   * @param keepKeys leave the last row's keys in Redis (for tests)
   */
  public record Plan(
      RecordKind kind, int count, boolean quick, List<String> rows, boolean keepKeys) {
    public Plan {
      Objects.requireNonNull(kind, "kind");
      rows = List.copyOf(rows);
      if (count < Encoding.MIN_LEARNING_SAMPLES) {
        throw new IllegalArgumentException(
            "count must be at least " + Encoding.MIN_LEARNING_SAMPLES + ", not " + count);
      }
    }

    /** The kind's default (or quick) count, every row. */
    public static Plan defaults(RecordKind kind, boolean quick) {
      return new Plan(
          kind, quick ? kind.quickCount() : kind.defaultCount(), quick, List.of(), false);
    }
  }

  /** One row to measure. */
  record RowSpec(String name, RowRole role, String layout, ValueForm form) {}

  /**
   * The rows for {@code kind}, in table order, built for {@code records} (which train
   * dictionaries).
   */
  static List<RowSpec> rows(RecordKind kind, List<?> records) {
    List<RowSpec> rows = new ArrayList<>();
    String seedLayout = kind == RecordKind.BOARD ? "zset" : "keys";
    for (String layout : List.of("zset", "keys")) {
      RowRole bareRole = layout.equals(seedLayout) ? RowRole.SEED : RowRole.PEER;
      for (ValueForm form : bareForms(kind)) {
        rows.add(new RowSpec(layout + "/" + form.label(), bareRole, layout, form));
      }
      for (String codec : CODECS) {
        for (String compression : COMPRESSIONS) {
          ValueForm form = envelopeForm(kind, codec, compression, records);
          rows.add(new RowSpec(layout + "/" + form.label(), RowRole.STOWAGE, layout, form));
        }
        if (codec.equals("msgpack-compact")) {
          ValueForm form = envelopeForm(kind, codec, "lz4", records);
          rows.add(new RowSpec(layout + "/" + form.label(), RowRole.STOWAGE, layout, form));
        }
      }
    }
    return rows;
  }

  /** The names of every row for {@code kind}, in table order. */
  public static List<String> rowNames(RecordKind kind) {
    List<String> names = new ArrayList<>();
    String[] bare =
        kind == RecordKind.BOARD
            ? new String[] {"json", "msgpack"}
            : new String[] {"fastjson", "kryo"};
    for (String layout : List.of("zset", "keys")) {
      for (String codec : bare) {
        names.add(layout + "/" + codec);
      }
      for (String codec : CODECS) {
        for (String compression : COMPRESSIONS) {
          names.add(layout + "/" + codec + "+" + compression);
        }
        if (codec.equals("msgpack-compact")) {
          names.add(layout + "/" + codec + "+lz4");
        }
      }
    }
    names.addAll(FeedRows.names());
    names.addAll(CacheRows.names());
    return names;
  }

  /** The seed's row that every ratio is taken against. */
  public static String baselineRow(RecordKind kind) {
    return kind == RecordKind.BOARD ? "zset/json" : "keys/fastjson";
  }

  /**
   * Runs the plan.
   *
   * @throws BenchmarkRunException if a row fails or its records do not read back
   */
  public static ResultsDocument run(Plan plan, BenchRedis redis, PrintStream progressOut) {
    List<String> known = rowNames(plan.kind());
    for (String name : plan.rows()) {
      if (!known.contains(name)) {
        throw new IllegalArgumentException(
            "unknown row '" + name + "'; choose from " + String.join(", ", known));
      }
    }
    List<?> records = plan.kind().records(plan.count());
    List<RowSpec> specs = new ArrayList<>(rows(plan.kind(), records));
    specs.removeIf(spec -> !plan.rows().isEmpty() && !plan.rows().contains(spec.name()));
    List<FeedRows.FeedSpec> feeds = FeedRows.specs(plan.kind(), records);
    feeds.removeIf(spec -> !plan.rows().isEmpty() && !plan.rows().contains(spec.name()));
    List<CacheRows.CacheSpec> caches = new ArrayList<>(CacheRows.specs());
    caches.removeIf(spec -> !plan.rows().isEmpty() && !plan.rows().contains(spec.name()));
    String prefix = redis.owned() ? "" : BORROWED_PREFIX;
    ProgressReporter progress =
        new ProgressReporter(specs.size() + feeds.size() + caches.size(), progressOut);
    List<ResultRow> rows = new ArrayList<>();
    try {
      for (RowSpec spec : specs) {
        rows.add(measure(spec, plan, records, redis, prefix));
        progress.finished(
            spec.name()
                + "  "
                + String.format(
                    Locale.ROOT,
                    "%.1f MB",
                    rows.get(rows.size() - 1).metric("used_memory_bytes").orElse(0) / 1e6));
      }
      for (FeedRows.FeedSpec feed : feeds) {
        rows.add(FeedRows.measure(feed, plan, records, redis, prefix));
        progress.finished(
            feed.name()
                + "  "
                + String.format(
                    Locale.ROOT,
                    "%.1f MB",
                    rows.get(rows.size() - 1).metric("used_memory_bytes").orElse(0) / 1e6));
      }
      for (CacheRows.CacheSpec cache : caches) {
        rows.add(CacheRows.measure(cache, plan, records, redis, prefix));
        progress.finished(
            cache.name()
                + "  "
                + String.format(
                    Locale.ROOT,
                    "%.1f MB",
                    rows.get(rows.size() - 1).metric("used_memory_bytes").orElse(0) / 1e6));
      }
      if (!plan.keepKeys()) {
        clear(redis, prefix, plan.kind());
      }
    } catch (BenchmarkRunException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new BenchmarkRunException("bench memory failed: " + e, e);
    }
    return new ResultsDocument(
        BENCH_NAME,
        plan.quick(),
        RunEnvironment.capture(redis.version(), Clock.system(ZoneId.systemDefault())),
        withRatios(rows, baselineRow(plan.kind())));
  }

  /** The terminal table: one section per layout, ratios against the seed's JSON. */
  public static ResultTable table(RecordKind kind) {
    return ResultTable.builder()
        .text("row", ResultRow::name)
        .text("role", row -> row.role().jsonName())
        .metric("records", "records", 0)
        .metric("MB", "used_memory_mb", 1)
        .metric("B/record", "bytes_per_record", 0)
        .metric("value B", "mean_value_bytes", 0)
        .ratio("x seed", "used_memory_bytes")
        .metric("MB at 120k", "mb_at_120k", 1)
        .baseline(baselineRow(kind))
        .groupBy("layout")
        .build();
  }

  /** The key of the sorted set, the key of record {@code id}, and of a dictionary. */
  static String zsetKey(String prefix, RecordKind kind) {
    return prefix + kind.cliName();
  }

  static String recordKey(String prefix, RecordKind kind, long id) {
    return prefix + (kind == RecordKind.BOARD ? "board:" : "person_") + id;
  }

  static String dictionaryKey(String prefix, byte[] dictionary) {
    return prefix + "dict:" + Inspector.hexId(Inspector.dictionaryId(dictionary));
  }

  /** Removes everything the bench wrote: FLUSHALL when owned, else its prefixed keys. */
  static void clear(BenchRedis redis, String prefix, RecordKind kind) {
    if (redis.owned()) {
      redis.admin().flushall();
    } else {
      redis.deleteKeys(prefix);
    }
    redis.awaitLazyFree();
  }

  private static ResultRow measure(
      RowSpec spec, Plan plan, List<?> records, BenchRedis redis, String prefix) {
    RecordKind kind = plan.kind();
    clear(redis, prefix, kind);
    List<byte[]> values = new ArrayList<>(records.size());
    long valueBytes = 0;
    for (Object record : records) {
      byte[] value = spec.form().encode().apply(record);
      values.add(value);
      valueBytes += value.length;
    }
    long before = redis.usedMemory();
    RedisClient client = RedisClient.create(redis.redisUri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      if (spec.form().dictionary() != null) {
        connection
            .sync()
            .set(bytes(dictionaryKey(prefix, spec.form().dictionary())), spec.form().dictionary());
      }
      ToLongFunction<Object> idOf = kind.idOf();
      if (spec.layout().equals("zset")) {
        writeZset(connection, bytes(zsetKey(prefix, kind)), values);
      } else {
        writeKeys(
            connection, records, values, r -> bytes(recordKey(prefix, kind, idOf.applyAsLong(r))));
      }
    } finally {
      client.shutdown();
    }
    long after = redis.usedMemory();
    long stored =
        spec.layout().equals("zset")
            ? redis.admin().zcard(zsetKey(prefix, kind))
            : countRecordKeys(redis, prefix, kind);
    int verified = verify(spec, records, redis, prefix);
    return row(
        spec.name(),
        spec.role(),
        spec.layout(),
        spec.form().codec(),
        spec.form().compression(),
        plan,
        after - before,
        valueBytes,
        stored,
        verified);
  }

  static long countRecordKeys(BenchRedis redis, String prefix, RecordKind kind) {
    String keyPrefix = recordKey(prefix, kind, 0);
    return redis.countKeys(keyPrefix.substring(0, keyPrefix.length() - 1));
  }

  static ResultRow row(
      String name,
      RowRole role,
      String layout,
      String codec,
      String compression,
      Plan plan,
      long usedMemory,
      long valueBytes,
      long stored,
      int verified) {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("records", plan.kind().cliName());
    params.put("layout", layout);
    params.put("codec", codec);
    params.put("compression", compression);
    Map<String, Number> metrics = new LinkedHashMap<>();
    int n = plan.count();
    metrics.put("records", n);
    metrics.put("used_memory_bytes", usedMemory);
    metrics.put("used_memory_mb", Math.round(usedMemory / 1e5) / 10.0);
    metrics.put("bytes_per_record", Math.round(usedMemory * 10.0 / n) / 10.0);
    metrics.put("mean_value_bytes", Math.round(valueBytes * 10.0 / n) / 10.0);
    metrics.put("mb_at_120k", Math.round(usedMemory * 120_000.0 / n / 1e5) / 10.0);
    metrics.put("stored", stored);
    metrics.put("verified", verified);
    return new ResultRow(name, role, params, metrics);
  }

  private static List<ResultRow> withRatios(List<ResultRow> rows, String baseline) {
    ResultRow base = rows.stream().filter(r -> r.name().equals(baseline)).findFirst().orElse(null);
    if (base == null) {
      return rows;
    }
    List<ResultRow> out = new ArrayList<>();
    for (ResultRow row : rows) {
      Map<String, Number> metrics = new LinkedHashMap<>(row.metrics());
      ResultTable.ratio(row, base, "used_memory_bytes")
          .ifPresent(r -> metrics.put("x_seed", Math.round(r * 1000) / 1000.0));
      out.add(new ResultRow(row.name(), row.role(), row.params(), metrics));
    }
    return out;
  }

  private static void writeZset(
      StatefulRedisConnection<byte[], byte[]> connection, byte[] key, List<byte[]> values) {
    RedisAsyncCommands<byte[], byte[]> async = connection.async();
    List<RedisFuture<Long>> replies = new ArrayList<>();
    for (int from = 0; from < values.size(); from += CHUNK) {
      int to = Math.min(values.size(), from + CHUNK);
      @SuppressWarnings("unchecked")
      ScoredValue<byte[]>[] members = new ScoredValue[to - from];
      for (int i = from; i < to; i++) {
        members[i - from] = ScoredValue.just(i + 1, values.get(i));
      }
      replies.add(async.zadd(key, members));
    }
    await(replies);
  }

  private static void writeKeys(
      StatefulRedisConnection<byte[], byte[]> connection,
      List<?> records,
      List<byte[]> values,
      Function<Object, byte[]> keyOf) {
    RedisAsyncCommands<byte[], byte[]> async = connection.async();
    connection.setAutoFlushCommands(false);
    try {
      List<RedisFuture<String>> replies = new ArrayList<>(CHUNK);
      for (int i = 0; i < values.size(); i++) {
        replies.add(async.set(keyOf.apply(records.get(i)), values.get(i)));
        if (replies.size() == CHUNK || i == values.size() - 1) {
          connection.flushCommands();
          await(replies);
          replies.clear();
        }
      }
    } finally {
      connection.setAutoFlushCommands(true);
    }
  }

  private static void await(List<? extends RedisFuture<?>> replies) {
    if (!LettuceFutures.awaitAll(Duration.ofMinutes(2), replies.toArray(RedisFuture[]::new))) {
      throw new BenchmarkRunException(
          "Redis did not acknowledge " + replies.size() + " writes within 2 minutes", null);
    }
  }

  private static int verify(RowSpec spec, List<?> records, BenchRedis redis, String prefix) {
    RecordKind kind = (records.get(0) instanceof Person) ? RecordKind.PERSON : RecordKind.BOARD;
    RedisClient client = RedisClient.create(redis.redisUri());
    int verified = 0;
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      int step = Math.max(1, records.size() / VERIFY_AT_MOST);
      ToLongFunction<Object> idOf = kind.idOf();
      for (int i = 0; i < records.size(); i += step) {
        Object expected = records.get(i);
        byte[] value;
        if (spec.layout().equals("zset")) {
          List<byte[]> members =
              connection
                  .sync()
                  .zrangebyscore(bytes(zsetKey(prefix, kind)), Range.create(i + 1, i + 1));
          value = members.size() == 1 ? members.get(0) : null;
        } else {
          value = connection.sync().get(bytes(recordKey(prefix, kind, idOf.applyAsLong(expected))));
        }
        Object actual = value == null ? null : spec.form().decode().apply(value);
        if (!expected.equals(actual)) {
          throw new BenchmarkRunException(
              spec.name() + ": record " + i + " reads back as " + actual + ", not " + expected,
              null);
        }
        verified++;
      }
    } finally {
      client.shutdown();
    }
    return verified;
  }

  private static List<ValueForm> bareForms(RecordKind kind) {
    if (kind == RecordKind.BOARD) {
      Codec<Object> json = codec("json", kind);
      Codec<Object> msgpack = codec("msgpack", kind);
      return List.of(
          new ValueForm("json", "bare", json::encode, b -> json.decode(b, 0, b.length), null),
          new ValueForm(
              "msgpack", "bare", msgpack::encode, b -> msgpack.decode(b, 0, b.length), null));
    }
    return List.of(
        new ValueForm(
            "fastjson",
            "bare",
            p -> PersonSerializers.fastjsonBytes((Person) p),
            PersonSerializers::fromFastjsonBytes,
            null),
        new ValueForm(
            "kryo", "bare", PersonSerializers::toKryo, PersonSerializers::fromKryo, null));
  }

  /**
   * The enveloped form of {@code codec} with {@code compression}; dictionaries train on {@code
   * records}.
   */
  static ValueForm envelopeForm(
      RecordKind kind, String codecName, String compression, List<?> records) {
    Codec<Object> codec = codec(codecName, kind);
    byte[] dictionary = null;
    Compression chosen =
        switch (compression) {
          case "none" -> Compression.none();
          case "lz4" -> Compression.lz4();
          case "zstd" -> Compression.zstd();
          case "zstd-dict" -> {
            dictionary = train(codec, records);
            yield Compression.zstd(dictionary);
          }
          default -> throw new IllegalArgumentException("unknown compression " + compression);
        };
    // A serializer without Redis: the dictionary it reads is the one it writes with.
    Encoding.Serializer<Object> envelope = Encoding.of(codec).compression(chosen).serializer();
    return new ValueForm(codecName, compression, envelope::encode, envelope::decode, dictionary);
  }

  /**
   * A dictionary of {@link #DICTIONARY_SIZE} (less for few records) trained on the codec's bytes of
   * the records.
   */
  static byte[] train(Codec<Object> codec, List<?> records) {
    int step = Math.max(1, records.size() / DICTIONARY_SAMPLES);
    List<byte[]> samples = new ArrayList<>();
    long total = 0;
    for (int i = 0; i < records.size(); i += step) {
      byte[] sample = codec.encode(records.get(i));
      samples.add(sample);
      total += sample.length;
    }
    int size = (int) Math.max(Encoding.MIN_DICTIONARY_SIZE, Math.min(DICTIONARY_SIZE, total / 8));
    return Compression.trainDictionary(samples, size);
  }

  @SuppressWarnings("unchecked")
  static Codec<Object> codec(String name, RecordKind kind) {
    return (Codec<Object>) Codecs.forName(name, kind.type());
  }

  static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
