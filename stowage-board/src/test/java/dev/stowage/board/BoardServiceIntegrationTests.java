package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import java.io.ByteArrayOutputStream;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.msgpack.jackson.dataformat.MessagePackMapper;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;

@WithRedis
@WithPostgres
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardServiceIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper MSGPACK = new MessagePackMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  private BoardServer board;
  private WebTestClient http;
  private RedisServer redis;
  private PostgresDatabase db;

  @BeforeAll
  void start(RedisServer redis, PostgresDatabase db) {
    this.redis = redis;
    this.db = db;
    board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE);
    http =
        WebTestClient.bindToServer()
            .baseUrl(board.url())
            .codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(16 * 1024 * 1024))
            .responseTimeout(Duration.ofSeconds(30))
            .build();
  }

  @AfterAll
  void stop() {
    if (board != null) {
      board.close();
    }
  }

  @Test
  void createThenListThenGet() throws Exception {
    JsonNode created = create(BoardPosts.post(1)).get("data");
    assertThat(created.get("title").asText()).isEqualTo("Title number 1");
    assertThat(created.get("id").asText()).matches("[0-9a-f]{24}");
    assertThat(created.get("created_at").asText())
        .matches("\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d");
    assertThat(created.fieldNames())
        .toIterable()
        .containsExactly(
            "id",
            "score",
            "member_id",
            "title",
            "body",
            "address",
            "country",
            "job",
            "credit",
            "ssn",
            "company",
            "phone_number",
            "modified_at",
            "created_at",
            "created_ts");

    JsonNode page = getJson("/boards?page=1&size=25");
    assertThat(page.get("code").asInt()).isEqualTo(200);
    assertThat(page.get("message").asText()).isEqualTo("success");
    assertThat(page.get("data").get(0)).isEqualTo(created);

    JsonNode one = getJson("/boards/" + created.get("id").asText());
    assertThat(one.get("data")).isEqualTo(created);
    assertThat(dbCount()).isEqualTo(feedSize());
  }

  @Test
  void pagesAreNewestFirstAndEndCleanly() throws Exception {
    List<Map<String, Object>> posts = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      posts.add(BoardPosts.post(100 + i));
    }
    JsonNode bulk = postJson("/boards/bulk", posts);
    assertThat(bulk.get("data")).hasSize(7);
    long total = dbCount();
    List<Long> scores = new ArrayList<>();
    for (int page = 1; ; page++) {
      JsonNode data = getJson("/boards?page=" + page + "&size=3").get("data");
      if (page <= (total + 2) / 3) {
        assertThat(data.size()).isEqualTo((int) Math.min(3, total - (page - 1) * 3L));
      } else {
        assertThat(data.size()).isZero();
        break;
      }
      data.forEach(item -> scores.add(item.get("score").asLong()));
    }
    assertThat(scores)
        .hasSize((int) total)
        .isSortedAccordingTo((a, b) -> Long.compare(b, a))
        .doesNotHaveDuplicates();
    assertThat(getJson("/boards?size=500").get("data").size())
        .isEqualTo((int) Math.min(500, total));
    assertThat(getJson("/boards").get("data").size()).isEqualTo((int) Math.min(25, total));
    assertThat(getJson("/boards?page=1000000&size=500").get("data")).isEmpty();
  }

  @Test
  void aColdCacheIsRefilledFromTheDatabaseOnceAndReadsTheSame() throws Exception {
    create(BoardPosts.post(200));
    JsonNode warm = getJson("/boards?page=1&size=50");
    redis.flushAll();
    assertThat(StoredFeed.size(redis)).isZero();
    // The page kept in the process stays valid until Redis's invalidation for the flush arrives,
    // a moment later; from then on, reads find the feed cold and refill it from the database.
    await()
        .atMost(WAIT)
        .until(
            () -> {
              assertThat(getJson("/boards?page=1&size=50")).isEqualTo(warm);
              return StoredFeed.size(redis) == dbCount();
            });
    assertThat(redis.command("EXISTS", BoardKeys.COMPLETE)).isEqualTo(":1");
    // The counter was raised to the database's highest score, so new posts keep unique scores.
    long next = create(BoardPosts.post(201)).get("data").get("score").asLong();
    assertThat(next).isGreaterThan(warm.get("data").get(0).get("score").asLong());
  }

  @Test
  void redisStoppedMidTestStillServesReadsAndAcceptsWritesThenRepairsTheCache() throws Exception {
    create(BoardPosts.post(300));
    JsonNode before = getJson("/boards?page=1&size=500");
    redis.stop();
    try {
      assertThat(getJson("/boards?page=1&size=500")).isEqualTo(before);
      JsonNode during = create(BoardPosts.post(301)).get("data");
      JsonNode duringBulk =
          postJson("/boards/bulk", List.of(BoardPosts.post(302), BoardPosts.post(303))).get("data");
      assertThat(duringBulk).hasSize(2);
      JsonNode page = getJson("/boards?page=1&size=3").get("data");
      assertThat(page.get(2)).isEqualTo(during);
      assertThat(getJson("/boards/" + during.get("id").asText()).get("data")).isEqualTo(during);
    } finally {
      redis.restart();
    }
    JsonNode after = create(BoardPosts.post(304)).get("data");
    JsonNode all = getJson("/boards?page=1&size=500").get("data");
    // The client reconnects on its own; the first read after that refills the feed.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              getJson("/boards?page=1&size=1");
              assertThat(StoredFeed.size(redis)).isEqualTo(dbCount());
            });
    assertThat(redis.command("EXISTS", BoardKeys.COMPLETE)).isEqualTo(":1");
    assertThat(all.get(0)).isEqualTo(after);
    assertThat(all.size()).isEqualTo(before.get("data").size() + 4);
    assertThat(feedSize()).isEqualTo(dbCount());
    Set<Long> scores = new HashSet<>();
    all.forEach(item -> scores.add(item.get("score").asLong()));
    assertThat(scores).hasSize(all.size());
  }

  @Test
  void fiveHundredConcurrentCreatesGetUniqueScoresAndAllLandInDatabaseAndFeed() throws Exception {
    long before = dbCount();
    List<byte[]> replies =
        Flux.range(0, 500)
            .flatMap(
                i ->
                    http.post()
                        .uri("/boards")
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(BoardPosts.post(1000 + i))
                        .exchange()
                        .expectStatus()
                        .isOk()
                        .returnResult(byte[].class)
                        .getResponseBody()
                        .reduce(
                            new ByteArrayOutputStream(),
                            (out, b) -> {
                              out.writeBytes(b);
                              return out;
                            })
                        .map(ByteArrayOutputStream::toByteArray),
                128)
            .collectList()
            .block(Duration.ofMinutes(2));
    Set<Long> scores = new HashSet<>();
    for (byte[] reply : replies) {
      scores.add(JSON.readTree(reply).get("data").get("score").asLong());
    }
    assertThat(scores).hasSize(500);
    assertThat(dbCount()).isEqualTo(before + 500);
    assertThat(feedSize()).isEqualTo(dbCount());
    for (long score : scores) {
      assertThat(StoredFeed.envelope(redis, score)).as("post %d in the feed", score).isNotNull();
    }
  }

  @Test
  void messagePackInAndOutCarriesTheSameData() throws Exception {
    byte[] body = MSGPACK.writeValueAsBytes(BoardPosts.post(400));
    byte[] reply =
        http.post()
            .uri("/boards")
            .contentType(BoardFormats.MSGPACK)
            .accept(BoardFormats.MSGPACK)
            .bodyValue(body)
            .exchange()
            .expectStatus()
            .isOk()
            .expectHeader()
            .contentType(BoardFormats.MSGPACK)
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    JsonNode created = normalise(MSGPACK.readTree(reply)).get("data");
    assertThat(created.get("title").asText()).isEqualTo("Title number 400");
    JsonNode jsonPage = getJson("/boards?page=1&size=10");
    byte[] packed =
        http.get()
            .uri("/boards?page=1&size=10")
            .accept(BoardFormats.MSGPACK)
            .exchange()
            .expectStatus()
            .isOk()
            .expectHeader()
            .contentType(BoardFormats.MSGPACK)
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    assertThat(normalise(MSGPACK.readTree(packed))).isEqualTo(jsonPage);
    assertThat(jsonPage.get("data").get(0)).isEqualTo(created);
  }

  private static JsonNode normalise(JsonNode node) throws Exception {
    return JSON.readTree(JSON.writeValueAsBytes(node));
  }

  private JsonNode create(Map<String, Object> post) throws Exception {
    return postJson("/boards", post);
  }

  private JsonNode postJson(String path, Object body) throws Exception {
    byte[] reply =
        http.post()
            .uri(path)
            .contentType(MediaType.APPLICATION_JSON)
            .bodyValue(body)
            .exchange()
            .expectStatus()
            .isOk()
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(reply);
  }

  private JsonNode getJson(String path) throws Exception {
    byte[] reply =
        http.get()
            .uri(path)
            .exchange()
            .expectStatus()
            .isOk()
            .expectHeader()
            .contentType(MediaType.APPLICATION_JSON)
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(reply);
  }

  private long feedSize() {
    return StoredFeed.size(redis);
  }

  private long dbCount() throws Exception {
    try (var connection = DriverManager.getConnection(db.jdbcUrl());
        var statement = connection.createStatement();
        var result = statement.executeQuery("SELECT count(*) FROM board")) {
      result.next();
      return result.getLong(1);
    }
  }
}
