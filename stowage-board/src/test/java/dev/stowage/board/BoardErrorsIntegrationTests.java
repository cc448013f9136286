package dev.stowage.board;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.msgpack.jackson.dataformat.MessagePackMapper;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/** Every bad input gets a 4xx that says what is wrong, and writes nothing. Uses the default H2. */
@WithRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardErrorsIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();

  private BoardServer board;
  private WebTestClient http;

  @BeforeAll
  void start(RedisServer redis) {
    board = BoardServer.start(0, redis.uri(), null, BoardMode.STOWAGE);
    assertThat(board.settings().db()).startsWith("r2dbc:h2:mem:");
    http =
        WebTestClient.bindToServer()
            .baseUrl(board.url())
            .codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(16 * 1024 * 1024))
            .responseTimeout(Duration.ofSeconds(30))
            .build();
    http.post()
        .uri("/boards")
        .contentType(MediaType.APPLICATION_JSON)
        .bodyValue(BoardPosts.post(1))
        .exchange()
        .expectStatus()
        .isOk()
        .expectBody(JsonNode.class)
        .value(
            reply ->
                assertThat(reply.get("data").get("title").asText()).isEqualTo("Title number 1"));
  }

  @AfterAll
  void stop() {
    if (board != null) {
      board.close();
    }
  }

  @Test
  void malformedJson() throws Exception {
    assertRejected(
        post("/boards", MediaType.APPLICATION_JSON, "{\"title\": ".getBytes(UTF_8)),
        400,
        "malformed JSON");
    assertRejected(
        post("/boards", MediaType.APPLICATION_JSON, "{} trailing".getBytes(UTF_8)),
        400,
        "malformed JSON");
  }

  @Test
  void malformedMessagePack() throws Exception {
    assertRejected(
        post("/boards", BoardFormats.MSGPACK, new byte[] {(byte) 0x8a, (byte) 0xc1}),
        400,
        "MessagePack");
  }

  @Test
  void emptyBody() throws Exception {
    assertRejected(post("/boards", MediaType.APPLICATION_JSON, new byte[0]), 400, "empty");
  }

  @Test
  void missingFieldsAreNamed() throws Exception {
    Map<String, Object> post = BoardPosts.post(2);
    post.remove("title");
    post.remove("phone_number");
    assertRejected(
        post("/boards", MediaType.APPLICATION_JSON, JSON.writeValueAsBytes(post)),
        400,
        "missing required fields: title, phone_number");
  }

  @Test
  void wrongTypes() throws Exception {
    Map<String, Object> post = BoardPosts.post(3);
    post.put("member_id", "not a number");
    assertRejected(
        post("/boards", MediaType.APPLICATION_JSON, JSON.writeValueAsBytes(post)),
        400,
        "member_id");
    assertRejected(
        post("/boards", MediaType.APPLICATION_JSON, "[1,2]".getBytes(UTF_8)), 400, "wrong shape");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "title   | 5     | title",
        "title   | 1.5   | title",
        "company | true  | company",
        "member_id | 1.5 | member_id",
        "member_id | -1  | member_id"
      })
  void scalarsOfTheWrongKindAreNotCoerced(String field, String json, String named)
      throws Exception {
    Map<String, Object> post = BoardPosts.post(5);
    post.put(field, JSON.readTree(json));
    assertRejected(
        post("/boards", MediaType.APPLICATION_JSON, JSON.writeValueAsBytes(post)), 400, named);
  }

  @Test
  void malformedOrOversizedBulkBodies() throws Exception {
    assertRejected(
        post("/boards/bulk", BoardFormats.MSGPACK, new byte[] {(byte) 0x91, (byte) 0x8a}),
        400,
        "MessagePack");
    byte[] huge = new byte[BoardLimits.MAX_BULK_BYTES + 1];
    Arrays.fill(huge, (byte) ' ');
    huge[0] = '[';
    assertRejected(
        post("/boards/bulk", MediaType.APPLICATION_JSON, huge),
        413,
        "exceeds the limit of " + BoardLimits.MAX_BULK_BYTES + " bytes");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "application/json;q=0.1, application/msgpack | application/msgpack",
        "application/msgpack;q=0.5, application/json  | application/json",
        "application/msgpack, application/json       | application/msgpack",
        "application/json, application/msgpack      | application/json",
        "*/*                                         | application/json",
        "application/msgpack;q=0, */*                | application/json"
      })
  void theResponseTypeFollowsTheAcceptQualities(String accept, String expected) throws Exception {
    byte[] body =
        http.get()
            .uri("/boards?size=1")
            .header("Accept", accept)
            .exchange()
            .expectStatus()
            .isOk()
            .expectHeader()
            .contentType(MediaType.parseMediaType(expected))
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    ObjectMapper reader = expected.equals("application/msgpack") ? new MessagePackMapper() : JSON;
    assertThat(reader.readTree(body).get("data")).hasSize(1);
  }

  @Test
  void oversizedBodies() throws Exception {
    Map<String, Object> post = BoardPosts.post(4);
    post.put("body", "x".repeat(BoardLimits.MAX_POST_BYTES));
    assertRejected(
        post("/boards", MediaType.APPLICATION_JSON, JSON.writeValueAsBytes(post)),
        413,
        "exceeds the limit of " + BoardLimits.MAX_POST_BYTES + " bytes");
    post.put("body", "x".repeat(BoardLimits.MAX_TEXT_CHARS + 1));
    assertRejected(
        post("/boards", MediaType.APPLICATION_JSON, JSON.writeValueAsBytes(post)),
        400,
        "body is " + (BoardLimits.MAX_TEXT_CHARS + 1) + " characters");
  }

  @Test
  void unsupportedContentType() throws Exception {
    assertRejected(
        post("/boards", MediaType.TEXT_PLAIN, "hello".getBytes(UTF_8)),
        415,
        "unsupported Content-Type");
  }

  @Test
  void bulkLimitsAndNoPartialWrite() throws Exception {
    List<Map<String, Object>> tooMany = new ArrayList<>();
    for (int i = 0; i < BoardLimits.MAX_BULK_POSTS + 1; i++) {
      tooMany.add(BoardPosts.post(i));
    }
    assertRejected(
        post("/boards/bulk", MediaType.APPLICATION_JSON, JSON.writeValueAsBytes(tooMany)),
        400,
        "at most 1000 posts, got 1001");
    assertRejected(
        post("/boards/bulk", MediaType.APPLICATION_JSON, "[]".getBytes(UTF_8)),
        400,
        "at least one post");
    List<Map<String, Object>> oneBad = new ArrayList<>(tooMany.subList(0, 10));
    Map<String, Object> bad = BoardPosts.post(99);
    bad.remove("ssn");
    oneBad.add(bad);
    assertRejected(
        post("/boards/bulk", MediaType.APPLICATION_JSON, JSON.writeValueAsBytes(oneBad)),
        400,
        "post [10]: missing required fields: ssn");
  }

  @ParameterizedTest
  @CsvSource({
    "page=0, page must be from 1",
    "page=-1, page must be from 1",
    "page=1000001, page must be from 1 to 1000000",
    "page=99999999999999999999, page must be a whole number",
    "page=abc, page must be a whole number",
    "size=0, size must be from 1 to 500",
    "size=-5, size must be from 1 to 500",
    "size=501, size must be from 1 to 500",
    "size=1.5, size must be a whole number",
    "size=, size must be a whole number"
  })
  void badPageParameters(String query, String message) throws Exception {
    assertRejected(http.get().uri("/boards?" + query).exchange(), 400, message);
  }

  @Test
  void unknownIds() throws Exception {
    assertRejected(
        http.get().uri("/boards/65653f5000b66559c04fe767").exchange(),
        404,
        "no board with id '65653f5000b66559c04fe767'");
    assertRejected(
        http.get().uri("/boards/not-an-id").exchange(), 404, "no board with id 'not-an-id'");
  }

  @Test
  void unknownPath() throws Exception {
    assertRejected(http.get().uri("/nothing-here").exchange(), 404, "no such endpoint");
  }

  private WebTestClient.ResponseSpec post(String path, MediaType type, byte[] body) {
    return http.post().uri(path).contentType(type).bodyValue(body).exchange();
  }

  private void assertRejected(WebTestClient.ResponseSpec response, int status, String message)
      throws Exception {
    long before = count();
    byte[] body =
        response
            .expectStatus()
            .isEqualTo(status)
            .expectHeader()
            .contentType(MediaType.APPLICATION_JSON)
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    JsonNode error = JSON.readTree(body);
    assertThat(error.get("code").asInt())
        .as(new String(body, StandardCharsets.UTF_8))
        .isEqualTo(status);
    assertThat(error.get("message").asText()).contains(message);
    assertThat(count()).isEqualTo(before);
  }

  private long count() throws Exception {
    byte[] body =
        http.get()
            .uri("/boards?size=500")
            .exchange()
            .expectStatus()
            .isOk()
            .expectBody(byte[].class)
            .returnResult()
            .getResponseBody();
    return JSON.readTree(body).get("data").size();
  }
}
