package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Stowage mode's feed keeps pages in the process while Redis, tracking the feed's keys, says the
 * feed has not changed: repeated reads cost no round trip, and a write by anyone, here or in
 * another process, is seen by the next read once Redis has pushed its invalidation.
 */
@WithRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardNearCacheIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  private BoardServer board;
  private WebTestClient http;
  private RedisServer redis;
  private RedisClient client;
  private StatefulRedisConnection<String, String> admin;

  @BeforeAll
  void start(RedisServer redis) {
    this.redis = redis;
    board = BoardServer.start(0, redis.uri(), null, BoardMode.STOWAGE);
    http =
        WebTestClient.bindToServer()
            .baseUrl(board.url())
            .responseTimeout(Duration.ofSeconds(30))
            .build();
    client = RedisClient.create(redis.uri());
    admin = client.connect();
  }

  @AfterAll
  void stop() {
    if (admin != null) {
      admin.close();
      client.shutdown();
    }
    if (board != null) {
      board.close();
    }
  }

  @Test
  void repeatedReadsOfAnUnchangedPageDoNotGoToRedis() throws Exception {
    create(1);
    JsonNode first = page();
    // The invalidation that the write itself caused may still be on its way: once it has landed,
    // and the page kept has been read again and checked, reads are answered from memory.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              admin.sync().configResetstat();
              assertThat(page()).isEqualTo(first);
              assertThat(redisReads()).isZero();
            });
    admin.sync().configResetstat();
    for (int i = 0; i < 20; i++) {
      assertThat(page()).isEqualTo(first);
    }
    assertThat(redisReads()).isZero();
  }

  @Test
  void aWriteHereIsSeenByTheNextRead() throws Exception {
    page();
    JsonNode created = create(2);
    assertThat(page().get(0)).isEqualTo(created);
  }

  @Test
  void aChangeByAnotherClientIsSeenOnceRedisPushesItsInvalidation() throws Exception {
    create(3);
    JsonNode before = page();
    long newest = before.get(0).get("score").asLong();
    // Another process removes the newest post behind the service's back.
    assertThat(StoredFeed.remove(redis, newest)).isTrue();
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(page().get(0).get("score").asLong()).isLessThan(newest));
  }

  @Test
  void aRestartedRedisIsReadAgainNotServedFromMemory() throws Exception {
    create(4);
    JsonNode before = page();
    redis.restart();
    // The restarted Redis is empty: the service refills it from the database, so the page is the
    // same, and it was read from Redis (or the database) again, not from memory.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(page()).isEqualTo(before);
              assertThat(redis.command("EXISTS", BoardKeys.COMPLETE)).isEqualTo(":1");
            });
    assertThat(page()).isEqualTo(before);
    assertThat(StoredFeed.size(redis)).isPositive();
  }

  /**
   * Reads that reached Redis since the last {@code CONFIG RESETSTAT}: pages (scripts) and the mark.
   */
  private long redisReads() {
    return calls("evalsha") + calls("eval") + calls("get");
  }

  private long calls(String command) {
    for (String line : admin.sync().info("commandstats").split("\\r?\\n")) {
      if (line.startsWith("cmdstat_" + command + ":calls=")) {
        return Long.parseLong(
            line.substring(("cmdstat_" + command + ":calls=").length()).split(",")[0]);
      }
    }
    return 0;
  }

  private JsonNode create(int i) throws Exception {
    byte[] body =
        http.post()
            .uri("/boards")
            .contentType(MediaType.APPLICATION_JSON)
            .bodyValue(BoardPosts.post(i))
            .exchange()
            .expectStatus()
            .isOk()
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(body).get("data");
  }

  private JsonNode page() throws Exception {
    byte[] body =
        http.get()
            .uri("/boards?page=1&size=10")
            .exchange()
            .expectStatus()
            .isOk()
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(body).get("data");
  }
}
