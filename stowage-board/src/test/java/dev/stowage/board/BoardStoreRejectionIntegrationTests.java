package dev.stowage.board;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.MongoTestServer;
import dev.stowage.testkit.WithMongo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * A duplicate key (a unique index the test adds on the titles) gets the same HTTP answer from the
 * service on PostgreSQL and on MongoDB, whose duplicate-key error 11000 the store maps to the
 * relational stores' rejection; nothing of the rejected post is stored, and the next post is
 * accepted. MongoDB here is mongo-java-server, a wire-compatible test server, not MongoDB.
 */
@WithMongo
class BoardStoreRejectionIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aDuplicateKeyGetsTheSameAnswerOnPostgresqlAndMongodb(MongoTestServer mongo)
      throws Exception {
    List<String> answers = new ArrayList<>();
    for (String kind : List.of("postgresql", "mongodb")) {
      try (StoreUnderTest db = StoreUnderTest.open(kind, mongo);
          RedisServer redis = RedisServer.start();
          BoardServer board = BoardServer.start(0, redis.uri(), db.url(), BoardMode.STOWAGE)) {
        db.uniqueTitles();
        WebTestClient http =
            WebTestClient.bindToServer().baseUrl(board.url()).responseTimeout(WAIT).build();
        long first =
            create(http, BoardPosts.post(1))
                .expectStatus()
                .isOk()
                .expectBody(JsonNode.class)
                .returnResult()
                .getResponseBody()
                .get("data")
                .get("score")
                .asLong();

        EntityExchangeResult<byte[]> duplicate =
            create(http, BoardPosts.post(1)).expectBody(byte[].class).returnResult();
        answers.add(
            duplicate.getStatus().value()
                + " "
                + new String(
                    duplicate.getResponseBodyContent() == null
                        ? new byte[0]
                        : duplicate.getResponseBodyContent(),
                    UTF_8));
        assertThat(db.storedIds()).as(kind).hasSize(1);

        JsonNode next =
            create(http, BoardPosts.post(2))
                .expectStatus()
                .isOk()
                .expectBody(JsonNode.class)
                .returnResult()
                .getResponseBody()
                .get("data");
        assertThat(next.get("score").asLong()).as(kind).isGreaterThan(first);
        assertThat(db.storedIds()).as(kind).hasSize(2).contains(next.get("id").asText());

        // Health reports the store in use: the pool's probe, or MongoDB's ping.
        JsonNode health =
            http.get()
                .uri("/actuator/health")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(JsonNode.class)
                .returnResult()
                .getResponseBody();
        assertThat(health.at("/components/database/status").asText()).as(kind).isEqualTo("UP");
        if (kind.equals("mongodb")) {
          assertThat(health.at("/components/database/details/store").asText()).isEqualTo("MongoDB");
          assertThat(health.at("/components/database/details/ping").asText()).endsWith(" ms");
        } else {
          assertThat(health.at("/components/database/details/validation").asText())
              .startsWith("SELECT 1 answered in");
        }
      }
    }
    System.out.println(
        "a duplicate key's answer on PostgreSQL and MongoDB (mongo-java-server): " + answers);
    assertThat(answers.get(0)).startsWith("500 ");
    assertThat(JSON.readTree(answers.get(0).substring(4)).get("code").asInt()).isEqualTo(500);
    assertThat(answers.get(1)).isEqualTo(answers.get(0));
  }

  private static WebTestClient.ResponseSpec create(WebTestClient http, Object post) {
    return http.post()
        .uri("/boards")
        .contentType(MediaType.APPLICATION_JSON)
        .bodyValue(post)
        .exchange();
  }
}
