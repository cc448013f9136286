package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The HTTP API's connections are not kept forever: one that waits for a request longer than the
 * idle timeout is closed, a request that does not arrive within the request read timeout of its
 * first byte is answered 408 and its connection closed, a connection beyond the maximum takes the
 * place of the longest idle one or, when none is idle, is answered 503 at once, while the
 * connections kept are served, and one beyond its address's cap is answered 503. Each test runs a
 * service with short limits of its own.
 */
@WithRedis
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BoardHttpLimitsIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  @Test
  void aConnectionWaitingForARequestIsClosedAfterTheIdleTimeout(RedisServer redis)
      throws Exception {
    try (BoardServer board =
        start(redis, HttpOptions.builder().idleTimeout(Duration.ofSeconds(1)).build())) {
      try (RawHttp silent = new RawHttp(board.port(), WAIT)) {
        long start = System.nanoTime();
        assertThat(silent.endsNow()).isTrue();
        assertThat(elapsedMs(start)).isBetween(950L, 2500L);
      }
      try (RawHttp keptAlive = new RawHttp(board.port(), WAIT)) {
        keptAlive.get("/boards?page=1&size=1");
        assertThat(keptAlive.readResponse().status()).isEqualTo(200);
        long start = System.nanoTime();
        assertThat(keptAlive.endsNow()).isTrue();
        assertThat(elapsedMs(start)).isBetween(950L, 2500L);
      }
      await().atMost(WAIT).until(() -> board.httpConnections() == 0);
    }
  }

  @Test
  void aRequestThatDoesNotArriveWithinTheRequestReadTimeoutIsAnswered408(RedisServer redis)
      throws Exception {
    try (BoardServer board =
        start(
            redis,
            HttpOptions.builder()
                .idleTimeout(Duration.ofSeconds(10))
                .requestReadTimeout(Duration.ofSeconds(1))
                .build())) {
      String timeout =
          "the request did not arrive within the request read timeout of 1000 ms"
              + " from its first byte";
      // Half the headers, then nothing.
      try (RawHttp half = new RawHttp(board.port(), WAIT)) {
        long start = System.nanoTime();
        half.send("GET /boards HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        assertTimedOut(half, start, timeout);
      }
      // The headers one byte every 100 ms: never quiet, never complete in time.
      try (RawHttp trickle = new RawHttp(board.port(), WAIT)) {
        long start = System.nanoTime();
        trickleUntilClosed(
            trickle,
            "GET /boards?page=1&size=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "X-Padding: "
                + "p".repeat(60)
                + "\r\n\r\n");
        assertTimedOut(trickle, start, timeout);
      }
      // Whole headers, then a body that trickles: nothing is written.
      byte[] post = JSON.writeValueAsBytes(BoardPosts.post(1));
      try (RawHttp body = new RawHttp(board.port(), WAIT)) {
        long start = System.nanoTime();
        body.send(
            "POST /boards HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + post.length
                + "\r\n\r\n");
        trickleUntilClosed(body, new String(post, StandardCharsets.UTF_8));
        assertTimedOut(body, start, timeout);
      }
      // A request that arrives in time is served, on the same kind of connection.
      try (RawHttp whole = new RawHttp(board.port(), WAIT)) {
        whole.get("/boards?page=1&size=25");
        RawHttp.Response page = whole.readResponse();
        assertThat(page.status()).isEqualTo(200);
        assertThat(JSON.readTree(page.body()).get("data")).isEmpty();
      }
    }
  }

  @Test
  void anAddressBeyondItsConnectionCapIsTurnedAwayWhileAnotherAddressIsServed(RedisServer redis)
      throws Exception {
    try (BoardServer board =
        start(
            redis, HttpOptions.builder().maxConnections(16).maxConnectionsPerAddress(4).build())) {
      List<RawHttp> greedy = new ArrayList<>();
      try {
        for (int i = 0; i < 4; i++) {
          greedy.add(new RawHttp(board.port(), WAIT, "127.0.0.2"));
        }
        await().atMost(WAIT).until(() -> board.httpConnections() == 4);
        for (int i = 0; i < 3; i++) {
          try (RawHttp extra = new RawHttp(board.port(), WAIT, "127.0.0.2")) {
            RawHttp.Response refused = extra.readResponse();
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.text())
                .isEqualTo(
                    "{\"code\":503,\"message\":\"the server holds its"
                        + " maximum of 4 HTTP connections from 127.0.0.2; close one first\"}");
            assertThat(extra.endsNow()).isTrue();
          }
        }
        // Another address is served, on as many connections as its own cap.
        List<RawHttp> other = new ArrayList<>();
        try {
          for (int i = 0; i < 4; i++) {
            RawHttp connection = new RawHttp(board.port(), WAIT, "127.0.0.3");
            other.add(connection);
            connection.get("/boards?page=1&size=1");
            assertThat(connection.readResponse().status()).isEqualTo(200);
          }
        } finally {
          for (RawHttp connection : other) {
            connection.close();
          }
        }
        // The greedy address's kept connections are served, and a closed one makes room.
        greedy.get(0).get("/boards?page=1&size=1");
        assertThat(greedy.get(0).readResponse().status()).isEqualTo(200);
        greedy.remove(0).close();
        await().atMost(WAIT).until(() -> board.httpConnections() == 3);
        RawHttp again = new RawHttp(board.port(), WAIT, "127.0.0.2");
        greedy.add(again);
        again.get("/boards?page=1&size=1");
        assertThat(again.readResponse().status()).isEqualTo(200);
      } finally {
        for (RawHttp connection : greedy) {
          connection.close();
        }
      }
      await().atMost(WAIT).until(() -> board.httpConnections() == 0);
    }
  }

  @Test
  void beyondTheMaximumTheLongestIdleConnectionIsClosedToMakeRoom(RedisServer redis)
      throws Exception {
    try (BoardServer board = start(redis, HttpOptions.builder().maxConnections(8).build())) {
      HttpServerLimits limits = board.httpLimits();
      List<RawHttp> kept = new ArrayList<>();
      try {
        for (int i = 0; i < 8; i++) {
          kept.add(new RawHttp(board.port(), WAIT));
          int open = i + 1;
          // One at a time, so that each is idle since later than the one before.
          await()
              .atMost(WAIT)
              .until(() -> limits.connections() == open && limits.idleConnections() == open);
        }
        // The first answers a request: idle since its response, so the second is the idlest.
        kept.get(0).get("/boards?page=1&size=1");
        assertThat(kept.get(0).readResponse().status()).isEqualTo(200);
        await().atMost(WAIT).until(() -> limits.idleConnections() == 8);
        try (RawHttp newcomer = new RawHttp(board.port(), WAIT)) {
          newcomer.get("/boards?page=1&size=1");
          assertThat(newcomer.readResponse().status()).isEqualTo(200);
          assertThat(kept.get(1).endsNow()).as("the longest idle connection is closed").isTrue();
          assertThat(limits.evictions()).isEqualTo(1);
          await().atMost(WAIT).until(() -> limits.connections() == 8);
          for (int i = 0; i < 8; i++) {
            if (i != 1) {
              kept.get(i).get("/boards?page=1&size=1");
              assertThat(kept.get(i).readResponse().status()).as("connection %d", i).isEqualTo(200);
            }
          }
          assertThat(limits.evictions()).isEqualTo(1);
        }
      } finally {
        for (RawHttp connection : kept) {
          connection.close();
        }
      }
      await().atMost(WAIT).until(() -> board.httpConnections() == 0);
    }
  }

  @Test
  void withEveryConnectionBusyANewcomerIsAnswered503WhileTheKeptOnesAreServed(RedisServer redis)
      throws Exception {
    try (BoardServer board = start(redis, HttpOptions.builder().maxConnections(8).build())) {
      HttpServerLimits limits = board.httpLimits();
      List<RawHttp> busy = new ArrayList<>();
      try {
        for (int i = 0; i < 8; i++) {
          RawHttp connection = new RawHttp(board.port(), WAIT);
          busy.add(connection);
          // Half a request: its headers have begun and not ended.
          connection.send("GET /boards?page=1&size=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n");
        }
        await()
            .atMost(WAIT)
            .until(() -> limits.connections() == 8 && limits.idleConnections() == 0);
        for (int i = 0; i < 3; i++) {
          try (RawHttp extra = new RawHttp(board.port(), WAIT)) {
            RawHttp.Response refused = extra.readResponse();
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.headers())
                .containsEntry("content-type", "application/json")
                .containsEntry("connection", "close");
            assertThat(refused.text())
                .isEqualTo(
                    "{\"code\":503,\"message\":\"the server holds its"
                        + " maximum of 8 HTTP connections and none is idle; try again later\"}");
            assertThat(extra.endsNow()).isTrue();
          }
        }
        assertThat(limits.evictions()).isZero();
        for (RawHttp connection : busy) {
          connection.send("\r\n");
          assertThat(connection.readResponse().status()).isEqualTo(200);
        }
      } finally {
        for (RawHttp connection : busy) {
          connection.close();
        }
      }
      await().atMost(WAIT).until(() -> board.httpConnections() == 0);
      try (RawHttp later = new RawHttp(board.port(), WAIT)) {
        later.get("/boards?page=1&size=1");
        assertThat(later.readResponse().status()).isEqualTo(200);
      }
    }
  }

  private static BoardServer start(RedisServer redis, HttpOptions http) {
    return BoardServer.start(
        0, redis.uri(), null, BoardMode.STOWAGE, FeedCompression.NONE, null, http, true);
  }

  private static void assertTimedOut(RawHttp connection, long start, String message)
      throws Exception {
    RawHttp.Response response = connection.readResponse();
    long elapsed = elapsedMs(start);
    assertThat(response.status()).isEqualTo(408);
    assertThat(response.headers())
        .containsEntry("content-type", "application/json")
        .containsEntry("connection", "close");
    JsonNode error = JSON.readTree(response.body());
    assertThat(error.get("code").asInt()).isEqualTo(408);
    assertThat(error.get("message").asText()).isEqualTo(message);
    assertThat(connection.endsNow()).isTrue();
    assertThat(elapsed).isBetween(950L, 2500L);
  }

  /**
   * Sends {@code text} one byte every 100 ms, the attacker's pace, until the server answers or
   * closes the connection (or the text is all sent).
   */
  private static void trickleUntilClosed(RawHttp connection, String text) throws Exception {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    AtomicInteger sent = new AtomicInteger();
    AtomicBoolean closed = new AtomicBoolean();
    ScheduledExecutorService attacker = Executors.newSingleThreadScheduledExecutor();
    try {
      var unusedTask =
          attacker.scheduleAtFixedRate(
              () -> {
                if (closed.get() || sent.get() == bytes.length) {
                  return;
                }
                try {
                  connection.send(new byte[] {bytes[sent.get()]});
                  sent.incrementAndGet();
                } catch (IOException e) {
                  closed.set(true);
                }
              },
              0,
              100,
              TimeUnit.MILLISECONDS);
      await()
          .atMost(WAIT)
          .until(() -> closed.get() || connection.hasInput() || sent.get() == bytes.length);
    } finally {
      attacker.shutdownNow();
      assertThat(attacker.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
  }

  private static long elapsedMs(long start) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
  }
}
