package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.Inspector;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.msgpack.jackson.dataformat.MessagePackMapper;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Stowage mode's feed learns a zstd dictionary from its first 1,000 posts (core's default
 * compression), records it for every process, and keeps every page readable through a refill and a
 * restart of Redis.
 */
@WithRedis
@WithPostgres
class BoardDictionaryIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void learnsADictionaryFromTheFirstPostsAndEveryReaderKeepsReading(
      RedisServer redis, PostgresDatabase db) throws Exception {
    JsonNode before;
    long dictionaryId;
    try (BoardServer board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE)) {
      WebTestClient http = client(board);
      // The bulk write that completes the feed's 1,000 samples learns the dictionary before it
      // returns, and records it.
      bulk(http, 0, 1000);
      await().atMost(WAIT).until(() -> learned(redis) != null);
      dictionaryId = Long.parseUnsignedLong(learned(redis), 16);
      bulk(http, 1000, 100);
      byte[] oldest = StoredFeed.envelope(redis, 1);
      byte[] newest = StoredFeed.newestEnvelope(redis);
      // Posts of less than a kilobyte: the standard compression leaves them as they are.
      assertThat(Inspector.header(oldest).orElseThrow().isCompressed()).isFalse();
      Inspector.Header header = Inspector.header(newest).orElseThrow();
      assertThat(header.compressionName()).isEqualTo("zstd-dict-magicless");
      assertThat(header.dictionaryId()).hasValue(dictionaryId);
      assertThat(redis.command("EXISTS", Inspector.Keys.dictionary(dictionaryId))).isEqualTo(":1");
      assertThat(newest.length).isLessThan(oldest.length / 2);
      before = get(http, "/boards?page=1&size=500");
      assertThat(before.get("data")).hasSize(500);
      assertThat(before.get("data").get(0).get("title").asText()).isEqualTo("Title number 1099");
      assertThat(get(http, "/boards?page=3&size=500").get("data")).hasSize(100);
    }
    // A new process adopts the recorded dictionary and reads the same pages from the feed.
    try (BoardServer again = BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE)) {
      WebTestClient http = client(again);
      assertThat(get(http, "/boards?page=1&size=500")).isEqualTo(before);
      byte[] packed =
          http.get()
              .uri("/boards?page=1&size=500")
              .accept(BoardFormats.MSGPACK)
              .exchange()
              .expectStatus()
              .isOk()
              .expectBody(byte[].class)
              .returnResult()
              .getResponseBody();
      assertThat(JSON.readTree(JSON.writeValueAsBytes(new MessagePackMapper().readTree(packed))))
          .isEqualTo(before);
      // A cold cache is refilled with the dictionary, and every page reads the same meanwhile:
      // kept in the process until Redis's invalidation of the deleted keys arrives, then refilled.
      StoredFeed.delete(redis);
      redis.command("DEL", BoardKeys.COMPLETE);
      await()
          .atMost(WAIT)
          .until(
              () -> {
                assertThat(get(http, "/boards?page=1&size=500")).isEqualTo(before);
                return StoredFeed.size(redis) == 1100;
              });
      // The refill wrote the old posts with the dictionary, and sealed their buckets with it.
      assertThat(StoredFeed.envelope(redis, 1)).isNotNull();
      await().atMost(WAIT).until(() -> StoredFeed.sealed(redis, 0) != null);
      assertThat(Inspector.header(StoredFeed.sealed(redis, 0)).orElseThrow().dictionaryId())
          .hasValue(dictionaryId);

      // A restarted (empty) Redis gets the feed and the dictionary back on the next read.
      redis.restart();
      await()
          .atMost(WAIT)
          .until(
              () -> {
                assertThat(get(http, "/boards?page=1&size=500")).isEqualTo(before);
                return StoredFeed.size(redis) == 1100;
              });
      assertThat(redis.command("EXISTS", Inspector.Keys.dictionary(dictionaryId))).isEqualTo(":1");
      assertThat(StoredFeed.envelope(redis, 1)).isNotNull();
      await().atMost(WAIT).until(() -> StoredFeed.sealed(redis, 0) != null);
      Inspector.Header oldest = Inspector.header(StoredFeed.sealed(redis, 0)).orElseThrow();
      assertThat(oldest.compressionName()).isEqualTo("zstd-dict-magicless");
      assertThat(oldest.dictionaryId()).hasValue(dictionaryId);
    }
  }

  /** The hex id of the dictionary recorded for the feed's JSON, or null. */
  private static String learned(RedisServer redis) {
    return (String) redis.reply("HGET", BoardKeys.LEARNED_DICTIONARY, "json");
  }

  private static void bulk(WebTestClient http, int from, int count) {
    List<Map<String, Object>> posts = new ArrayList<>();
    for (int i = from; i < from + count; i++) {
      posts.add(BoardPosts.post(i));
    }
    // The body is read, as every response's must be: an unread one leaks its buffers.
    http.post()
        .uri("/boards/bulk")
        .contentType(MediaType.APPLICATION_JSON)
        .bodyValue(posts)
        .exchange()
        .expectStatus()
        .isOk()
        .expectBody(JsonNode.class)
        .value(reply -> assertThat(reply.get("data")).hasSize(count));
  }

  private static WebTestClient client(BoardServer board) {
    return WebTestClient.bindToServer()
        .baseUrl(board.url())
        .codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(16 * 1024 * 1024))
        .responseTimeout(Duration.ofSeconds(30))
        .build();
  }

  private static JsonNode get(WebTestClient http, String path) throws Exception {
    return JSON.readTree(
        http.get()
            .uri(path)
            .exchange()
            .expectStatus()
            .isOk()
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody());
  }
}
