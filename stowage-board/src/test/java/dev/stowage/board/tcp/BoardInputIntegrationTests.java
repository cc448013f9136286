package dev.stowage.board.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.BoardMode;
import dev.stowage.board.BoardServer;
import dev.stowage.board.FeedCompression;
import dev.stowage.board.protocol.BoardProtocol;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithPostgres;
import dev.stowage.testkit.WithRedis;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePacker;

/**
 * Text the database could not keep as it was sent is refused before anything is written, with a 400
 * that names the field, over HTTP (JSON and MessagePack bodies) and over the TCP protocol, on H2
 * and on PostgreSQL: the NUL character, a surrogate without its pair, and bytes that are not UTF-8
 * (an encoded surrogate, an overlong sequence). Headers that are no media types get the usual JSON
 * error, and MessagePack nests no deeper than JSON.
 */
@WithRedis
@WithPostgres
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardInputIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(30);

  /** Stands in a body for the bytes under test. */
  private static final String MARK = "MARK";

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(WAIT).build();
  private final Map<String, BoardServer> boards = new LinkedHashMap<>();

  @BeforeAll
  void start(RedisServer redis, PostgresDatabase db) {
    TcpOptions tcp = TcpOptions.builder().port(0).build();
    boards.put(
        "h2",
        BoardServer.start(0, redis.uri(), null, BoardMode.STOWAGE, FeedCompression.NONE, tcp));
    // The service on PostgreSQL uses Redis database 1: the two must not share a feed.
    boards.put(
        "postgresql",
        BoardServer.start(
            0, redis.uri() + "/1", db.r2dbcUrl(), BoardMode.STOWAGE, FeedCompression.NONE, tcp));
    boards.put(
        "seed-json on postgresql",
        BoardServer.start(0, redis.uri() + "/2", db.r2dbcUrl(), BoardMode.SEED_JSON));
  }

  @AfterAll
  void stop() {
    boards.values().forEach(BoardServer::close);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void theNulCharacterIsRefusedNamingTheField(String db) throws Exception {
    BoardServer board = boards.get(db);
    Map<String, Object> post = post(1);
    post.put("title", "before\u0000after");
    String titleMessage =
        "title contains the NUL character (U+0000) at character 6; text" + " fields cannot hold it";
    assertRefused(
        board, postJson(board, "/boards", JSON.writeValueAsBytes(post)), 400, titleMessage);
    assertRefused(board, postMsgpack(board, "/boards", msgpack(post, null)), 400, titleMessage);
    Map<String, Object> second = post(2);
    second.put("company", "\u0000");
    assertRefused(
        board,
        postJson(board, "/boards/bulk", JSON.writeValueAsBytes(List.of(post(3), second))),
        400,
        "post [1]: company contains the"
            + " NUL character (U+0000) at character 0; text fields cannot hold it");
    assertTcpRefused(board, BoardProtocol.CODEC_JSON, JSON.writeValueAsBytes(post), titleMessage);
    assertTcpRefused(board, BoardProtocol.CODEC_MSGPACK, msgpack(post, null), titleMessage);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void aSurrogateWithoutItsPairIsRefused(String db) throws Exception {
    BoardServer board = boards.get(db);
    byte[] escaped = jsonWith("\\ud800".getBytes(StandardCharsets.US_ASCII));
    String message =
        "title contains an unpaired surrogate (U+D800) at character 0; text must be"
            + " valid Unicode";
    assertRefused(board, postJson(board, "/boards", escaped), 400, message);
    assertTcpRefused(board, BoardProtocol.CODEC_JSON, escaped, message);
    assertRefused(
        board,
        postJson(board, "/boards", jsonWith("x\\udc00".getBytes(StandardCharsets.US_ASCII))),
        400,
        "title contains an unpaired surrogate (U+DC00) at character 1; text must be valid Unicode");

    byte[] encoded = {(byte) 0xed, (byte) 0xa0, (byte) 0x80};
    byte[] json = jsonWith(encoded);
    String jsonMessage =
        "malformed JSON: the body is not valid UTF-8 at offset "
            + indexOf(json, encoded)
            + " (bytes from there: ed a0 80 22)";
    assertRefused(board, postJson(board, "/boards", json), 400, jsonMessage);
    assertTcpRefused(board, BoardProtocol.CODEC_JSON, json, jsonMessage);
    byte[] packed = msgpack(post(4), encoded);
    String msgpackMessage =
        "malformed MessagePack: a string is not valid UTF-8 at offset "
            + indexOf(packed, encoded)
            + " (bytes from there: ed a0 80)";
    assertRefused(board, postMsgpack(board, "/boards", packed), 400, msgpackMessage);
    assertTcpRefused(board, BoardProtocol.CODEC_MSGPACK, packed, msgpackMessage);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void anOverlongUtf8SequenceIsRefused(String db) throws Exception {
    BoardServer board = boards.get(db);
    byte[] overlong = {(byte) 0xc0, (byte) 0xaf}; // '/' in two bytes
    byte[] json = jsonWith(overlong);
    String jsonMessage =
        "malformed JSON: the body is not valid UTF-8 at offset "
            + indexOf(json, overlong)
            + " (bytes from there: c0 af 22 2c)";
    assertRefused(board, postJson(board, "/boards", json), 400, jsonMessage);
    assertTcpRefused(board, BoardProtocol.CODEC_JSON, json, jsonMessage);
    byte[] packed = msgpack(post(5), overlong);
    String msgpackMessage =
        "malformed MessagePack: a string is not valid UTF-8 at offset "
            + indexOf(packed, overlong)
            + " (bytes from there: c0 af)";
    assertRefused(board, postMsgpack(board, "/boards", packed), 400, msgpackMessage);
    assertTcpRefused(board, BoardProtocol.CODEC_MSGPACK, packed, msgpackMessage);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql"})
  void textThatIsValidUnicodeIsStoredAsSent(String db) throws Exception {
    BoardServer board = boards.get(db);
    Map<String, Object> post = post(6);
    String text = "a pair \ud83d\ude00, a tab\t, é and ü";
    post.put("title", text);
    HttpResponse<byte[]> created = postJson(board, "/boards", JSON.writeValueAsBytes(post));
    assertThat(created.statusCode()).isEqualTo(200);
    JsonNode stored = JSON.readTree(created.body()).get("data");
    assertThat(stored.get("title").asText()).isEqualTo(text);
    HttpResponse<byte[]> read =
        http.send(
            HttpRequest.newBuilder(URI.create(board.url() + "/boards/" + stored.get("id").asText()))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertThat(JSON.readTree(read.body()).get("data")).isEqualTo(stored);
  }

  @ParameterizedTest
  @ValueSource(strings = {"h2", "postgresql", "seed-json on postgresql"})
  void anIdHoldingNulIsNotFound(String db) throws Exception {
    BoardServer board = boards.get(db);
    HttpResponse<byte[]> response =
        http.send(
            HttpRequest.newBuilder(URI.create(board.url() + "/boards/ab%00cd")).build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertRefused(board, response, 404, "no board with id 'ab\u0000cd'");
  }

  @Test
  void aContentTypeOrAcceptThatIsNoMediaTypeGetsTheUsualError() throws Exception {
    BoardServer board = boards.get("h2");
    HttpResponse<byte[]> garbage =
        http.send(
            HttpRequest.newBuilder(URI.create(board.url() + "/boards"))
                .header("Content-Type", "garbage")
                .POST(HttpRequest.BodyPublishers.ofByteArray(JSON.writeValueAsBytes(post(7))))
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertRefused(
        board,
        garbage,
        415,
        "Content-Type 'garbage' is not a media type (Invalid mime"
            + " type \"garbage\": does not contain '/'); send application/json or application/msgpack");
    HttpResponse<byte[]> accept =
        http.send(
            HttpRequest.newBuilder(URI.create(board.url() + "/boards?page=1&size=1"))
                .header("Accept", "garbage")
                .build(),
            HttpResponse.BodyHandlers.ofByteArray());
    assertRefused(
        board,
        accept,
        400,
        "Accept 'garbage' is not a list of media types (Invalid"
            + " mime type \"garbage\": does not contain '/'); ask for application/json or"
            + " application/msgpack");
  }

  @Test
  void messagePackNestsNoDeeperThanJson() throws Exception {
    BoardServer board = boards.get("h2");
    // The post is one level; an unknown field holding 999 nested arrays makes 1,000: accepted.
    assertThat(postJson(board, "/boards", jsonNested(999)).statusCode()).isEqualTo(200);
    assertThat(postMsgpack(board, "/boards", msgpackNested(999)).statusCode()).isEqualTo(200);
    HttpResponse<byte[]> json = postJson(board, "/boards", jsonNested(1000));
    assertThat(json.statusCode()).isEqualTo(400);
    assertThat(JSON.readTree(json.body()).get("message").asText())
        .startsWith(
            "malformed JSON:" + " Document nesting depth (1001) exceeds the maximum allowed (1000");
    String message =
        "malformed MessagePack: arrays and maps nest deeper than the limit of 1000"
            + " levels (JSON's)";
    assertRefused(board, postMsgpack(board, "/boards", msgpackNested(1000)), 400, message);
    // 100,000 levels take 100 kB: more than a single post may have, so in a bulk request.
    byte[] deepest = msgpackNested(100_000);
    byte[] bulk = new byte[deepest.length + 1];
    bulk[0] = (byte) 0x91; // an array of one
    System.arraycopy(deepest, 0, bulk, 1, deepest.length);
    assertRefused(board, postMsgpack(board, "/boards/bulk", bulk), 400, message);
    assertTcpRefused(board, BoardProtocol.CODEC_MSGPACK, msgpackNested(100_000), message);
  }

  private void assertRefused(
      BoardServer board, HttpResponse<byte[]> response, int status, String message)
      throws Exception {
    assertThat(response.statusCode())
        .as(new String(response.body(), StandardCharsets.UTF_8))
        .isEqualTo(status);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonNode error = JSON.readTree(response.body());
    assertThat(error.get("code").asInt()).isEqualTo(status);
    assertThat(error.get("message").asText()).isEqualTo(message);
    assertNothingWritten(board);
  }

  private void assertTcpRefused(BoardServer board, int codec, byte[] payload, String message)
      throws Exception {
    try (RawConnection raw = new RawConnection(board.tcp().port(), WAIT)) {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      body.write(new byte[] {(byte) 0xc1, 0x10, (byte) codec, 0});
      body.write(payload);
      raw.sendFrame(BoardProtocol.OP_CREATE, 77, body.toByteArray());
      assertThat(new String(raw.readFrame(), StandardCharsets.UTF_8))
          .isEqualTo(
              new String(
                  RawConnection.codeFrame(BoardProtocol.REPLY_ERROR, 77, 400, message),
                  StandardCharsets.UTF_8));
    }
    assertNothingWritten(board);
  }

  /** Only the posts the tests meant to store are there: their titles say so. */
  private void assertNothingWritten(BoardServer board) throws Exception {
    HttpResponse<byte[]> page =
        http.send(
            HttpRequest.newBuilder(URI.create(board.url() + "/boards?page=1&size=500")).build(),
            HttpResponse.BodyHandlers.ofByteArray());
    for (JsonNode post : JSON.readTree(page.body()).get("data")) {
      assertThat(post.get("title").asText())
          .doesNotContain("\u0000", MARK)
          .isIn("Input 6 and deep", "a pair \ud83d\ude00, a tab\t, é and ü");
    }
  }

  private HttpResponse<byte[]> postJson(BoardServer board, String path, byte[] body)
      throws IOException, InterruptedException {
    return post(board, path, "application/json", body);
  }

  private HttpResponse<byte[]> postMsgpack(BoardServer board, String path, byte[] body)
      throws IOException, InterruptedException {
    return post(board, path, "application/msgpack", body);
  }

  private HttpResponse<byte[]> post(BoardServer board, String path, String type, byte[] body)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create(board.url() + path))
            .header("Content-Type", type)
            .POST(HttpRequest.BodyPublishers.ofByteArray(body))
            .build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private static Map<String, Object> post(int i) {
    Map<String, Object> post = new LinkedHashMap<>();
    post.put("member_id", 80_000L + i);
    post.put("title", "Input " + i);
    post.put("body", "Body " + i);
    post.put("address", "1 Input Road");
    post.put("country", "Chile");
    post.put("job", "Tester");
    post.put("credit", "4716296968179136");
    post.put("ssn", "333-96-3366");
    post.put("company", "Input and Sons");
    post.put("phone_number", "+1-610-354-4229");
    return post;
  }

  /** A JSON post whose title's text is {@code raw}, as it stands between the quotes. */
  private static byte[] jsonWith(byte[] raw) throws IOException {
    Map<String, Object> post = post(0);
    post.put("title", MARK);
    byte[] json = JSON.writeValueAsBytes(post);
    return replace(json, MARK.getBytes(StandardCharsets.US_ASCII), raw);
  }

  /** A MessagePack post, whose title's UTF-8 bytes are {@code rawTitle} when given. */
  private static byte[] msgpack(Map<String, Object> post, byte[] rawTitle) throws IOException {
    MessagePacker packer = MessagePack.newDefaultBufferPacker();
    packer.packMapHeader(post.size());
    for (Map.Entry<String, Object> field : post.entrySet()) {
      packer.packString(field.getKey());
      if (field.getValue() instanceof Long number) {
        packer.packLong(number);
      } else if (field.getKey().equals("title") && rawTitle != null) {
        packer.packRawStringHeader(rawTitle.length);
        packer.writePayload(rawTitle);
      } else {
        byte[] utf8 = ((String) field.getValue()).getBytes(StandardCharsets.UTF_8);
        packer.packRawStringHeader(utf8.length); // writes NUL as the byte 00, as it is
        packer.writePayload(utf8);
      }
    }
    return ((MessageBufferPacker) packer).toByteArray();
  }

  /** A post whose unknown field {@code deep} holds {@code arrays} nested arrays. */
  private static byte[] jsonNested(int arrays) throws IOException {
    Map<String, Object> post = post(6);
    post.put("title", "Input 6 and deep");
    post.put("deep", MARK);
    byte[] nested = ("[".repeat(arrays) + "]".repeat(arrays)).getBytes(StandardCharsets.US_ASCII);
    return replace(
        JSON.writeValueAsBytes(post),
        ("\"" + MARK + "\"").getBytes(StandardCharsets.US_ASCII),
        nested);
  }

  private static byte[] msgpackNested(int arrays) throws IOException {
    Map<String, Object> post = post(6);
    post.put("title", "Input 6 and deep");
    MessagePacker packer = MessagePack.newDefaultBufferPacker();
    packer.packMapHeader(post.size() + 1);
    packer.packString("deep");
    for (int i = 0; i < arrays; i++) {
      packer.packArrayHeader(i == arrays - 1 ? 0 : 1);
    }
    for (Map.Entry<String, Object> field : post.entrySet()) {
      packer.packString(field.getKey());
      if (field.getValue() instanceof Long number) {
        packer.packLong(number);
      } else {
        packer.packString((String) field.getValue());
      }
    }
    return ((MessageBufferPacker) packer).toByteArray();
  }

  private static byte[] replace(byte[] in, byte[] what, byte[] with) {
    int at = indexOf(in, what);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(in, 0, at);
    out.writeBytes(with);
    out.write(in, at + what.length, in.length - at - what.length);
    return out.toByteArray();
  }

  private static int indexOf(byte[] in, byte[] what) {
    for (int i = 0; i + what.length <= in.length; i++) {
      if (Arrays.equals(in, i, i + what.length, what, 0, what.length)) {
        return i;
      }
    }
    throw new AssertionError(HexFormat.of().formatHex(what) + " is not in the body");
  }
}
