package dev.stowage.bench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.bench.BenchmarkRunException;
import dev.stowage.board.BoardMode;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithRedis
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BoardProcessIntegrationTests {

  @Test
  void theServiceAnswersFromAJvmOfItsOwnAndStopsOnClose(RedisServer redis, @TempDir Path logs)
      throws Exception {
    BoardProcess board =
        BoardProcess.start(
            BoardMode.SEED_JSON,
            redis.uri(),
            List.of("-Xmx256m"),
            logs.resolve("board.log"),
            Duration.ofSeconds(90));
    try {
      assertThat(board.pid()).isNotEqualTo(ProcessHandle.current().pid());
      HttpResponse<String> page =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(board.url() + "/boards?page=1&size=5")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.body()).startsWith("{\"code\":200");
    } finally {
      board.close();
    }
    assertThat(board.isAlive()).isFalse();
    assertThat(logs.resolve("board.log")).isNotEmptyFile();
  }

  @Test
  void aServiceThatCannotStartFailsWithItsLastLogLines(@TempDir Path logs) {
    assertThatThrownBy(
            () ->
                BoardProcess.start(
                    BoardMode.STOWAGE,
                    "nonsense://nowhere",
                    List.of("-Xmx256m"),
                    logs.resolve("board.log"),
                    Duration.ofSeconds(90)))
        .isInstanceOf(BenchmarkRunException.class)
        .hasMessageContaining("the board service (stowage) exited with status")
        .hasMessageContaining("Scheme nonsense not supported")
        .hasMessageNotContaining("\tat ");
  }
}
