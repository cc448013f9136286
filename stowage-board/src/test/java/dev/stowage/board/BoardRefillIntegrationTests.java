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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;

/**
 * The refill of stowage mode's feed, and the mark ({@value BoardKeys#COMPLETE}) that says it is
 * complete. The service runs without the near cache, so that every read finds what Redis holds at
 * once rather than a page kept until an invalidation arrives.
 */
@WithRedis
@WithPostgres
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardRefillIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  private BoardServer board;
  private WebTestClient http;
  private RedisServer redis;
  private PostgresDatabase db;

  @BeforeAll
  void start(RedisServer redis, PostgresDatabase db) {
    this.redis = redis;
    this.db = db;
    board =
        BoardServer.start(
            0,
            redis.uri(),
            db.r2dbcUrl(),
            BoardMode.STOWAGE,
            FeedCompression.ZSTD_DICT,
            null,
            false);
    http =
        WebTestClient.bindToServer()
            .baseUrl(board.url())
            .codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(16 * 1024 * 1024))
            .responseTimeout(WAIT)
            .build();
  }

  @AfterAll
  void stop() {
    if (board != null) {
      board.close();
    }
  }

  @Test
  void concurrentColdReadsShareOneRefill() throws Exception {
    List<Map<String, Object>> posts = new ArrayList<>();
    for (int i = 0; i < 600; i++) {
      posts.add(BoardPosts.post(400 + i));
    }
    post("/boards/bulk", posts);
    JsonNode warm = get("/boards?page=1&size=100");
    redis.flushAll();
    redis.command("CONFIG", "RESETSTAT");
    List<JsonNode> pages =
        Flux.range(0, 50)
            .flatMap(
                i ->
                    http.get()
                        .uri("/boards?page=1&size=100")
                        .exchange()
                        .returnResult(byte[].class)
                        .getResponseBody()
                        .reduce(
                            new ByteArrayOutputStream(),
                            (out, chunk) -> {
                              out.writeBytes(chunk);
                              return out;
                            }),
                50)
            .map(
                out -> {
                  try {
                    return JSON.readTree(out.toByteArray());
                  } catch (IOException e) {
                    throw new UncheckedIOException(e);
                  }
                })
            .collectList()
            .block(Duration.ofSeconds(60));
    assertThat(pages).hasSize(50).allSatisfy(page -> assertThat(page).isEqualTo(warm));
    assertThat(StoredFeed.size(redis)).isEqualTo(dbCount());
    assertThat(redis.command("EXISTS", BoardKeys.COMPLETE)).isEqualTo(":1");
    // The refill stored each post once, however many readers found the feed cold: the feed's
    // script stores a post with one RPUSH (or an LSET or LINSERT, in place).
    assertThat(commandCalls("rpush") + commandCalls("lset") + commandCalls("linsert"))
        .isEqualTo(dbCount());
  }

  @Test
  void aFailedFeedWriteDeletesTheMarkAndTheNextReadRefills() throws Exception {
    post("/boards", BoardPosts.post(700));
    get("/boards?page=1&size=10");
    assertThat(redis.command("EXISTS", BoardKeys.COMPLETE)).isEqualTo(":1");
    // Another client breaks the feed: the bucket that the next post goes to is no list, so that
    // post's feed write fails (before writing anything) after the database has committed it.
    long next =
        Long.parseLong((String) redis.reply("HGET", BoardKeys.COUNTER, BoardKeys.COUNTER_FIELD))
            + 1;
    String bucket = Inspector.Keys.feedBucket(BoardKeys.FEED, next / 64);
    redis.command("SET", bucket, "not a list");
    JsonNode created = post("/boards", BoardPosts.post(701)).get("data");
    assertThat(created.get("score").asLong()).isEqualTo(next);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(redis.command("EXISTS", BoardKeys.COMPLETE)).isEqualTo(":0"));
    // Meanwhile the refill fails too, and the database answers.
    assertThat(get("/boards?page=1&size=10").get("data").get(0)).isEqualTo(created);
    redis.command("DEL", bucket);
    assertThat(get("/boards?page=1&size=10").get("data").get(0)).isEqualTo(created);
    assertThat(StoredFeed.size(redis)).isEqualTo(dbCount());
    assertThat(StoredFeed.envelope(redis, next)).isNotNull();
    assertThat(redis.command("EXISTS", BoardKeys.COMPLETE)).isEqualTo(":1");
  }

  private JsonNode post(String path, Object body) throws Exception {
    return JSON.readTree(
        http.post()
            .uri(path)
            .contentType(MediaType.APPLICATION_JSON)
            .bodyValue(body)
            .exchange()
            .expectStatus()
            .isOk()
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody());
  }

  private JsonNode get(String path) throws Exception {
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

  /** Calls of {@code command} since the last CONFIG RESETSTAT, from INFO commandstats. */
  private long commandCalls(String command) {
    String prefix = "cmdstat_" + command + ":calls=";
    for (String line : ((String) redis.reply("INFO", "commandstats")).split("\r?\n")) {
      if (line.startsWith(prefix)) {
        return Long.parseLong(line.substring(prefix.length()).split(",")[0]);
      }
    }
    return 0;
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
