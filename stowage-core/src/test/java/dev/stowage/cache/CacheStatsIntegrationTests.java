package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.AsyncRedisCache;
import dev.stowage.CacheLayout;
import dev.stowage.CacheStats;
import dev.stowage.Encoding;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.format.Envelope;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;

/**
 * What {@link CacheStats} counts of writes (values stored, their bytes before compression and as
 * stored, keys removed) and which dictionary {@link RedisCache#compression()} names, against what
 * Redis holds.
 */
@WithRedis
@EveryLayout
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class CacheStatsIntegrationTests {
  @Parameter CacheLayout layout;

  private static final Encoding<Item> JSON_UNCOMPRESSED =
      Encoding.of(Codecs.json(Item.class)).compression(Compression.none());
  private Stowage stowage;

  @BeforeEach
  void connect(RedisServer redis) {
    stowage = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterEach
  void close() {
    stowage.close();
  }

  @BeforeEach
  void emptyRedis(RedisServer redis) {
    redis.flushAll();
  }

  private static Map<String, Item> items(long from, int n) {
    Map<String, Item> items = new LinkedHashMap<>();
    for (long id = from; id < from + n; id++) {
      items.put(Long.toString(id), Samples.item(id));
    }
    return items;
  }

  /** The values' sizes as Redis holds them, and without their envelope's header. */
  private record Sizes(long stored, long payloads) {}

  private Sizes sizes(RedisServer redis, RedisCache<String, ?> cache, Iterable<String> keys) {
    StoredEntries entries = StoredEntries.of(redis, layout, cache.name() + ":");
    long stored = 0;
    long payloads = 0;
    for (String key : keys) {
      byte[] value = entries.get(key);
      stored += value.length;
      payloads += value.length - Envelope.readHeader(value).payloadOffset();
    }
    return new Sizes(stored, payloads);
  }

  @Test
  void theAsyncViewAnswersNameStatsCompressionAndKeysAsTheBlockingViewDoesOnBothLayouts() {
    for (RedisCache<String, Item> cache :
        List.of(
            stowage.cache("views", Item.class).encoding(JSON_UNCOMPRESSED).build(),
            stowage
                .cache("views-packed", Item.class)
                .encoding(JSON_UNCOMPRESSED)
                .layout(CacheLayout.packedBuckets(8))
                .build())) {
      AsyncRedisCache<String, Item> async = cache.async();
      async.put("1", Samples.item(1)).join();
      assertThat(async.get("1").join()).isEqualTo(Samples.item(1));
      assertThat(async.get("missing").join()).as("a miss completes with null").isNull();

      assertThat(async.name()).isEqualTo(cache.name());
      assertThat(async.stats().puts()).isEqualTo(cache.stats().puts()).isEqualTo(1);
      assertThat(async.stats().hits()).isEqualTo(1);
      assertThat(async.stats().misses()).isEqualTo(1);
      assertThat(async.compression()).isEqualTo(cache.compression());
      assertThat(async.redisKey("1")).isEqualTo(cache.redisKey("1"));
    }
  }

  @Test
  void eachPutCountsTheValueAndItsBytesAsRedisHoldsThem(RedisServer redis) {
    RedisCache<String, Item> cache =
        stowage.cache("single", Item.class).layout(layout).encoding(JSON_UNCOMPRESSED).build();
    Map<String, Item> items = items(1, 3);
    items.forEach(cache::put);
    cache.async().put("4", Samples.item(4)).join();

    CacheStats stats = cache.stats();
    Sizes sizes = sizes(redis, cache, List.of("1", "2", "3", "4"));
    assertThat(stats.puts()).isEqualTo(4);
    assertThat(stats.bytesWritten()).isEqualTo(sizes.stored());
    // Uncompressed, a value's bytes before compression are its payload: what follows the header.
    assertThat(stats.bytesBeforeCompression())
        .isEqualTo(sizes.payloads())
        .isLessThan(stats.bytesWritten());
    assertThat(stats.deletes()).isZero();
  }

  @Test
  void bulkPutsCountEveryValueOfEveryChunkWithATtlAndWithout(RedisServer redis) {
    RedisCache<String, Item> withTtl =
        stowage
            .cache("ttl", Item.class)
            .layout(layout)
            .encoding(JSON_UNCOMPRESSED)
            .chunkSize(100)
            .build();
    RedisCache<String, Item> noExpiry =
        stowage
            .cache("forever", Item.class)
            .layout(layout)
            .encoding(JSON_UNCOMPRESSED)
            .chunkSize(100)
            .noExpiry()
            .build();
    Map<String, Item> items = items(0, 250);
    withTtl.putAll(items);
    noExpiry.async().putAll(items).join();

    for (RedisCache<String, Item> cache : List.of(withTtl, noExpiry)) {
      Sizes sizes = sizes(redis, cache, items.keySet());
      assertThat(cache.stats().puts()).as(cache.name()).isEqualTo(250);
      assertThat(cache.stats().bytesWritten()).as(cache.name()).isEqualTo(sizes.stored());
      assertThat(cache.stats().bytesBeforeCompression())
          .as(cache.name())
          .isEqualTo(sizes.payloads());
    }
  }

  @Test
  void loadedValuesArePutsAndAbsentMarkersAreNot() {
    RedisCache<String, Item> cache =
        stowage
            .cache("loads", Item.class)
            .layout(layout)
            .encoding(JSON_UNCOMPRESSED)
            .cacheAbsent(Duration.ofMinutes(1))
            .build();

    assertThat(cache.getOrLoad("1", key -> Samples.item(1))).isEqualTo(Samples.item(1));
    assertThat(cache.getOrLoad("2", key -> null)).isNull();
    assertThat(cache.stats().puts()).isEqualTo(1);

    Map<String, Item> loaded = cache.getAllOrLoad(List.of("3", "4", "5"), keys -> items(3, 2));
    assertThat(loaded).containsOnlyKeys("3", "4");
    assertThat(cache.stats().puts()).isEqualTo(3);
    assertThat(cache.exists("5")).as("marked absent").isTrue();
  }

  @Test
  void deletesCountTheKeysRedisRemoved() {
    RedisCache<String, Item> cache =
        stowage
            .cache("deletes", Item.class)
            .layout(layout)
            .encoding(JSON_UNCOMPRESSED)
            .chunkSize(10)
            .build();
    cache.putAll(items(0, 30));

    assertThat(cache.delete("0")).isTrue();
    assertThat(cache.delete("missing")).isFalse();
    assertThat(cache.stats().deletes()).isEqualTo(1);
    assertThat(cache.deleteAll(List.of("1", "2", "not there"))).isEqualTo(2);
    assertThat(cache.stats().deletes()).isEqualTo(3);
    // clear() removes Redis keys: the 27 entries left, or the buckets they are in.
    long keys = items(3, 27).keySet().stream().map(cache::redisKey).distinct().count();
    assertThat(cache.clear()).isEqualTo(keys);
    assertThat(cache.stats().deletes()).isEqualTo(3 + keys);
    assertThat(cache.stats().puts()).isEqualTo(30);
  }

  @Test
  void compressedValuesAreWrittenInFewerBytesThanTheyEncodeTo(RedisServer redis) {
    RedisCache<String, String> cache =
        stowage
            .cache("text", String.class)
            .layout(layout)
            .encoding(Encoding.defaultFor(String.class).compression(Compression.zstd()))
            .build();
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      cache.put("k" + i, ("line " + i + " of a text that repeats itself; ").repeat(40));
      keys.add("k" + i);
    }

    CacheStats stats = cache.stats();
    Sizes sizes = sizes(redis, cache, keys);
    assertThat(stats.bytesWritten()).isEqualTo(sizes.stored());
    assertThat(stats.bytesBeforeCompression()).isGreaterThan(4 * stats.bytesWritten());
  }

  @Test
  void compressionNamesTheDictionaryOnceTheCacheHasLearnedOne(RedisServer redis) {
    RedisCache<String, BoardRecord> cache =
        stowage
            .cache("boards", BoardRecord.class)
            .layout(layout)
            .encoding(Encoding.defaultFor(BoardRecord.class).learnDictionary(100, 16 * 1024))
            .build();
    assertThat(cache.compression()).isEqualTo(Compression.standard());

    Map<String, BoardRecord> first = new LinkedHashMap<>();
    Samples.boards(0, 110).forEach(board -> first.put(board.id(), board));
    cache.putAll(first); // a bulk write that completes the samples trains before it returns

    String recorded =
        RawValues.hget(
            redis, "stowage:learned:cache:boards", Codecs.defaultFor(BoardRecord.class).name());
    assertThat(recorded).isNotNull();
    assertThat(CompressionAccess.dictionary(cache.compression()))
        .map(ZstdDictionary::hexId)
        .contains(recorded);

    CacheStats before = cache.stats();
    Map<String, BoardRecord> later = new LinkedHashMap<>();
    Samples.boards(1000, 50).forEach(board -> later.put(board.id(), board));
    cache.putAll(later);
    CacheStats after = cache.stats();
    assertThat(after.puts() - before.puts()).isEqualTo(50);
    assertThat(after.bytesWritten() - before.bytesWritten())
        .isLessThan(after.bytesBeforeCompression() - before.bytesBeforeCompression());
  }

  @Test
  void compressionIsFixedForAFixedEncodingAndNoneForLegacyWrites() {
    ZstdDictionary trained =
        ZstdDictionary.train(
            Samples.boards(0, 300).stream()
                .map(board -> Codecs.json(BoardRecord.class).encode(board))
                .toList(),
            8 * 1024);
    RedisCache<String, BoardRecord> withDictionary =
        stowage
            .cache("trained", BoardRecord.class)
            .layout(layout)
            .encoding(
                Encoding.of(Codecs.json(BoardRecord.class))
                    .compression(CompressionAccess.zstd(trained)))
            .build();
    RedisCache<String, Item> legacy =
        stowage
            .cache("legacy", Item.class)
            .layout(layout)
            .encoding(Encoding.of(Codecs.json(Item.class)).writeLegacy(Codecs.json(Item.class)))
            .build();

    assertThat(CompressionAccess.dictionary(withDictionary.compression())).contains(trained);
    assertThat(legacy.compression()).isEqualTo(Compression.none());
    legacy.put("1", Samples.item(1));
    assertThat(legacy.stats().bytesWritten())
        .isEqualTo(legacy.stats().bytesBeforeCompression())
        .isPositive();
    assertThat(legacy.stats().puts()).isEqualTo(1);
  }
}
