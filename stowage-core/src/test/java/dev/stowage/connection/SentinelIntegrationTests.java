package dev.stowage.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheUnavailableException;
import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.StowageInternals;
import dev.stowage.embedded.RedisSentinelSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.envelope.TestDictionaries;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedisSentinel;
import io.lettuce.core.RedisURI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Stowage through Sentinel: a master, a replica and three sentinels the testkit starts. */
@WithRedisSentinel
class SentinelIntegrationTests {
  private static final Duration SWITCH = Duration.ofSeconds(30);

  @Test
  void aSentinelUriConnectsToTheMasterTheSentinelsName(RedisSentinelSet redis) {
    try (Stowage stowage = Stowage.builder().redis(redis.uri()).build()) {
      RedisCache<String, Item> items = stowage.cache("sentinel-items", Item.class).build();
      items.put("1", Samples.item(1));

      assertThat(items.get("1")).isEqualTo(Samples.item(1));
      assertThat(redis.master().reply("EXISTS", "sentinel-items:1")).isEqualTo(1L);
      assertThat(stowage.address())
          .startsWith("mymaster (sentinels 127.0.0.1:" + redis.sentinels().get(0).port() + ", ");
    }
  }

  @Test
  void aSentinelRedisUriWithItsOwnTimeoutConnectsToo(RedisSentinelSet redis) {
    RedisURI uri = RedisURI.create(redis.uri());
    uri.setTimeout(Duration.ofMinutes(1));
    try (Stowage stowage = Stowage.builder().redis(uri).build()) {
      stowage.cache("sentinel-uri", Item.class).build().put("2", Samples.item(2));
      assertThat(redis.master().reply("EXISTS", "sentinel-uri:2")).isEqualTo(1L);
    }
    assertThat(uri.getSentinels()).as("the application's URI is left as it was").hasSize(3);
    assertThat(uri.getTimeout()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void cachesFeedsAndDictionariesMadeBeforeAFailoverWorkOnTheNewMaster(RedisSentinelSet redis) {
    try (Stowage stowage =
        Stowage.builder().redis(redis.uri()).commandTimeout(Duration.ofMillis(500)).build()) {
      RedisCache<String, Item> items = stowage.cache("failover-items", Item.class).build();
      RedisCache<String, BoardRecord> boards =
          stowage
              .cache("failover-boards", BoardRecord.class)
              .encoding(
                  Encoding.defaultFor(BoardRecord.class)
                      .compression(CompressionAccess.zstd(TestDictionaries.TINY)))
              .build();
      Feed<BoardRecord> feed = stowage.feed("failover-feed", BoardRecord.class).build();
      items.putAll(items(1, 20));
      boards.put("1", Samples.board(1));
      feed.add(Samples.board(1));
      RedisServer former = redis.master();
      RedisServer replica = redis.replica();
      await()
          .atMost(SWITCH)
          .untilAsserted(
              () ->
                  assertThat(
                          replica.reply(
                              "EXISTS",
                              "failover-items:20",
                              "failover-boards:1",
                              "failover-feed",
                              DictionaryStore.key(TestDictionaries.TINY.id())))
                      .isEqualTo(4L));

      RedisServer promoted = redis.failover();
      assertThat(promoted).isSameAs(replica).isNotSameAs(former);

      // The cache made before the failover writes to the new master once its connection follows.
      AtomicLong attempt = new AtomicLong();
      await()
          .atMost(SWITCH)
          .ignoreException(CacheUnavailableException.class)
          .untilAsserted(
              () -> {
                String key = "after-" + attempt.incrementAndGet();
                items.put(key, Samples.item(attempt.get()));
                assertThat(promoted.reply("EXISTS", "failover-items:" + key)).isEqualTo(1L);
              });
      assertThat(items.get("after-" + attempt.get())).isEqualTo(Samples.item(attempt.get()));
      assertThat(items.getAll(items(1, 20).keySet())).isEqualTo(items(1, 20));
      items.putAll(items(21, 10));
      assertThat(promoted.reply("EXISTS", "failover-items:30")).isEqualTo(1L);

      assertThat(boards.get("1")).isEqualTo(Samples.board(1));
      boards.put("2", Samples.board(2));
      assertThat(boards.get("2")).isEqualTo(Samples.board(2));

      assertThat(feed.add(Samples.board(2))).isEqualTo(2);
      assertThat(feed.page(1, 10))
          .extracting(Feed.Entry::value)
          .containsExactly(Samples.board(2), Samples.board(1));
      assertThat(promoted.reply("ZCARD", "failover-feed")).isEqualTo(1L);

      ZstdDictionary another =
          ZstdDictionary.of("saved after the failover".getBytes(StandardCharsets.UTF_8));
      assertThat(StowageInternals.dictionaries(stowage).save(another)).isTrue();
      assertThat(promoted.reply("EXISTS", DictionaryStore.key(another.id()))).isEqualTo(1L);
      assertThat(StowageInternals.dictionaries(stowage).list())
          .contains(TestDictionaries.TINY.id(), another.id());
    }
  }

  private static Map<String, Item> items(long from, int n) {
    Map<String, Item> items = new LinkedHashMap<>();
    for (long i = from; i < from + n; i++) {
      items.put(Long.toString(i), Samples.item(i));
    }
    return items;
  }
}
