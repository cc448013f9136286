package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CacheLayout;
import dev.stowage.CacheStats;
import dev.stowage.CodecException;
import dev.stowage.Encoding;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import dev.stowage.codec.Codecs;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisURI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@WithRedis
@EveryLayout
class RedisCacheIntegrationTests {
  @Parameter CacheLayout layout;

  private static final int CHUNK = 100;
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

  static Map<String, Item> items(int n) {
    Map<String, Item> items = new LinkedHashMap<>();
    for (Item item : Samples.items(n)) {
      items.put(Long.toString(item.id()), item);
    }
    return items;
  }

  @Test
  void putThenGetReturnsAnEqualValueAndCountsHitsAndMisses(RedisServer redis) {
    RedisCache<String, Item> cache = stowage.cache("items", Item.class).layout(layout).build();
    StoredEntries stored = StoredEntries.of(redis, layout, "items:");
    Item item = Samples.item(7);

    assertThat(cache.get("7")).isNull();
    cache.put("7", item);

    assertThat(cache.get("7")).isEqualTo(item);
    assertThat(cache.redisKey("7")).isEqualTo(stored.redisKey("7"));
    assertThat(stored.exists("7")).isTrue();
    long bytesStored = stored.get("7").length;
    // A packed entry longer than a listpack's value limit (64 bytes by default) is counted.
    long oversized = layout.isPacked() && bytesStored > 64 ? 1 : 0;
    CacheStats stats = cache.stats();
    assertThat(stats)
        .isEqualTo(
            CacheStats.of(
                1,
                1,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                1,
                0,
                stats.bytesBeforeCompression(),
                bytesStored,
                oversized));
  }

