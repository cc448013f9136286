package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Scores only ever grow: a post created after Redis lost the counter (a restart), or while Redis is
 * unreachable, is scored above every score handed out before, including the scores of inserts that
 * failed (gaps), so it is the first post of the first page. Each test has a Redis and a PostgreSQL
 * database of its own, and a database that rejects the posts titled {@value
 * DatabaseRejection#TITLE} (each leaves a gap).
 */
class BoardScoresIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void stowageModeNeverHandsOutAScoreAgainAfterARestartOfRedisOrWhileItIsDown() throws Exception {
    try (RedisServer redis = RedisServer.start();
        PostgresDatabase db = PostgresDatabase.create();
        BoardServer board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE)) {
      DatabaseRejection.install(db);
      WebTestClient http = client(board);
      rejected(http); // score 1: a gap below every post
      for (int i = 0; i < 5; i++) {
        assertThat(BoardPosts.create(http, i).get("score").asLong()).isEqualTo(2 + i);
      }
      rejected(http); // score 7: a gap above every post

      redis.restart();
      JsonNode afterRestart = BoardPosts.create(http, 10);
      assertThat(afterRestart.get("score").asLong()).isEqualTo(8);
      assertThat(firstOfFirstPage(http)).isEqualTo(afterRestart);

      rejected(http); // score 9
      redis.stop();
      JsonNode whileDown = BoardPosts.create(http, 11);
      assertThat(whileDown.get("score").asLong()).isEqualTo(10);
      assertThat(firstOfFirstPage(http)).isEqualTo(whileDown);

      redis.restart();
      JsonNode afterDown = BoardPosts.create(http, 12);
      assertThat(afterDown.get("score").asLong()).isEqualTo(11);
      Awaitility.await()
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(firstOfFirstPage(http)).isEqualTo(afterDown));
      // The counter was restored to the highest score handed out (HINCRBY 0 reads it as an
      // integer).
      assertThat(redis.command("HINCRBY", BoardKeys.COUNTER, BoardKeys.COUNTER_FIELD, "0"))
          .isEqualTo(":11");
    }
  }

  @Test
  void seedModesNeverHandOutAScoreAgainAfterARestartOfRedis() throws Exception {
    try (RedisServer redis = RedisServer.start();
        PostgresDatabase db = PostgresDatabase.create();
        BoardServer board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.SEED_JSON)) {
      DatabaseRejection.install(db);
      WebTestClient http = client(board);
      rejected(http); // score 1
      for (int i = 0; i < 5; i++) {
        assertThat(BoardPosts.create(http, i).get("score").asLong()).isEqualTo(2 + i);
      }
      rejected(http); // score 7

      redis.restart();
      JsonNode afterRestart = BoardPosts.create(http, 10);
      assertThat(afterRestart.get("score").asLong()).isEqualTo(8);
      assertThat(firstOfFirstPage(http)).isEqualTo(afterRestart);
    }
  }

  private static WebTestClient client(BoardServer board) {
    return WebTestClient.bindToServer().baseUrl(board.url()).responseTimeout(WAIT).build();
  }

  /** Sends the post the database rejects: the service answers 500 and stores nothing. */
  private static void rejected(WebTestClient http) {
    http.post()
        .uri("/boards")
        .contentType(MediaType.APPLICATION_JSON)
        .bodyValue(DatabaseRejection.post())
        .exchange()
        .expectStatus()
        .isEqualTo(500)
        .expectBody(JsonNode.class)
        .value(error -> assertThat(error.get("code").asInt()).isEqualTo(500));
  }

  private static JsonNode firstOfFirstPage(WebTestClient http) throws Exception {
    byte[] body =
        http.get()
            .uri("/boards?page=1&size=25")
            .exchange()
            .expectStatus()
            .isOk()
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(body).get("data").get(0);
  }
}
