package dev.stowage.board.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.board.BoardMode;
import dev.stowage.board.BoardServer;
import dev.stowage.board.FeedCompression;
import dev.stowage.board.protocol.BoardProtocol;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * docs/PROTOCOL.md and the server must agree: every example's request is sent on a new connection
 * to a service with an empty database, and the reply must be the documented bytes.
 */
@WithRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ProtocolDocumentIntegrationTests {
  private static final Pattern EXAMPLE =
      Pattern.compile(
          "#### Example `([a-z0-9-]+)`.*?```hex\\n(.*?)```.*?```hex\\n(.*?)```", Pattern.DOTALL);

  private BoardServer board;

  @BeforeAll
  void start(RedisServer redis) {
    board =
        BoardServer.start(
            0,
            redis.uri(),
            null,
            BoardMode.STOWAGE,
            FeedCompression.NONE,
            TcpOptions.builder().port(0).build());
  }

  @AfterAll
  void stop() {
    if (board != null) {
      board.close();
    }
  }

  @Test
  void everyDocumentedRequestGetsTheDocumentedReply() throws IOException {
    List<String> names = new ArrayList<>();
    Matcher matcher = EXAMPLE.matcher(Files.readString(document(), StandardCharsets.UTF_8));
    while (matcher.find()) {
      String name = matcher.group(1);
      names.add(name);
      byte[] request = bytes(matcher.group(2));
      byte[] reply = bytes(matcher.group(3));
      try (RawConnection raw = new RawConnection(board.tcp().port(), Duration.ofSeconds(30))) {
        raw.send(request);
        boolean closing = (reply[4] & 0xFF) == BoardProtocol.REPLY_CLOSING;
        byte[] actual = closing ? raw.readToEnd() : raw.readFrame();
        assertThat(actual)
            .as("example %s: %s", name, new String(actual, StandardCharsets.UTF_8))
            .isEqualTo(reply);
        if (!closing) {
          // The connection is still open and answers.
          raw.sendFrame(BoardProtocol.OP_PING, 99, new byte[0]);
          assertThat(raw.readFrame())
              .isEqualTo(RawConnection.frame(BoardProtocol.REPLY_OK, 99, new byte[0]));
        }
      }
    }
    assertThat(names)
        .containsExactly(
            "ping",
            "page-json",
            "page-msgpack",
            "page-zero",
            "get-unknown",
            "no-envelope",
            "unknown-operation",
            "frame-too-large");
  }

  @Test
  void theNotationReadsHexAndQuotedText() {
    assertThat(bytes("0a 0B \"a\\\"b\"\nff")).isEqualTo(HexFormat.of().parseHex("0a0b612262ff"));
  }

  /** Hex digits, with whitespace ignored and quoted strings (with \" and \\) as their UTF-8. */
  static byte[] bytes(String notation) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    StringBuilder hex = new StringBuilder();
    for (int i = 0; i < notation.length(); i++) {
      char c = notation.charAt(i);
      if (c == '"') {
        out.writeBytes(HexFormat.of().parseHex(hex));
        hex.setLength(0);
        StringBuilder text = new StringBuilder();
        for (i++; notation.charAt(i) != '"'; i++) {
          if (notation.charAt(i) == '\\') {
            i++;
          }
          text.append(notation.charAt(i));
        }
        out.writeBytes(text.toString().getBytes(StandardCharsets.UTF_8));
      } else if (!Character.isWhitespace(c)) {
        hex.append(c);
      }
    }
    out.writeBytes(HexFormat.of().parseHex(hex));
    return out.toByteArray();
  }

  private static Path document() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      Path candidate = dir.resolve("docs/PROTOCOL.md");
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    throw new AssertionError("docs/PROTOCOL.md not found above " + Path.of("").toAbsolutePath());
  }
}
