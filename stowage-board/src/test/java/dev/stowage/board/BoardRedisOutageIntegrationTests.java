package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.RedisServer;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Redis missing at start, and Redis restarted under a write load: nothing acknowledged is lost. */
@WithRedis
@WithPostgres
class BoardRedisOutageIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void startsWithoutRedisServesFromTheDatabaseAndFillsTheCacheOnceRedisAnswers(RedisServer redis,
      PostgresDatabase db) throws Exception {
    redis.stop();
    try (BoardServer board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(),
        BoardMode.STOWAGE)) {
      WebTestClient http = client(board);
      long first = create(http, 1).get("score").asLong();
      long second = create(http, 2).get("score").asLong();
      assertThat(second).isGreaterThan(first);
      JsonNode page = get(http, "/boards?page=1&size=10").get("data");
      assertThat(page).hasSize((int) dbCount(db));
      assertThat(page.get(0).get("score").asLong()).isEqualTo(second);

      redis.restart();
      awaitRepaired(http, redis, db);
      long third = create(http, 3).get("score").asLong();
      assertThat(third).isGreaterThan(second);
      assertThat(get(http, "/boards?page=1&size=1").get("data").get(0).get("score").asLong())
          .isEqualTo(third);
    } finally {
      if (!redis.isRunning()) {
        redis.restart();
      }
    }
  }

  @Test
  void restartingRedisDuringAWriteLoadLosesNoAcknowledgedPost(RedisServer redis,
      PostgresDatabase db) throws Exception {
    try (BoardServer board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(),
        BoardMode.STOWAGE)) {
      WebTestClient http = client(board);
      long before = dbCount(db);
      AtomicInteger acknowledged = new AtomicInteger();
      AtomicInteger failed = new AtomicInteger();
      Set<Long> scores = java.util.concurrent.ConcurrentHashMap.newKeySet();
      Mono<Void> load = Flux.range(0, 600)
          .flatMap(i -> Mono.fromCallable(() -> {
            JsonNode created = create(http, 5000 + i);
            scores.add(created.get("score").asLong());
            acknowledged.incrementAndGet();
            return created;
          }).subscribeOn(Schedulers.boundedElastic()).onErrorResume(e -> {
            failed.incrementAndGet();
            return Mono.empty();
          }), 32)
          .then();
      var running = load.toFuture();
      while (acknowledged.get() < 150) {
        Thread.sleep(10);
      }
      redis.restart();
      running.get();
      assertThat(failed.get()).isZero();
      assertThat(acknowledged.get()).isEqualTo(600);
      assertThat(scores).hasSize(600);
      assertThat(dbCount(db)).isEqualTo(before + 600);
      awaitRepaired(http, redis, db);
      Set<Long> listed = new HashSet<>();
      for (int page = 1; ; page++) {
        JsonNode data = get(http, "/boards?page=" + page + "&size=500").get("data");
        if (data.isEmpty()) {
          break;
        }
        data.forEach(item -> listed.add(item.get("score").asLong()));
      }
      assertThat(listed).hasSize((int) dbCount(db)).containsAll(scores);
    }
  }

  private static void awaitRepaired(WebTestClient http, RedisServer redis, PostgresDatabase db)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (System.nanoTime() < deadline) {
      get(http, "/boards?page=1&size=1");
      if (redis.command("EXISTS", BoardFeed.COMPLETE).equals(":1")
          && Long.parseLong(redis.command("ZCARD", BoardFeed.FEED).substring(1)) == dbCount(db)) {
        return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the feed was not repaired within 30 s: ZCARD "
        + redis.command("ZCARD", BoardFeed.FEED) + ", database " + dbCount(db));
  }

  private static WebTestClient client(BoardServer board) {
    return WebTestClient.bindToServer().baseUrl(board.url())
        .codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(16 * 1024 * 1024))
        .responseTimeout(Duration.ofSeconds(30)).build();
  }

  private static JsonNode create(WebTestClient http, int i) throws Exception {
    byte[] body = http.post().uri("/boards").contentType(MediaType.APPLICATION_JSON)
        .bodyValue(BoardPosts.post(i)).exchange().expectStatus().isOk()
        .expectBody(byte[].class).returnResult().getResponseBody();
    return JSON.readTree(body).get("data");
  }

  private static JsonNode get(WebTestClient http, String path) throws Exception {
    byte[] body = http.get().uri(path).exchange().expectStatus().isOk()
        .expectBody(byte[].class).returnResult().getResponseBody();
    return JSON.readTree(body);
  }

  private static long dbCount(PostgresDatabase db) throws Exception {
    try (var connection = java.sql.DriverManager.getConnection(db.jdbcUrl());
        var statement = connection.createStatement();
        var result = statement.executeQuery("SELECT count(*) FROM board")) {
      result.next();
      return result.getLong(1);
    }
  }

}
