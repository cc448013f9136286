package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.msgpack.jackson.dataformat.MessagePackMapper;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The seed modes are the benchmark's baseline, so they must return exactly what Stowage mode does
 * for the same page. Posts are written through seed-msgpack (its own Redis) into the shared
 * database; Stowage mode then reads them cold from the database; seed-json reads a feed of its own
 * holding the same records.
 */
@WithRedis
@WithPostgres
class SeedModesIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper MSGPACK = new MessagePackMapper();

  @Test
  void seedModesAndStowageModeReturnTheSameDataForTheSamePage(
      RedisServer redis, PostgresDatabase db) throws Exception {
    try (RedisServer msgpackRedis = RedisServer.start();
        BoardServer seedMsgpack =
            BoardServer.start(0, msgpackRedis.uri(), db.r2dbcUrl(), BoardMode.SEED_MSGPACK)) {
      WebTestClient seedMsgpackHttp = client(seedMsgpack);
      List<Map<String, Object>> posts = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        posts.add(BoardPosts.post(i));
      }
      seedMsgpackHttp
          .post()
          .uri("/boards/bulk")
          .contentType(MediaType.APPLICATION_JSON)
          .bodyValue(posts)
          .exchange()
          .expectStatus()
          .isOk()
          .expectBody(JsonNode.class)
          .value(reply -> assertThat(reply.get("data")).hasSize(40));
      seedMsgpackHttp
          .post()
          .uri("/boards")
          .contentType(BoardFormats.MSGPACK)
          .bodyValue(MSGPACK.writeValueAsBytes(BoardPosts.post(40)))
          .exchange()
          .expectStatus()
          .isOk()
          .expectBody(JsonNode.class)
          .value(
              reply ->
                  assertThat(reply.get("data").get("title").asText()).isEqualTo("Title number 40"));
      assertThat(msgpackRedis.command("ZCARD", "board")).isEqualTo(":41");

      try (BoardServer stowage =
          BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE)) {
        WebTestClient stowageHttp = client(stowage);
        for (String query :
            List.of(
                "page=1&size=25",
                "page=2&size=25",
                "page=3&size=7",
                "page=5&size=10",
                "page=1&size=500")) {
          JsonNode fromStowage = json(stowageHttp, query);
          assertThat(fromStowage.get("data").size()).isPositive();
          assertThat(json(seedMsgpackHttp, query)).as(query).isEqualTo(fromStowage);
          assertThat(msgpack(seedMsgpackHttp, query)).as(query).isEqualTo(fromStowage);
          assertThat(msgpack(stowageHttp, query)).as(query).isEqualTo(fromStowage);
        }
        // seed-json gets a Redis of its own (Stowage mode's members are envelopes), preloaded the
        // way the seed's own writes would have left it: each record's JSON as the member.
        JsonNode all = json(stowageHttp, "page=1&size=500").get("data");
        try (RedisServer jsonRedis = RedisServer.start();
            var client = RedisClient.create(jsonRedis.uri());
            var connection = client.connect()) {
          long max = 0;
          for (JsonNode item : all) {
            long score = item.get("score").asLong();
            max = Math.max(max, score);
            connection.sync().zadd("board", (double) score, JSON.writeValueAsString(item));
          }
          connection.sync().hset("counter", "board", Long.toString(max));
          try (BoardServer seedJson =
              BoardServer.start(0, jsonRedis.uri(), db.r2dbcUrl(), BoardMode.SEED_JSON)) {
            WebTestClient seedJsonHttp = client(seedJson);
            for (String query : List.of("page=1&size=25", "page=2&size=25", "page=3&size=7")) {
              JsonNode fromStowage = json(stowageHttp, query);
              assertThat(json(seedJsonHttp, query)).as(query).isEqualTo(fromStowage);
              assertThat(msgpack(seedJsonHttp, query)).as(query).isEqualTo(fromStowage);
            }
            // A post written by seed-json is read back identically by Stowage mode.
            byte[] created =
                seedJsonHttp
                    .post()
                    .uri("/boards")
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(BoardPosts.post(41))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody(byte[].class)
                    .returnResult()
                    .getResponseBody();
            JsonNode seedCreated = JSON.readTree(created).get("data");
            assertThat(seedCreated.get("score").asLong()).isEqualTo(max + 1);
            assertThat(
                    JSON.readTree(
                            stowageHttp
                                .get()
                                .uri("/boards/" + seedCreated.get("id").asText())
                                .exchange()
                                .expectStatus()
                                .isOk()
                                .expectBody(byte[].class)
                                .returnResult()
                                .getResponseBody())
                        .get("data"))
                .isEqualTo(seedCreated);
            assertThat(json(seedJsonHttp, "page=1&size=1").get("data").get(0))
                .isEqualTo(seedCreated);
          }
        }
      }
    }
  }

  private static WebTestClient client(BoardServer server) {
    return WebTestClient.bindToServer()
        .baseUrl(server.url())
        .codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(16 * 1024 * 1024))
        .responseTimeout(Duration.ofSeconds(30))
        .build();
  }

  private static JsonNode json(WebTestClient http, String query) throws Exception {
    byte[] body =
        http.get()
            .uri("/boards?" + query)
            .exchange()
            .expectStatus()
            .isOk()
            .expectHeader()
            .contentType(MediaType.APPLICATION_JSON)
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(body);
  }

  private static JsonNode msgpack(WebTestClient http, String query) throws Exception {
    byte[] body =
        http.get()
            .uri("/boards?" + query)
            .accept(BoardFormats.MSGPACK)
            .exchange()
            .expectStatus()
            .isOk()
            .expectHeader()
            .contentType(BoardFormats.MSGPACK)
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(JSON.writeValueAsBytes(MSGPACK.readTree(body)));
  }
}
