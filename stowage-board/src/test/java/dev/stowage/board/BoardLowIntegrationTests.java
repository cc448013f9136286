package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.msgpack.jackson.dataformat.MessagePackMapper;

/**
 * Issue 29's low items over raw HTTP: every error Netty raises has the JSON error shape, 400s are
 * in the service's words, text limits count code points, JSON is UTF-8 only, HEAD is answered where
 * GET is, and a pipelined request's deadline starts with its first byte.
 */
@WithRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardLowIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final Duration DEADLINE = Duration.ofSeconds(1);

  private BoardServer board;

  @BeforeAll
  void start(RedisServer redis) {
    board =
        BoardServer.start(
            0,
            redis.uri(),
            null,
            BoardMode.STOWAGE,
            FeedCompression.ZSTD_DICT,
            null,
            HttpOptions.builder().requestReadTimeout(DEADLINE).build(),
            true);
  }

  @AfterAll
  void stop() {
    if (board != null) {
      board.close();
    }
  }

  @Test
  void nettysOwnErrorsHaveTheJsonErrorShape() throws Exception {
    // CRLF line ends, written out: a text block would send LF only, which Netty reads differently.
    @SuppressWarnings("StringConcatToTextBlock")
    String bothLengths =
        "GET /boards HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n"
            + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n";
    assertClosingError(bothLengths, 400, "Content-Length");
    assertClosingError("THIS IS NOT HTTP\r\n\r\n", 400, "request line");
    assertClosingError(
        "GET /boards?" + "a".repeat(10_000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "request line");
    assertClosingError(
        "GET /boards HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(20_000) + "\r\n\r\n",
        431,
        "headers");
  }

  private void assertClosingError(String request, int status, String named) throws Exception {
    try (RawHttp raw = new RawHttp(board.port(), WAIT)) {
      raw.send(request);
      RawHttp.Response response = raw.readResponse();
      assertThat(response.status())
          .as(request.substring(0, Math.min(30, request.length())))
          .isEqualTo(status);
      assertThat(response.headers().get("content-type")).startsWith("application/json");
      JsonNode error = JSON.readTree(response.body());
      assertThat(error.get("code").asInt()).isEqualTo(status);
      assertThat(error.get("message").asText()).contains(named);
      assertThat(raw.endsNow()).isTrue();
    }
  }

  @Test
  void messagesAreInTheServicesWords() throws Exception {
    byte[] post = JSON.writeValueAsBytes(BoardPosts.post(1));
    String twice =
        new String(post, StandardCharsets.UTF_8).replaceFirst("\\}$", ",\"title\":\"again\"}");
    assertServiceWords(
        postRaw("application/json", twice.getBytes(StandardCharsets.UTF_8)), "title");
    assertServiceWords(postRaw("application/msgpack", new byte[] {(byte) 0xc1}), "0xc1");
    byte[] msgpack = new MessagePackMapper().writeValueAsBytes(BoardPosts.post(1));
    byte[] cut = Arrays.copyOf(msgpack, msgpack.length - 3);
    assertServiceWords(postRaw("application/msgpack", cut), "end");
  }

  private static void assertServiceWords(RawHttp.Response response, String named) throws Exception {
    assertThat(response.status()).isEqualTo(400);
    String message = JSON.readTree(response.body()).get("message").asText();
    assertThat(message)
        .contains(named)
        .doesNotContain("null")
        .doesNotContain("dev.stowage")
        .doesNotContain("NEVER_USED")
        .doesNotContain("setter")
        .doesNotContain("ValueType");
  }

  @Test
  void theTextLimitCountsCodePoints() throws Exception {
    Map<String, Object> post = BoardPosts.post(2);
    post.put("title", "\uD83D\uDE00".repeat(BoardLimits.MAX_TEXT_CHARS));
    RawHttp.Response accepted = postRaw("application/json", JSON.writeValueAsBytes(post));
    assertThat(accepted.status()).as(accepted.text()).isEqualTo(200);
    assertThat(JSON.readTree(accepted.body()).get("data").get("title").asText())
        .isEqualTo(post.get("title"));
    post.put("title", "\uD83D\uDE00".repeat(BoardLimits.MAX_TEXT_CHARS + 1));
    RawHttp.Response refused = postRaw("application/json", JSON.writeValueAsBytes(post));
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.text()).contains("title is 4001 characters");
  }

  @ParameterizedTest
  @ValueSource(strings = {"UTF-16", "UTF-16BE", "UTF-16LE", "UTF-32BE", "UTF-32LE"})
  void jsonBodiesMustBeUtf8(String charset) throws Exception {
    byte[] body = JSON.writeValueAsString(BoardPosts.post(3)).getBytes(Charset.forName(charset));
    RawHttp.Response plain = postRaw("application/json", body);
    assertThat(plain.status()).isEqualTo(400);
    assertThat(plain.text()).contains("UTF-8");
    RawHttp.Response declared = postRaw("application/json; charset=" + charset, body);
    assertThat(declared.status()).isEqualTo(415);
    assertThat(declared.text()).contains("UTF-8").contains(charset);
    byte[] utf8 = JSON.writeValueAsBytes(BoardPosts.post(3));
    assertThat(postRaw("application/json; charset=utf-8", utf8).status()).isEqualTo(200);
  }

  @Test
  void headIsAnsweredWhereGetIs() throws Exception {
    try (RawHttp raw = new RawHttp(board.port(), WAIT)) {
      raw.send("GET /boards?size=3 HTTP/1.1\r\nHost: x\r\n\r\n");
      RawHttp.Response get = raw.readResponse();
      assertThat(get.status()).isEqualTo(200);
      raw.send("HEAD /boards?size=3 HTTP/1.1\r\nHost: x\r\n\r\n");
      RawHttp.Response head = raw.readResponseHead();
      assertThat(head.status()).isEqualTo(200);
      assertThat(head.headers().get("content-type")).isEqualTo(get.headers().get("content-type"));
      String id = JSON.readTree(get.body()).get("data").get(0).get("id").asText();
      raw.send("HEAD /boards/" + id + " HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(raw.readResponseHead().status()).isEqualTo(200);
      raw.send("HEAD /boards/65653f5000b66559c04fe767 HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(raw.readResponseHead().status()).isEqualTo(404);
      // No body followed the HEAD answers: the next answer is read where it starts.
      raw.send("GET /boards?size=1 HTTP/1.1\r\nHost: x\r\n\r\n");
      assertThat(raw.readResponse().status()).isEqualTo(200);
    }
  }

  @Test
  void aPipelinedRequestsDeadlineStartsWithItsFirstByte() throws Exception {
    try (RawHttp raw = new RawHttp(board.port(), WAIT)) {
      long started = System.nanoTime();
      // One write: a whole request and the first bytes of the next, which never ends.
      raw.send("GET /boards?size=1 HTTP/1.1\r\nHost: x\r\n\r\nGET /boards HTTP/1.1\r\nHo");
      assertThat(raw.readResponse().status()).isEqualTo(200);
      RawHttp.Response timedOut = raw.readResponse();
      long waited = Duration.ofNanos(System.nanoTime() - started).toMillis();
      assertThat(timedOut.status()).isEqualTo(408);
      assertThat(waited).isLessThan(DEADLINE.toMillis() + 2_000);
      assertThat(raw.endsNow()).isTrue();
    }
  }

  private RawHttp.Response postRaw(String contentType, byte[] body) throws Exception {
    try (RawHttp raw = new RawHttp(board.port(), WAIT)) {
      raw.send(
          ("POST /boards HTTP/1.1\r\nHost: x\r\nContent-Type: "
                  + contentType
                  + "\r\nContent-Length: "
                  + body.length
                  + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      raw.send(body);
      return raw.readResponse();
    }
  }
}
