package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * One kept-alive HTTP connection carries many requests, each answered in turn. Reactor Netty 1.3.6
 * (Spring Boot 4.0.7) sometimes stopped reading such a connection after a response
 * (reactor/reactor-netty#4361): the next request waited forever. This test sent 1,500 requests on
 * one connection and hung on that version in both of two runs; the build now takes the fixed one.
 */
@WithRedis
class BoardKeepAliveIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int ROUNDS = 1_500;

  @Test
  void oneConnectionServesRequestAfterRequestWithoutStalling(RedisServer redis) throws Exception {
    try (BoardServer board =
            BoardServer.start(
                0,
                redis.uri(),
                null,
                BoardMode.STOWAGE,
                FeedCompression.NONE,
                null,
                HttpOptions.builder().build(),
                true);
        // A stalled connection fails the read within seconds instead of hanging the build.
        RawHttp connection = new RawHttp(board.port(), Duration.ofSeconds(15))) {
      int posted = 0;
      for (int round = 0; round < ROUNDS; round++) {
        if (round % 10 == 0) {
          byte[] post = JSON.writeValueAsBytes(BoardPosts.post(round));
          connection.send(
              "POST /boards HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + "Content-Type: application/json\r\nContent-Length: "
                  + post.length
                  + "\r\n\r\n");
          connection.send(post);
          RawHttp.Response created = connection.readResponse();
          assertThat(created.status()).as("POST in round %d", round).isBetween(200, 201);
          posted++;
        }
        connection.get("/boards?page=1&size=5");
        RawHttp.Response page = connection.readResponse();
        assertThat(page.status()).as("GET in round %d", round).isEqualTo(200);
        JsonNode data = JSON.readTree(new String(page.body(), StandardCharsets.UTF_8)).get("data");
        assertThat(data).as("page in round %d", round).hasSize(Math.min(posted, 5));
      }
      assertThat(connection.hasInput()).as("no response beyond those asked for").isFalse();
    }
  }
}
