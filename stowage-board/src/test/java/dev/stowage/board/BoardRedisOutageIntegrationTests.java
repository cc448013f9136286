package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Redis missing at start, and Redis restarted under a write load: nothing acknowledged is lost, and
 * scores keep growing.
 */
@WithRedis
@WithPostgres
class BoardRedisOutageIntegrationTests {

  @Test
  void startsWithoutRedisServesFromTheDatabaseAndFillsTheCacheOnceRedisAnswers(
      RedisServer redis, PostgresDatabase db) throws Exception {
    redis.stop();
    try (BoardServer board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE)) {
      WebTestClient http = client(board);
      long first = BoardPosts.create(http, 1).get("score").asLong();
      long second = BoardPosts.create(http, 2).get("score").asLong();
      assertThat(second).isGreaterThan(first);
      JsonNode page = BoardPosts.get(http, "/boards?page=1&size=10").get("data");
      assertThat(page).hasSize((int) dbCount(db));
      assertThat(page.get(0).get("score").asLong()).isEqualTo(second);

      redis.restart();
      awaitRepaired(http, redis, db);
      long third = BoardPosts.create(http, 3).get("score").asLong();
      assertThat(third).isGreaterThan(second);
      assertThat(
              BoardPosts.get(http, "/boards?page=1&size=1")
                  .get("data")
                  .get(0)
                  .get("score")
                  .asLong())
          .isEqualTo(third);
    } finally {
      if (!redis.isRunning()) {
        redis.restart();
      }
    }
  }

  /**
   * 600 posts created by 32 concurrent writers while Redis restarts (empty) under them, on a
   * database that starts with a gap in the scores (its first post was rejected after its score was
   * reserved): every acknowledged post is stored and listed, and scores only grow, so a post is
   * scored above every post acknowledged before it was sent, and the newest post is the first.
   */
  @Test
  void restartingRedisDuringAWriteLoadLosesNoAcknowledgedPostAndScoresKeepGrowing(RedisServer redis)
      throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create();
        BoardServer board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE)) {
      DatabaseRejection.install(db);
      WebTestClient http = client(board);
      http.post()
          .uri("/boards")
          .contentType(MediaType.APPLICATION_JSON)
          .bodyValue(DatabaseRejection.post())
          .exchange()
          .expectStatus()
          .isEqualTo(500)
          .expectBody(JsonNode.class)
          .value(error -> assertThat(error.get("code").asInt()).isEqualTo(500));
      AtomicInteger acknowledged = new AtomicInteger();
      AtomicInteger failed = new AtomicInteger();
      Queue<Created> created = new ConcurrentLinkedQueue<>();
      Mono<Void> load =
          Flux.range(0, 600)
              .flatMap(
                  i ->
                      Mono.fromCallable(
                              () -> {
                                long sent = System.nanoTime();
                                long score =
                                    BoardPosts.create(http, 5000 + i).get("score").asLong();
                                created.add(new Created(score, sent, System.nanoTime()));
                                acknowledged.incrementAndGet();
                                return score;
                              })
                          .subscribeOn(Schedulers.boundedElastic())
                          .onErrorResume(
                              e -> {
                                failed.incrementAndGet();
                                return Mono.empty();
                              }),
                  32)
              .then();
      var running = load.toFuture();
      await().atMost(Duration.ofSeconds(60)).until(() -> acknowledged.get() >= 150);
      redis.kill(); // SIGKILL: a crash, not a clean shutdown
      redis.restart();
      running.get(120, TimeUnit.SECONDS);
      assertThat(failed.get()).isZero();
      assertThat(acknowledged.get()).isEqualTo(600);
      Set<Long> scores = new HashSet<>();
      created.forEach(post -> scores.add(post.score()));
      assertThat(scores).hasSize(600);
      assertThat(dbCount(db)).isEqualTo(600);
      assertScoresGrow(new ArrayList<>(created));

      awaitRepaired(http, redis, db);
      Set<Long> listed = new HashSet<>();
      for (int page = 1; ; page++) {
        JsonNode data = BoardPosts.get(http, "/boards?page=" + page + "&size=500").get("data");
        if (data.isEmpty()) {
          break;
        }
        data.forEach(item -> listed.add(item.get("score").asLong()));
      }
      assertThat(listed).hasSize(600).containsAll(scores);
      JsonNode newest = BoardPosts.create(http, 9999);
      assertThat(newest.get("score").asLong()).isGreaterThan(Collections.max(scores));
      assertThat(BoardPosts.get(http, "/boards?page=1&size=25").get("data").get(0))
          .isEqualTo(newest);
    }
  }

  /** A post as created under load: its score, when its request was sent and answered. */
  private record Created(long score, long sentNanos, long acknowledgedNanos) {}

  /** Every post is scored above each post acknowledged before it was sent. */
  private static void assertScoresGrow(List<Created> created) {
    List<Created> bySent = new ArrayList<>(created);
    bySent.sort(Comparator.comparingLong(Created::sentNanos));
    List<Created> byAcknowledged = new ArrayList<>(created);
    byAcknowledged.sort(Comparator.comparingLong(Created::acknowledgedNanos));
    Created highestBefore = null;
    int next = 0;
    for (Created post : bySent) {
      while (next < byAcknowledged.size()
          && byAcknowledged.get(next).acknowledgedNanos() < post.sentNanos()) {
        Created done = byAcknowledged.get(next++);
        if (highestBefore == null || done.score() > highestBefore.score()) {
          highestBefore = done;
        }
      }
      if (highestBefore != null) {
        assertThat(post.score())
            .as("the post sent after post %d was acknowledged", highestBefore.score())
            .isGreaterThan(highestBefore.score());
      }
    }
  }

  private static void awaitRepaired(WebTestClient http, RedisServer redis, PostgresDatabase db) {
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              BoardPosts.get(http, "/boards?page=1&size=1");
              assertThat(redis.command("EXISTS", BoardKeys.COMPLETE)).isEqualTo(":1");
              assertThat(StoredFeed.size(redis)).isEqualTo(dbCount(db));
            });
  }

  private static WebTestClient client(BoardServer board) {
    return WebTestClient.bindToServer()
        .baseUrl(board.url())
        .codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(16 * 1024 * 1024))
        .responseTimeout(Duration.ofSeconds(30))
        .build();
  }

  private static long dbCount(PostgresDatabase db) throws Exception {
    try (var connection = DriverManager.getConnection(db.jdbcUrl());
        var statement = connection.createStatement();
        var result = statement.executeQuery("SELECT count(*) FROM board")) {
      result.next();
      return result.getLong(1);
    }
  }
}
