package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Services started in one JVM are independent: closing one leaves the others serving. Each has its
 * own Reactor Netty event loops; with Reactor Netty's global ones, which Spring disposes when a
 * context that uses them closes, closing one service stopped the loops of all the others (the
 * others' connections were refused or closed in the middle of a response).
 */
@WithRedis
class BoardServersInOneJvmIntegrationTests {

  @Test
  void closingOneServiceLeavesAnotherInTheSameJvmServing(RedisServer redis) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    try (BoardServer kept = BoardServer.start(0, redis.uri(), null, BoardMode.STOWAGE)) {
      assertThat(firstPage(http, kept)).isEqualTo(200);
      BoardServer closed = BoardServer.start(0, redis.uri() + "/1", null, BoardMode.STOWAGE);
      assertThat(firstPage(http, closed)).isEqualTo(200);
      closed.close();

      for (int i = 0; i < 20; i++) {
        // A fresh connection each time: the kept service must still accept and answer.
        HttpClient fresh = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        assertThat(firstPage(fresh, kept))
            .as("request %d after the other closed", i)
            .isEqualTo(200);
      }
      assertThat(firstPage(http, kept)).isEqualTo(200);
    }
  }

  private static int firstPage(HttpClient http, BoardServer board) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(board.url() + "/boards?page=1&size=5"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }
}