  @Test
  void aLettuceUriWorksToo(RedisServer redis) {
    try (Stowage viaUri =
        Stowage.builder()
            .redis(RedisURI.create(redis.host(), redis.port()))
            .commandTimeout(Duration.ofSeconds(1))
            .build()) {
      assertThat(viaUri.address()).isEqualTo("127.0.0.1:" + redis.port());
      viaUri.cache("uri", Item.class).layout(layout).build().put("a", Samples.item(1));
    }
    assertThat(stowage.cache("uri", Item.class).layout(layout).build().get("a"))
        .isEqualTo(Samples.item(1));
    assertThatThrownBy(() -> Stowage.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("redis(");
    assertThatThrownBy(() -> Stowage.builder().redis("http://nope"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keysOfAnotherTypeGoThroughTheKeyFunction(RedisServer redis) {
    RedisCache<Long, Item> cache =
        stowage
            .cache("byId", Item.class)
            .layout(layout)
            .keys((Long id) -> "item-" + id)
            .keyPrefix("shop:")
            .build();
    cache.put(5L, Samples.item(5));

    StoredEntries stored = StoredEntries.of(redis, layout, "shop:");
    assertThat(cache.redisKey(5L)).isEqualTo(stored.redisKey("item-5"));
    assertThat(stored.exists("item-5")).isTrue();
    assertThat(cache.get(5L)).isEqualTo(Samples.item(5));
    assertThat(cache.getAll(List.of(5L, 6L))).containsOnlyKeys(5L);
  }

  @ParameterizedTest(name = "{0} keys, ttl {1}")
  @CsvSource({
    "0, true", "1, true", "100, true", "101, true", "100000, true",
    "0, false", "1, false", "100, false", "101, false", "100000, false"
  })
  void bulkOperationsHandleEverySizeAroundTheChunk(int size, boolean ttl, RedisServer redis) {
    RedisCache.Builder<String, Item> builder =
        stowage.cache("bulk", Item.class).layout(layout).chunkSize(CHUNK);
    if (!ttl) {
      builder.noExpiry();
    }
    RedisCache<String, Item> cache = builder.build();
    Map<String, Item> items = items(size);
    StoredEntries stored = StoredEntries.of(redis, layout, "bulk:");

    cache.putAll(items);
    assertThat(stored.count()).isEqualTo(size);
    // A bulk write past the learning samples learns the cache's dictionary on the way.
    assertThat(redis.command("EXISTS", "stowage:learned:cache:bulk"))
        .isEqualTo(size >= 1000 ? ":1" : ":0");

    Map<String, Item> read = cache.getAll(items.keySet());
    assertThat(read).isEqualTo(items);
    assertThat(new ArrayList<>(read.keySet()))
        .as("in the order asked")
        .isEqualTo(new ArrayList<>(items.keySet()));

    assertThat(cache.deleteAll(items.keySet())).isEqualTo(size);
    assertThat(stored.count()).isZero();
    assertThat(cache.getAll(items.keySet())).isEmpty();
    assertThat(cache.stats().hits()).isEqualTo(size);
    assertThat(cache.stats().misses()).isEqualTo(size);
  }

  @Test
  void getAllReturnsTheHitsOfMixedKeysOnceEachInTheOrderAsked() {
    RedisCache<String, Item> cache =
        stowage.cache("mixed", Item.class).layout(layout).chunkSize(7).build();
    Map<String, Item> even = new LinkedHashMap<>();
    items(50)
        .forEach(
            (key, item) -> {
              if (item.id() % 2 == 0) {
                even.put(key, item);
              }
            });
    cache.putAll(even);

    List<String> asked = new ArrayList<>();
    for (int i = 49; i >= 0; i--) {
      asked.add(Long.toString(Samples.item(i).id()));
    }
    asked.addAll(asked.subList(0, 10));
    Map<String, Item> read = cache.getAll(asked);

    assertThat(read).isEqualTo(even);
    List<String> expectedOrder = asked.stream().distinct().filter(even::containsKey).toList();
    assertThat(new ArrayList<>(read.keySet())).isEqualTo(expectedOrder);
    assertThat(cache.stats().hits()).isEqualTo(even.size());
    assertThat(cache.stats().misses()).isEqualTo(50 - even.size());
  }

  @Test
  void withoutJitterEveryTtlIsTheTtlAndNoExpiryMeansNone(RedisServer redis) {
    RedisCache<String, Item> exact =
        stowage
            .cache("exact", Item.class)
            .layout(layout)
            .ttl(Duration.ofSeconds(30))
            .ttlJitter(0)
            .build();
    exact.put("a", Samples.item(1));
    assertThat(pttl(redis, exact.redisKey("a"))).isBetween(28_000L, 30_000L);

    RedisCache<String, Item> forever =
        stowage.cache("forever", Item.class).layout(layout).noExpiry().build();
    forever.put("a", Samples.item(1));
    forever.putAll(items(3));
    assertThat(pttl(redis, forever.redisKey("a"))).isEqualTo(-1L);
    assertThat(pttl(redis, forever.redisKey(items(3).keySet().iterator().next()))).isEqualTo(-1L);
  }

  @Test
  void deleteAndExistsSayWhetherRedisHeldTheKey() {
    RedisCache<String, Item> cache = stowage.cache("del", Item.class).layout(layout).build();
    cache.put("a", Samples.item(1));

    assertThat(cache.exists("a")).isTrue();
    assertThat(cache.exists("b")).isFalse();
    assertThat(cache.delete("a")).isTrue();
    assertThat(cache.delete("a")).isFalse();
    assertThat(cache.exists("a")).isFalse();
    assertThat(cache.get("a")).isNull();

    cache.putAll(items(10));
    List<String> keys = new ArrayList<>(items(12).keySet());
    assertThat(cache.deleteAll(keys)).isEqualTo(10);
    assertThat(cache.deleteAll(keys)).isZero();
  }

  @Test
  void asyncViewSharesTheImplementation() {
    RedisCache<String, Item> cache = stowage.cache("async", Item.class).layout(layout).build();
    cache.async().put("a", Samples.item(1)).join();
    cache.async().putAll(items(5)).join();

    assertThat(cache.get("a")).isEqualTo(Samples.item(1));
    assertThat(cache.async().get("a").join()).isEqualTo(Samples.item(1));
    assertThat(cache.async().getAll(items(6).keySet()).join()).isEqualTo(items(5));
    assertThat(cache.async().exists("a").join()).isTrue();
    assertThat(cache.async().delete("a").join()).isTrue();
    assertThat(cache.async().deleteAll(items(5).keySet()).join()).isEqualTo(5L);
    assertThat(cache.async().synchronous()).isSameAs(cache);
  }

  @Test
  void invalidSettingsFailAtBuildNamingTheSetting() {
    assertThatThrownBy(() -> stowage.cache("x", Item.class).layout(layout).chunkSize(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("chunkSize");
    assertThatThrownBy(() -> stowage.cache("x", Item.class).layout(layout).ttlJitter(1.0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttlJitter");
    assertThatThrownBy(
            () -> stowage.cache("x", Item.class).layout(layout).ttl(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl");
    assertThatThrownBy(() -> stowage.cache(" ", Item.class).layout(layout))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("blank");
  }

  @Test
  void durationsTooLongForRedisFailAsIllegalArgumentsNamingTheLimit(RedisServer redis) {
    Duration forever = Duration.ofSeconds(Long.MAX_VALUE);
    assertThatThrownBy(() -> stowage.cache("x", Item.class).layout(layout).ttl(forever).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cache 'x': ttl must be from 1 ms to 36500 days (RedisCache.MAX_TTL), got "
                + forever
                + "; noExpiry() makes entries that never expire");
    assertThatThrownBy(
            () ->
                stowage
                    .cache("x", Item.class)
                    .layout(layout)
                    .ttl(RedisCache.MAX_TTL.plusMillis(1))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("RedisCache.MAX_TTL");
    assertThatThrownBy(
            () ->
                stowage
                    .cache("x", Item.class)
                    .layout(layout)
                    .ttl(Duration.ofNanos(999_999))
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ttl must be from 1 ms");
    assertThatThrownBy(
            () ->
                stowage.cache("x", Item.class).layout(layout).distributedLoadLock(forever).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "cache 'x': distributedLoadLock must be from 1 ms to 36500 days (RedisCache.MAX_TTL), got "
                + forever);
    assertThatThrownBy(() -> Stowage.builder().redis(redis.uri()).commandTimeout(forever).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "commandTimeout must be from 1 ms to 2147483647 ms (Stowage.MAX_COMMAND_TIMEOUT), got "
                + forever);
    assertThatThrownBy(
            () -> Stowage.builder().redis(redis.uri()).commandTimeout(Duration.ofDays(30)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Stowage.MAX_COMMAND_TIMEOUT");
    assertThatThrownBy(
            () -> Stowage.builder().redis(redis.uri()).connectTimeout(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "connectTimeout must be from 1 ms to 2147483647 ms (Stowage.MAX_COMMAND_TIMEOUT), got PT0S");

    // The limits themselves work: a TTL of a century, and the longest command timeout.
    RedisCache<String, Item> century =
        stowage
            .cache("century", Item.class)
            .layout(layout)
            .ttl(RedisCache.MAX_TTL)
            .ttlJitter(0)
            .distributedLoadLock(RedisCache.MAX_TTL)
            .build();
    century.put("a", Samples.item(1));
    assertThat(Long.parseLong(redis.command("PTTL", century.redisKey("a")).substring(1)))
        .isGreaterThan(RedisCache.MAX_TTL.toMillis() - 60_000);
    assertThat(century.getOrLoad("b", key -> Samples.item(2))).isEqualTo(Samples.item(2));
    try (Stowage patient =
        Stowage.builder().redis(redis.uri()).commandTimeout(Stowage.MAX_COMMAND_TIMEOUT).build()) {
      RedisCache<String, Item> cache = patient.cache("century", Item.class).layout(layout).build();
      assertThat(cache.getAll(List.of("a", "b"))).hasSize(2);
    }
  }

  @Test
  void aDatabaseIndexOutOfRangeIsNamedAsTheReasonTheConnectionFailed(RedisServer redis) {
    // Trying again would not help: a StowageException, not a CacheUnavailableException.
    assertThatThrownBy(() -> Stowage.builder().redis(redis.uri() + "/99").build())
        .isExactlyInstanceOf(StowageException.class)
        .hasMessage(
            "Redis at 127.0.0.1:"
                + redis.port()
                + " refused to set up the connection: ERR DB index is out of range");
  }

  @Test
  void nullKeysAndValuesAreRejected() {
    RedisCache<String, Item> cache = stowage.cache("nulls", Item.class).layout(layout).build();
    assertThatThrownBy(() -> cache.get(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> cache.put("a", null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> cache.getAll(Arrays.asList("a", null)))
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void aTrainedDictionaryIsSavedAndAnotherStowageReadsItsValues(RedisServer redis) {
    List<BoardRecord> boards = Samples.boards(0, 2000);
    RedisCache<String, BoardRecord> writer =
        stowage
            .cache("boards", BoardRecord.class)
            .layout(layout)
            .encoding(Encoding.defaultFor(BoardRecord.class).trainDictionary(boards, 4096))
            .build();
    writer.put("1", boards.get(1));

    Envelope.Header header =
        Envelope.readHeader(StoredEntries.of(redis, layout, "boards:").get("1"));
    assertThat(header.compressionId()).isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
    assertThat(redis.command("EXISTS", DictionaryStore.key(header.dictionaryId()))).isEqualTo(":1");
    try (Stowage another = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, BoardRecord> reader =
          another.cache("boards", BoardRecord.class).layout(layout).build();
      assertThat(reader.get("1")).isEqualTo(boards.get(1));
    }
  }

  @Test
  void aCacheReadsWhatAnEarlierCodecWroteWhenToldTo() {
    RedisCache<String, Item> before =
        stowage
            .cache("switch", Item.class)
            .layout(layout)
            .encoding(Encoding.of(Codecs.json(Item.class)))
            .build();
    before.put("a", Samples.item(1));

    RedisCache<String, Item> after =
        stowage
            .cache("switch", Item.class)
            .layout(layout)
            .encoding(Encoding.defaultFor(Item.class).alsoRead(Codecs.json(Item.class)))
            .build();
    RedisCache<String, Item> unaware = stowage.cache("switch", Item.class).layout(layout).build();
    assertThat(after.get("a")).isEqualTo(Samples.item(1));
    assertThat(unaware.get("a")).as("json is not read unless asked").isNull();
    assertThat(unaware.stats().decodeFailures()).isEqualTo(1);
  }

  static long pttl(RedisServer redis, String key) {
    String reply = redis.command("PTTL", key);
    assertThat(reply).startsWith(":");
    return Long.parseLong(reply.substring(1));
  }

  static List<String> range(int n) {
    return IntStream.range(0, n).mapToObj(Integer::toString).toList();
  }

  /** Chunks of 10; the value at index 24 (the third chunk) is not JSON, so it cannot be encoded. */
  static Map<String, byte[]> fragmentsWithABadOneAt24() {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    for (int i = 0; i < 35; i++) {
      String json = i == 24 ? "{not json" : "{\"n\":" + i + "}";
      entries.put("f" + i, json.getBytes(StandardCharsets.UTF_8));
    }
    return entries;
  }

  @Test
  void aPutAllWhoseFirstChunkCannotBeEncodedAndAnAsyncPutAllStoreNothing() {
    RedisCache<String, byte[]> cache =
        stowage
            .cache("fragments", byte[].class)
            .layout(layout)
            .encoding(Encoding.of(Codecs.jsonBytes()))
            .chunkSize(40)
            .build();
    Map<String, byte[]> entries = fragmentsWithABadOneAt24();
    assertThatThrownBy(() -> cache.putAll(entries))
        .isInstanceOf(CodecException.class)
        .hasMessageNotContaining("were stored");
    assertThat(cache.getAll(entries.keySet())).isEmpty();

    RedisCache<String, byte[]> small =
        stowage
            .cache("fragments", byte[].class)
            .layout(layout)
            .encoding(Encoding.of(Codecs.jsonBytes()))
            .chunkSize(10)
            .build();
    assertThat(small.async().putAll(entries))
        .failsWithin(Duration.ofSeconds(10))
        .withThrowableOfType(ExecutionException.class)
        .withCauseInstanceOf(CodecException.class);
    assertThat(small.getAll(entries.keySet())).isEmpty();
  }
}
