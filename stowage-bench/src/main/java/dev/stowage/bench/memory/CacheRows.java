package dev.stowage.bench.memory;

import dev.stowage.CacheLayout;
import dev.stowage.CacheStats;
import dev.stowage.Inspector;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.RowRole;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The rows that store the records through a Stowage {@link RedisCache} with its defaults (the
 * default codec, the dictionary learned from the cache's first values, the default TTL), keyed by
 * the record's id under the seed's prefix ({@code person_} or {@code board:}), so that {@code
 * cache/default} writes the same Redis keys as the seed's key-per-record layout.
 *
 * <ul>
 *   <li>{@code cache/default}: the key-per-value layout, a string per record.
 *   <li>{@code packed/default}: {@link CacheLayout#packed(long)} sized for the run's records, on
 *       the server's own {@code hash-max-listpack-value}.
 *   <li>{@code packed/default+listpack128}: the same with {@code hash-max-listpack-value} raised to
 *       128 for the row (and set back after it), so that values of up to 128 bytes keep a bucket a
 *       listpack.
 * </ul>
 *
 * <p>The dictionary and the cache's record of it are in Redis beside the records, and so are
 * counted. Records are written with {@code putAll} in chunks of {@value #CHUNK}; 1,000 spread over
 * the run are read back with one {@code getAll} and compared.
 */
final class CacheRows {
  private static final int CHUNK = 10_000;
  private static final int VERIFY = 1_000;
  private static final String LISTPACK_VALUE = "hash-max-listpack-value";

  record CacheSpec(String name, boolean packed, int listpackValue) {}

  private CacheRows() {}

  static List<String> names() {
    return List.of("cache/default", "packed/default", "packed/default+listpack128");
  }

  static List<CacheSpec> specs() {
    return List.of(
        new CacheSpec("cache/default", false, 0),
        new CacheSpec("packed/default", true, 0),
        new CacheSpec("packed/default+listpack128", true, 128));
  }

  @SuppressWarnings("unchecked")
  static ResultRow measure(
      CacheSpec spec, MemoryBench.Plan plan, List<?> records, BenchRedis redis, String prefix) {
    RecordKind kind = plan.kind();
    MemoryBench.clear(redis, prefix, kind);
    String name = kind.cliName();
    if (!redis.owned()) {
      // A dictionary learned by an earlier run under this name would be adopted, not learned.
      redis.admin().unlink(Inspector.Keys.learnedByCache(name));
    }
    String keyPrefix = MemoryBench.recordKey(prefix, kind, 0);
    keyPrefix = keyPrefix.substring(0, keyPrefix.length() - 1);
    String oldListpackValue = null;
    if (spec.listpackValue() > 0) {
      oldListpackValue = redis.admin().configGet(LISTPACK_VALUE).get(LISTPACK_VALUE);
      redis.admin().configSet(LISTPACK_VALUE, Integer.toString(spec.listpackValue()));
    }
    try (Stowage stowage =
        Stowage.builder().redis(redis.uri()).commandTimeout(Duration.ofSeconds(60)).build()) {
      long before = redis.usedMemory();
      Class<Object> type = (Class<Object>) kind.type();
      RedisCache.Builder<Long, Object> builder =
          stowage.cache(name, type).<Long>keys(String::valueOf).keyPrefix(keyPrefix);
      if (spec.packed()) {
        builder.layout(CacheLayout.packed(records.size()));
      }
      RedisCache<Long, Object> cache = builder.build();
      ToLongFunction<Object> idOf = kind.idOf();
      Map<Long, Object> chunk = new LinkedHashMap<>();
      for (Object record : records) {
        chunk.put(idOf.applyAsLong(record), record);
        if (chunk.size() == CHUNK) {
          cache.putAll(chunk);
          chunk.clear();
        }
      }
      if (!chunk.isEmpty()) {
        cache.putAll(chunk);
      }
      long after = redis.usedMemory();
      CacheStats stats = cache.stats();
      long stored =
          spec.packed()
              ? fieldsStored(redis, keyPrefix, CacheLayout.packed(records.size()).buckets())
              : MemoryBench.countRecordKeys(redis, prefix, kind);
      int verified = verify(spec, cache, records, idOf);
      if (!redis.owned() && !plan.keepKeys()) {
        for (Long id : stowage.inspector().dictionaryIds()) {
          redis.admin().unlink(Inspector.Keys.dictionary(id));
        }
        redis.admin().unlink(Inspector.Keys.learnedByCache(name));
      }
      ResultRow row =
          MemoryBench.row(
              spec.name(),
              RowRole.STOWAGE,
              spec.packed() ? "packed" : "cache",
              "default",
              "default",
              plan,
              after - before,
              stats.bytesWritten(),
              stored,
              verified);
      Map<String, Number> metrics = new LinkedHashMap<>(row.metrics());
      metrics.put("oversized_values", stats.oversizedValues());
      return new ResultRow(row.name(), row.role(), row.params(), metrics);
    } finally {
      if (oldListpackValue != null) {
        redis.admin().configSet(LISTPACK_VALUE, oldListpackValue);
      }
    }
  }

  /** The fields of every bucket, added up. */
  private static long fieldsStored(BenchRedis redis, String keyPrefix, int buckets) {
    long fields = 0;
    for (int bucket = 0; bucket < buckets; bucket++) {
      fields += redis.admin().hlen(Inspector.Keys.packedBucket(keyPrefix, bucket));
    }
    return fields;
  }

  private static int verify(
      CacheSpec spec,
      RedisCache<Long, Object> cache,
      List<?> records,
      ToLongFunction<Object> idOf) {
    int step = Math.max(1, records.size() / VERIFY);
    List<Long> ids = new ArrayList<>();
    List<Object> expected = new ArrayList<>();
    for (int i = 0; i < records.size(); i += step) {
      ids.add(idOf.applyAsLong(records.get(i)));
      expected.add(records.get(i));
    }
    Map<Long, Object> found = cache.getAll(ids);
    for (int i = 0; i < ids.size(); i++) {
      if (!expected.get(i).equals(found.get(ids.get(i)))) {
        throw new BenchmarkRunException(
            spec.name()
                + ": record "
                + ids.get(i)
                + " reads back as "
                + found.get(ids.get(i))
                + ", not "
                + expected.get(i),
            null);
      }
    }
    return ids.size();
  }
}
