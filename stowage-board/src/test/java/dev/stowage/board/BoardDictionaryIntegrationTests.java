package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.Envelope;
import dev.stowage.compress.CompressionIds;
import dev.stowage.compress.DictionaryStore;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.RedisServer;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.codec.ByteArrayCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/** Stowage mode trains a zstd dictionary on its own posts and keeps every page readable. */
@WithRedis
@WithPostgres
class BoardDictionaryIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void trainsADictionaryOnceThereAreEnoughPostsAndEveryReaderKeepsReading(RedisServer redis,
      PostgresDatabase db) throws Exception {
    JsonNode before;
    try (BoardServer board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(),
        BoardMode.STOWAGE)) {
      WebTestClient http = client(board);
      bulk(http, 0, 1000);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (redis.command("EXISTS", BoardFeed.DICTIONARY).equals(":0")
          && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertThat(redis.command("EXISTS", BoardFeed.DICTIONARY)).isEqualTo(":1");
      bulk(http, 1000, 100);
      try (RedisClient client = RedisClient.create(redis.uri());
          var connection = client.connect(ByteArrayCodec.INSTANCE)) {
        var sync = connection.sync();
        byte[] oldest = sync.zrangebyscore("board".getBytes(), Range.create(1, 1)).get(0);
        byte[] newest = sync.zrevrange("board".getBytes(), 0, 0).get(0);
        assertThat(Envelope.readHeader(oldest).compressionId()).isEqualTo(CompressionIds.NONE);
        Envelope.Header header = Envelope.readHeader(newest);
        assertThat(header.compressionId()).isEqualTo(CompressionIds.ZSTD_DICT);
        String recorded = new String(sync.get(BoardFeed.DICTIONARY.getBytes()));
        assertThat(Long.parseUnsignedLong(recorded, 16)).isEqualTo(header.dictionaryId());
        assertThat(sync.exists(DictionaryStore.key(header.dictionaryId()).getBytes()))
            .isEqualTo(1L);
        assertThat(newest.length).isLessThan(oldest.length / 2);
      }
      before = get(http, "/boards?page=1&size=500");
      assertThat(before.get("data")).hasSize(500);
      assertThat(before.get("data").get(0).get("title").asText()).isEqualTo("Title number 1099");
      assertThat(get(http, "/boards?page=3&size=500").get("data")).hasSize(100);
    }
    // A new process finds the recorded dictionary and reads the same pages from the feed.
    try (BoardServer again = BoardServer.start(0, redis.uri(), db.r2dbcUrl(),
        BoardMode.STOWAGE)) {
      WebTestClient http = client(again);
      assertThat(get(http, "/boards?page=1&size=500")).isEqualTo(before);
      byte[] packed = http.get().uri("/boards?page=1&size=500").accept(BoardFormats.MSGPACK)
          .exchange().expectStatus().isOk().expectBody(byte[].class).returnResult()
          .getResponseBody();
      assertThat(JSON.readTree(JSON.writeValueAsBytes(
          new org.msgpack.jackson.dataformat.MessagePackMapper().readTree(packed))))
          .isEqualTo(before);
      // A cold cache is refilled compressed, and reads the same: once Redis's invalidation of the
      // deleted keys has reached the service, whose kept pages are valid until then.
      redis.command("DEL", BoardFeed.FEED, BoardFeed.COMPLETE);
      long refillDeadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (!redis.command("ZCARD", BoardFeed.FEED).equals(":1100")
          && System.nanoTime() < refillDeadline) {
        assertThat(get(http, "/boards?page=1&size=500")).isEqualTo(before);
        Thread.sleep(20);
      }
      assertThat(get(http, "/boards?page=1&size=500")).isEqualTo(before);
      assertThat(redis.command("ZCARD", BoardFeed.FEED)).isEqualTo(":1100");

      // A restarted (empty) Redis gets the feed and the dictionary back on the next read.
      String recorded = redis.command("GET", BoardFeed.DICTIONARY);
      redis.restart();
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!redis.command("ZCARD", BoardFeed.FEED).equals(":1100")
          && System.nanoTime() < deadline) {
        get(http, "/boards?page=1&size=1");
        Thread.sleep(100);
      }
      assertThat(get(http, "/boards?page=1&size=500")).isEqualTo(before);
      assertThat(redis.command("EXISTS", BoardFeed.DICTIONARY)).isEqualTo(":1");
      try (RedisClient client = RedisClient.create(redis.uri());
          var connection = client.connect(ByteArrayCodec.INSTANCE)) {
        String hexId = new String(connection.sync().get(BoardFeed.DICTIONARY.getBytes()));
        assertThat(connection.sync().exists(DictionaryStore.key(Long.parseUnsignedLong(hexId, 16))
            .getBytes())).isEqualTo(1L);
        byte[] oldest = connection.sync().zrangebyscore("board".getBytes(), Range.create(1, 1))
            .get(0);
        assertThat(Envelope.readHeader(oldest).compressionId())
            .isEqualTo(CompressionIds.ZSTD_DICT);
      }
      assertThat(recorded).isNotEmpty();
    }
  }

  private static void bulk(WebTestClient http, int from, int count) {
    List<Map<String, Object>> posts = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      posts.add(BoardPosts.post(i));
    }
    // The body is read, as every response's must be: an unread one leaks its buffers.
    http.post().uri("/boards/bulk").contentType(MediaType.APPLICATION_JSON).bodyValue(posts)
        .exchange().expectStatus().isOk().expectBody(JsonNode.class).value(reply -> assertThat(reply.get("data")).hasSize(count));
  }

  private static WebTestClient client(BoardServer board) {
    return WebTestClient.bindToServer().baseUrl(board.url())
        .codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(16 * 1024 * 1024))
        .responseTimeout(Duration.ofSeconds(30)).build();
  }

  private static JsonNode get(WebTestClient http, String path) throws Exception {
    return JSON.readTree(http.get().uri(path).exchange().expectStatus().isOk()
        .expectBody(byte[].class).returnResult().getResponseBody());
  }
}
