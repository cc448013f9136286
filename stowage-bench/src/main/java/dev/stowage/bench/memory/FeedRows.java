package dev.stowage.bench.memory;

import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.Inspector;
import dev.stowage.Stowage;
import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.bench.ResultRow;
import dev.stowage.bench.RowRole;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The rows that store the records in a Stowage {@link Feed}: one sorted set whose members are the
 * score and the value's envelope, scored from a counter, as the board service keeps its posts.
 * {@code feed/default} is a feed built with Stowage's defaults: the default codec, and zstd that
 * learns a dictionary from the feed's first values (the bulk load trains before it encodes the
 * rest); the dictionary and its record are in Redis beside the records, and so are counted. {@code
 * feed/default+zstd} turns learning off; {@code feed/default+zstd-dict} trains on a sample of the
 * whole run up front, the best a dictionary can do on these records. Every feed seals its full
 * buckets (their entries compressed together, {@link Inspector#feedEntries}) but {@code
 * feed/default+unsealed}, the defaults with {@link Feed.Builder#sealFullBuckets} off, as feeds were
 * stored before sealing. Each feed row also times page reads ({@link #PAGE_READS} pages of {@link
 * #PAGE_SIZE} at random, one at a time): among all pages, {@code page_us}, and among the newest
 * {@link #RECENT_PAGES}, {@code recent_page_us}.
 */
final class FeedRows {
  /** The default layout's row. */
  static final String DEFAULT_ROW = "feed/default";

  /** The row of the defaults without sealing. */
  static final String UNSEALED_ROW = "feed/default+unsealed";

  /** Page reads timed per feed row, after as many untimed. */
  static final int PAGE_READS = 2_000;

  /** The newest pages, which a board reads most: {@code recent_page_us} reads among these. */
  static final int RECENT_PAGES = 50;

  /** Entries per page read: the board's page. */
  static final int PAGE_SIZE = 20;

  record FeedSpec(String name, RowRole role, String codec, String compression, boolean seal) {}

  private FeedRows() {}

  static List<String> names() {
    return List.of(
        DEFAULT_ROW,
        UNSEALED_ROW,
        "feed/default+zstd",
        "feed/default+zstd-dict",
        "feed/kryo+zstd-dict");
  }

  static List<FeedSpec> specs(RecordKind kind, List<?> records) {
    List<FeedSpec> specs = new ArrayList<>();
    specs.add(new FeedSpec(DEFAULT_ROW, RowRole.STOWAGE, "default", "default", true));
    specs.add(new FeedSpec(UNSEALED_ROW, RowRole.STOWAGE, "default", "default", false));
    specs.add(new FeedSpec("feed/default+zstd", RowRole.STOWAGE, "default", "zstd", true));
    specs.add(
        new FeedSpec("feed/default+zstd-dict", RowRole.STOWAGE, "default", "zstd-dict", true));
    specs.add(new FeedSpec("feed/kryo+zstd-dict", RowRole.STOWAGE, "kryo", "zstd-dict", true));
    return specs;
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static ResultRow measure(
      FeedSpec spec, MemoryBench.Plan plan, List<?> records, BenchRedis redis, String prefix) {
    RecordKind kind = plan.kind();
    MemoryBench.clear(redis, prefix, kind);
    String key = MemoryBench.zsetKey(prefix, kind);
    if (!redis.owned()) {
      // A dictionary learned by an earlier run under this key would be adopted, not learned.
      redis.admin().unlink(Inspector.Keys.learnedByFeed(key));
    }
    long before = redis.usedMemory();
    long dictionaryId = -1;
    try (Stowage stowage =
        Stowage.builder().redis(redis.uri()).commandTimeout(Duration.ofSeconds(60)).build()) {
      Class<Object> type = (Class<Object>) kind.type();
      String codecName = spec.codec();
      Encoding<Object> encoding =
          codecName.equals("default")
              ? Encoding.defaultFor(type)
              : Encoding.of(Codecs.forName(codecName, type));
      if (spec.compression().equals("zstd-dict")) {
        encoding = encoding.trainDictionary(sample(records), MemoryBench.DICTIONARY_SIZE);
      } else if (!spec.compression().equals("default")) {
        encoding =
            encoding.compression(
                spec.compression().equals("zstd") ? Compression.zstd() : Compression.none());
      }
      Feed<Object> feed =
          stowage
              .feed(kind.cliName(), type)
              .key(key)
              .counter(prefix + "counter", kind.cliName())
              .encoding(encoding)
              .sealFullBuckets(spec.seal())
              .build();
      List<Long> scores = feed.addAll((List<Object>) records);
      long after = redis.usedMemory();
      long stored = feed.size();
      int verified = verify(spec, feed, records, scores);
      long valueBytes = meanMemberBytes(redis, key) * records.size();
      int pages = Math.max(1, records.size() / PAGE_SIZE);
      double pageMicros = pageReadMicros(feed, pages);
      double recentPageMicros = pageReadMicros(feed, Math.min(pages, RECENT_PAGES));
      for (Long id : stowage.inspector().dictionaryIds()) {
        dictionaryId = id;
      }
      if (!redis.owned() && !plan.keepKeys()) {
        if (dictionaryId != -1) {
          redis.admin().unlink(Inspector.Keys.dictionary(dictionaryId));
        }
        redis.admin().unlink(Inspector.Keys.learnedByFeed(key));
      }
      ResultRow row =
          MemoryBench.row(
              spec.name(),
              spec.role(),
              "feed",
              codecName,
              spec.compression(),
              plan,
              after - before,
              valueBytes,
              stored,
              verified);
      Map<String, Number> metrics = new LinkedHashMap<>(row.metrics());
      metrics.put("page_us", Math.round(pageMicros * 10) / 10.0);
      metrics.put("recent_page_us", Math.round(recentPageMicros * 10) / 10.0);
      return new ResultRow(row.name(), row.role(), row.params(), metrics);
    }
  }

  private static List<Object> sample(List<?> records) {
    int step = Math.max(1, records.size() / MemoryBench.DICTIONARY_SAMPLES);
    List<Object> samples = new ArrayList<>();
    for (int i = 0; i < records.size(); i += step) {
      samples.add(records.get(i));
    }
    return samples;
  }

  private static int verify(FeedSpec spec, Feed<Object> feed, List<?> records, List<Long> scores) {
    if (scores.size() != records.size()) {
      throw new BenchmarkRunException(
          spec.name()
              + ": addAll returned "
              + scores.size()
              + " scores for "
              + records.size()
              + " records",
          null);
    }
    Map<Long, Integer> indexOf = new HashMap<>();
    for (int i = 0; i < scores.size(); i++) {
      indexOf.put(scores.get(i), i);
    }
    int verified = 0;
    int size = Math.min(1_000, records.size());
    for (Feed.Entry<Object> entry : feed.page(1, size)) {
      int index = indexOf.getOrDefault(entry.score(), -1);
      Object expected = index < 0 ? null : records.get(index);
      if (!entry.value().equals(expected)) {
        throw new BenchmarkRunException(
            spec.name()
                + ": the entry at score "
                + entry.score()
                + " reads back as "
                + entry.value()
                + ", not "
                + expected,
            null);
      }
      verified++;
    }
    if (verified != size) {
      throw new BenchmarkRunException(
          spec.name() + ": the newest page has " + verified + " entries, not " + size, null);
    }
    return verified;
  }

  /**
   * The mean time of a page read, in microseconds: {@link #PAGE_READS} pages of {@link #PAGE_SIZE}
   * drawn at random among the first {@code pages}, read one after the other after as many untimed
   * (the JIT's warm-up). Reaching page {@code p} walks the buckets before it, so deep pages cost
   * more.
   */
  private static double pageReadMicros(Feed<Object> feed, int pages) {
    Random random = new Random(42);
    long entries = 0;
    long start = 0;
    for (int i = 0; i < 2 * PAGE_READS; i++) {
      if (i == PAGE_READS) {
        start = System.nanoTime();
      }
      entries += feed.page(1 + random.nextInt(pages), PAGE_SIZE).size();
    }
    if (entries == 0) {
      throw new BenchmarkRunException("the feed's pages read back empty", null);
    }
    return (System.nanoTime() - start) / 1e3 / PAGE_READS;
  }

  /**
   * The mean stored size of an entry, over up to 20 buckets drawn at random: the length of an open
   * bucket's members (lists {@code <key>:b:<n>}, {@link Inspector.Keys#feedBucket}, indexed by the
   * sorted set {@code <key>}), or a sealed bucket's value over its count ({@link
   * Inspector.Keys#feedSealedBucket}).
   */
  private static long meanMemberBytes(BenchRedis redis, String key) {
    RedisClient client = RedisClient.create(redis.redisUri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      long bytes = 0;
      long count = 0;
      for (byte[] bucket : connection.sync().zrandmember(MemoryBench.bytes(key), 20)) {
        String member = new String(bucket, StandardCharsets.US_ASCII);
        // A sealed bucket's index member is "<n>:<count>", an open one's "<n>".
        int colon = member.indexOf(':');
        int sealed = colon < 0 ? -1 : Integer.parseInt(member.substring(colon + 1));
        if (sealed > 0) {
          long number = Long.parseLong(member.substring(0, colon));
          bytes +=
              connection
                  .sync()
                  .strlen(MemoryBench.bytes(Inspector.Keys.feedSealedBucket(key, number)));
          count += sealed;
          continue;
        }
        String bucketKey = Inspector.Keys.feedBucket(key, Long.parseLong(member));
        for (byte[] entry : connection.sync().lrange(MemoryBench.bytes(bucketKey), 0, -1)) {
          bytes += entry.length;
          count++;
        }
      }
      return count == 0 ? 0 : bytes / count;
    } finally {
      client.shutdown();
    }
  }
}
