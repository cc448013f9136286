package dev.stowage.board;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import io.r2dbc.spi.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;

/**
 * Issue 29's recovery: a pool that hands out no connection is replaced while the database answers,
 * and the service answers again without a restart; a database that does not answer makes health
 * DOWN and replaces nothing; {@code /actuator/health} shows the database and Redis.
 */
@WithRedis
@WithPostgres
@Isolated(
    "The pool watchdog's timings (a pool slow to recover against one that leaked) move on a busy CPU.")
class BoardPoolRecoveryIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int POOL_SIZE = 4;

  /** A small pool and short timings, so that a broken pool shows and is replaced in seconds. */
  private static final Map<String, Object> SMALL_POOL =
      Map.of(
          "spring.r2dbc.pool.initial-size", 1,
          "spring.r2dbc.pool.max-size", POOL_SIZE,
          "spring.r2dbc.pool.max-acquire-time", "1s",
          "stowage.board.db-watchdog.interval", "250ms",
          "stowage.board.db-watchdog.probe-timeout", "500ms",
          "stowage.board.db-watchdog.replace-after", "6s");

  /**
   * Every connection of the pool taken and never given back, as the OutOfMemoryErrors in the pool's
   * release path left them: reads from the database fail and health is DOWN, until the watchdog
   * replaces the pool; then health is UP and the same requests are answered, in the same process,
   * and the pool is replaced once.
   */
  @Test
  void aPoolWhosePermitsLeakedIsReplacedAndTheServiceAnswersAgain(
      RedisServer redis, PostgresDatabase db) throws Exception {
    try (BoardServer board =
        BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE, SMALL_POOL)) {
      WebTestClient http = client(board);
      String id = BoardPosts.create(http, 1).get("id").asText();
      assertThat(health(http).getStatus().value()).isEqualTo(200);
      RecoveringConnectionFactory connections = board.bean(RecoveringConnectionFactory.class);

      List<Connection> leaked =
          Flux.range(0, POOL_SIZE)
              .flatMap(i -> connections.create())
              .collectList()
              .block(Duration.ofSeconds(10));
      try {
        // GET /boards/{id} always reads the database.
        assertThat(status(http, "/boards/" + id)).isEqualTo(500);
        EntityExchangeResult<byte[]> broken = health(http);
        assertThat(broken.getStatus().value()).isEqualTo(503);
        JsonNode database = body(broken).at("/components/database");
        assertThat(database.get("status").asText()).isEqualTo("DOWN");
        assertThat(database.at("/details/pool/acquired").asInt()).isEqualTo(POOL_SIZE);
        assertThat(database.at("/details/error").asText()).contains("no connection from the pool");
        assertThat(connections.replacements()).isZero();

        await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(() -> assertThat(connections.replacements()).isEqualTo(1));
        EntityExchangeResult<byte[]> recovered = health(http);
        assertThat(recovered.getStatus().value())
            .as(new String(recovered.getResponseBody(), UTF_8))
            .isEqualTo(200);
        assertThat(body(recovered).at("/components/database/details/replacements").asInt())
            .isEqualTo(1);
        assertThat(BoardPosts.get(http, "/boards/" + id).at("/data/id").asText()).isEqualTo(id);
        assertThat(BoardPosts.create(http, 2).get("score").asLong()).isPositive();
        // The new pool answers, so it stays: one replacement, not one per check.
        await()
            .during(Duration.ofSeconds(2))
            .atMost(Duration.ofSeconds(5))
            .until(() -> connections.replacements() == 1);
      } finally {
        Flux.fromIterable(leaked).flatMap(Connection::close).blockLast(Duration.ofSeconds(10));
      }
    }
  }

  /**
   * PostgreSQL refusing every connection to the service's database (its connections terminated):
   * health is DOWN and says the database does not answer, requests fail, and the pool is not
   * replaced however long it lasts; once the database takes connections again, the same pool serves
   * and health is UP.
   */
  @Test
  void aDatabaseThatDoesNotAnswerMakesHealthDownWithoutReplacingThePool(RedisServer redis)
      throws Exception {
    try (PostgresDatabase db = PostgresDatabase.create();
        BoardServer board =
            BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE, SMALL_POOL)) {
      WebTestClient http = client(board);
      String id = BoardPosts.create(http, 1).get("id").asText();
      RecoveringConnectionFactory connections = board.bean(RecoveringConnectionFactory.class);
      try {
        allowConnections(db, false);
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(
                () -> {
                  EntityExchangeResult<byte[]> down = health(http);
                  assertThat(down.getStatus().value()).isEqualTo(503);
                  assertThat(body(down).at("/components/database/status").asText())
                      .isEqualTo("DOWN");
                });
        assertThat(status(http, "/boards/" + id)).isEqualTo(500);
        // Past the watchdog's 6 s bound, it has looked at the database itself and left the pool.
        await()
            .atMost(Duration.ofSeconds(20))
            .untilAsserted(
                () ->
                    assertThat(
                            body(health(http)).at("/components/database/details/watchdog").asText())
                        .contains("the database does not answer either"));
        await()
            .during(Duration.ofSeconds(3))
            .atMost(Duration.ofSeconds(5))
            .until(() -> connections.replacements() == 0);
      } finally {
        allowConnections(db, true);
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(health(http).getStatus().value()).isEqualTo(200));
      assertThat(BoardPosts.get(http, "/boards/" + id).at("/data/id").asText()).isEqualTo(id);
      assertThat(connections.replacements()).isZero();
    }
  }

  /**
   * Stowage mode's health: the database and Redis UP with their details; with Redis stopped the
   * service is still UP (it serves from the database) and the Redis component DEGRADED, saying so;
   * UP again once Redis answers. Nothing but health is exposed.
   */
  @Test
  void healthShowsTheDatabaseAndRedisAndARedisOutageDegradesOnlyItsComponent(
      RedisServer redis, PostgresDatabase db) throws Exception {
    try (BoardServer board = BoardServer.start(0, redis.uri(), db.r2dbcUrl(), BoardMode.STOWAGE)) {
      WebTestClient http = client(board);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThat(body(health(http)).at("/components/redis/status").asText())
                      .isEqualTo("UP"));
      EntityExchangeResult<byte[]> up = health(http);
      assertThat(up.getStatus().value()).isEqualTo(200);
      JsonNode health = body(up);
      assertThat(health.get("status").asText()).isEqualTo("UP");
      assertThat(health.at("/components/database/status").asText()).isEqualTo("UP");
      assertThat(health.at("/components/database/details/pool/max").asInt()).isEqualTo(32);
      assertThat(health.at("/components/database/details/validation").asText())
          .startsWith("SELECT 1 answered in");
      assertThat(health.at("/components/redis/details/address").asText())
          .isEqualTo(redis.host() + ":" + redis.port());
      assertThat(health.at("/components/redis/details/ping").asText()).endsWith(" ms");
      // Not Boot's r2dbc check (unbounded in time), nor its disk space check.
      List<String> components = new ArrayList<>();
      health.get("components").fieldNames().forEachRemaining(components::add);
      assertThat(components).containsExactlyInAnyOrder("database", "ping", "redis");
      assertThat(status(http, "/actuator/env")).isEqualTo(404);
      assertThat(status(http, "/actuator")).isEqualTo(404);

      redis.stop();
      try {
        await()
            .atMost(Duration.ofSeconds(15))
            .untilAsserted(
                () -> {
                  EntityExchangeResult<byte[]> degraded = health(http);
                  assertThat(degraded.getStatus().value()).isEqualTo(200);
                  JsonNode body = body(degraded);
                  assertThat(body.get("status").asText()).isEqualTo("UP");
                  assertThat(body.at("/components/database/status").asText()).isEqualTo("UP");
                  assertThat(body.at("/components/redis/status").asText()).isEqualTo("DEGRADED");
                  assertThat(body.at("/components/redis/details/error").asText())
                      .startsWith("no answer to PING within 3000 ms");
                  assertThat(body.at("/components/redis/details/effect").asText())
                      .contains("served from the database");
                });
        BoardPosts.get(http, "/boards?page=1&size=10");
      } finally {
        redis.restart();
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(body(health(http)).at("/components/redis/status").asText())
                      .isEqualTo("UP"));
    }
  }

  /**
   * In a seed mode, which fails without Redis as the seed did, a Redis outage makes the service
   * DOWN (503), and UP again once Redis is back.
   */
  @Test
  void inASeedModeARedisOutageMakesTheServiceDown(PostgresDatabase db) throws Exception {
    try (RedisServer own = RedisServer.start();
        BoardServer board = BoardServer.start(0, own.uri(), db.r2dbcUrl(), BoardMode.SEED_JSON)) {
      WebTestClient http = client(board);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                EntityExchangeResult<byte[]> up = health(http);
                assertThat(up.getStatus().value()).isEqualTo(200);
                assertThat(body(up).at("/components/redis/status").asText()).isEqualTo("UP");
              });
      own.stop();
      try {
        await()
            .atMost(Duration.ofSeconds(15))
            .untilAsserted(
                () -> {
                  EntityExchangeResult<byte[]> down = health(http);
                  assertThat(down.getStatus().value()).isEqualTo(503);
                  assertThat(body(down).get("status").asText()).isEqualTo("DOWN");
                  assertThat(body(down).at("/components/redis/status").asText()).isEqualTo("DOWN");
                  assertThat(body(down).at("/components/database/status").asText()).isEqualTo("UP");
                });
      } finally {
        own.restart();
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(health(http).getStatus().value()).isEqualTo(200));
    }
  }

  /** Makes PostgreSQL refuse new connections to {@code db} and ends those open, or allows them. */
  private static void allowConnections(PostgresDatabase db, boolean allow) throws Exception {
    String admin =
        "jdbc:postgresql://" + db.host() + ":" + db.port() + "/postgres?user=" + db.user();
    try (var connection = DriverManager.getConnection(admin);
        var statement = connection.createStatement()) {
      statement.execute("ALTER DATABASE " + db.database() + " WITH ALLOW_CONNECTIONS " + allow);
      if (!allow) {
        statement.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                + db.database()
                + "'");
      }
    }
  }

  private static EntityExchangeResult<byte[]> health(WebTestClient http) {
    return http.get().uri("/actuator/health").exchange().expectBody(byte[].class).returnResult();
  }

  /** The status of {@code GET path}, its body read (an unread body's buffers would leak). */
  private static int status(WebTestClient http, String path) {
    return http.get()
        .uri(path)
        .exchange()
        .expectBody(byte[].class)
        .returnResult()
        .getStatus()
        .value();
  }

  private static JsonNode body(EntityExchangeResult<byte[]> result) throws Exception {
    return JSON.readTree(result.getResponseBody());
  }

  private static WebTestClient client(BoardServer board) {
    return WebTestClient.bindToServer()
        .baseUrl(board.url())
        .responseTimeout(Duration.ofSeconds(30))
        .build();
  }
}
