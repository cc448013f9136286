package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheUnavailableException;
import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.envelope.TestDictionaries;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

@WithRedis
class RedisRestartIntegrationTests {
  private static final Duration TIMEOUT = Duration.ofMillis(800);

  private static Map<String, Item> items(int n) {
    Map<String, Item> items = new LinkedHashMap<>();
    for (Item item : Samples.items(n)) {
      items.put(Long.toString(item.id()), item);
    }
    return items;
  }

  private static void failsQuicklyNamingRedis(RedisServer redis, ThrowingCallable call) {
    long start = System.nanoTime();
    assertThatThrownBy(call)
        .isInstanceOf(CacheUnavailableException.class)
        .hasMessageContaining("Redis at 127.0.0.1:" + redis.port());
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    assertThat(millis)
        .as("bounded by the command timeout and the wait's margin")
        .isLessThan(2 * TIMEOUT.toMillis() + 1000);
  }

  @Test
  void whileRedisIsDownCallsFailClearlyAndAfterARestartTheSameStowageWorks(RedisServer redis)
      throws Exception {
    try (Stowage stowage = Stowage.builder().redis(redis.uri()).commandTimeout(TIMEOUT).build()) {
      RedisCache<String, Item> cache = stowage.cache("restart", Item.class).chunkSize(10).build();
      Feed<BoardRecord> feed = stowage.feed("restartFeed", BoardRecord.class).build();
      stowage
          .cache("withDictionary", BoardRecord.class)
          .encoding(
              Encoding.defaultFor(BoardRecord.class)
                  .compression(CompressionAccess.zstd(TestDictionaries.TINY)))
          .build();
      String dictionaryKey = DictionaryStore.key(TestDictionaries.TINY.id());
      assertThat(redis.command("EXISTS", dictionaryKey)).isEqualTo(":1");
      cache.put("a", Samples.item(1));
      cache.putAll(items(25));
      feed.add(Samples.board(1));

      redis.stop();

      failsQuicklyNamingRedis(redis, () -> cache.get("a"));
      failsQuicklyNamingRedis(redis, () -> cache.put("a", Samples.item(1)));
      failsQuicklyNamingRedis(redis, () -> cache.getAll(items(25).keySet()));
      failsQuicklyNamingRedis(redis, () -> cache.putAll(items(25)));
      failsQuicklyNamingRedis(redis, () -> cache.deleteAll(List.of("a", "b")));
      failsQuicklyNamingRedis(redis, () -> cache.getOrLoad("a", key -> Samples.item(1)));
      failsQuicklyNamingRedis(redis, () -> feed.page(1, 10));
      failsQuicklyNamingRedis(redis, () -> feed.add(Samples.board(2)));
      assertThatThrownBy(() -> cache.async().get("a").join())
          .hasCauseInstanceOf(CacheUnavailableException.class);

      redis.restart();

      await("reconnected")
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(50))
          .ignoreExceptionsInstanceOf(CacheUnavailableException.class)
          .untilAsserted(() -> cache.put("a", Samples.item(2)));
      assertThat(cache.get("a")).isEqualTo(Samples.item(2));
      await("the dictionary in use is saved again")
          .atMost(Duration.ofSeconds(15))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> redis.command("EXISTS", dictionaryKey).equals(":1"));
      assertThat(cache.get("b")).isNull();
      cache.putAll(items(25));
      assertThat(cache.getAll(items(25).keySet())).isEqualTo(items(25));
      assertThat(feed.size()).as("a restarted Redis is empty").isZero();
      assertThat(feed.add(Samples.board(3))).isEqualTo(1);
      assertThat(feed.page(1, 10)).extracting(Feed.Entry::value).containsExactly(Samples.board(3));
    }
  }

  @Test
  void buildingAgainstNoRedisFailsNamingTheAddress() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    int closedPort = port;
    assertThatThrownBy(
            () ->
                Stowage.builder()
                    .redis("redis://127.0.0.1:" + closedPort)
                    .commandTimeout(TIMEOUT)
                    .build())
        .isInstanceOf(CacheUnavailableException.class)
        .hasMessageContaining("127.0.0.1:" + closedPort);
  }

  @Test
  void aClosedStowageSaysSo(RedisServer redis) {
    Stowage stowage = Stowage.builder().redis(redis.uri()).build();
    RedisCache<String, Item> cache = stowage.cache("closed", Item.class).build();
    stowage.close();
    stowage.close();
    assertThatThrownBy(() -> cache.get("a"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }
}
