package dev.stowage.board.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.BoardFormats;
import dev.stowage.board.BoardMode;
import dev.stowage.board.BoardServer;
import dev.stowage.board.FeedCompression;
import dev.stowage.board.client.BoardClientException;
import dev.stowage.board.client.StowageBoardClient;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.BoardProtocol;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import io.netty.handler.ssl.util.SelfSignedCertificate;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The TCP endpoint beside the HTTP API on one service (real Redis, H2): every operation over plain
 * TCP and TLS, many requests in flight on one connection, error replies that keep the connection,
 * and protocol violations that end only the offending connection.
 */
@WithRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardTcpIntegrationTests {
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ObjectMapper JSON = new ObjectMapper();

  private BoardServer board;
  private BoardTcpServer tcp;
  private StowageBoardClient client;

  @BeforeAll
  void start(RedisServer redis) {
    board =
        BoardServer.start(
            0,
            redis.uri(),
            null,
            BoardMode.STOWAGE,
            FeedCompression.ZSTD,
            TcpOptions.builder().port(0).tlsPort(0).tlsSelfSigned().build());
    tcp = board.tcp();
    assertThat(tcp.port()).isPositive();
    assertThat(tcp.tlsPort()).isPositive();
    client = StowageBoardClient.builder("127.0.0.1", tcp.port()).build();
  }

  @AfterAll
  void stop() {
    if (client != null) {
      client.close();
    }
    if (board != null) {
      board.close();
    }
  }

  @Test
  void everyOperationRoundTripsOverPlainTcp() throws Exception {
    roundTrip(client);
  }

  @Test
  void everyOperationRoundTripsOverTlsTrustingTheServersCertificate() throws Exception {
    try (StowageBoardClient tls =
        StowageBoardClient.builder("127.0.0.1", tcp.tlsPort())
            .tls(tcp.tlsCertificate())
            .tlsServerName("localhost")
            .build()) {
      roundTrip(tls);
      assertThat(tls.connections()).isEqualTo(1);
    }
  }

  @Test
  void jsonBodiesOverTlsTrustingAnyCertificate() throws Exception {
    try (StowageBoardClient tls =
        StowageBoardClient.builder("127.0.0.1", tcp.tlsPort())
            .tlsTrustingAnyCertificateInsecurely()
            .json()
            .build()) {
      roundTrip(tls);
      byte[] raw = tls.pageBytes(1, 2).get(30, TimeUnit.SECONDS);
      assertThat(HexFormat.of().formatHex(raw, 0, 4)).isEqualTo("c1100100");
      assertThat(JSON.readTree(raw, 4, raw.length - 4).size()).isEqualTo(2);
    }
  }

  @Test
  void aClientThatDoesNotTrustTheServerOrExpectsAnotherNameCannotConnect() throws Exception {
    SelfSignedCertificate other = new SelfSignedCertificate("localhost");
    try (StowageBoardClient trustsAnother =
        StowageBoardClient.builder("127.0.0.1", tcp.tlsPort())
            .tls(other.certificate().toPath())
            .tlsServerName("localhost")
            .build()) {
      assertThatThrownBy(() -> trustsAnother.ping().join())
          .cause()
          .isInstanceOf(BoardClientException.class)
          .hasMessageStartingWith("TLS handshake with 127.0.0.1:" + tcp.tlsPort() + " failed");
    } finally {
      other.delete();
    }
    try (StowageBoardClient wrongName =
        StowageBoardClient.builder("127.0.0.1", tcp.tlsPort()).tls(tcp.tlsCertificate()).build()) {
      assertThatThrownBy(() -> wrongName.ping().join())
          .cause()
          .isInstanceOf(BoardClientException.class)
          .hasMessageStartingWith("TLS handshake with 127.0.0.1:" + tcp.tlsPort() + " failed");
    }
    try (StowageBoardClient plainToTls =
        StowageBoardClient.builder("127.0.0.1", tcp.tlsPort())
            .requestTimeout(Duration.ofSeconds(5))
            .build()) {
      assertThatThrownBy(() -> plainToTls.ping().join())
          .hasCauseInstanceOf(BoardClientException.class);
    }
    try (StowageBoardClient trusting =
        StowageBoardClient.builder("127.0.0.1", tcp.tlsPort())
            .tls(tcp.tlsCertificate())
            .tlsServerName("localhost")
            .build()) {
      assertThat(trusting.ping()).succeedsWithin(WAIT);
    }
  }

  private void roundTrip(StowageBoardClient c) throws Exception {
    Board created = c.create(TestPosts.post(1)).get(30, TimeUnit.SECONDS);
    assertThat(created.id()).matches("[0-9a-f]{24}");
    assertThat(created.title()).isEqualTo("Tcp title 1");
    assertThat(created.phoneNumber()).isEqualTo("+1-610-354-4229x1");

    List<Board> bulk = c.createAll(TestPosts.posts(10, 5)).get(30, TimeUnit.SECONDS);
    assertThat(bulk)
        .extracting(Board::title)
        .containsExactly(
            "Tcp title 10", "Tcp title 11", "Tcp title 12", "Tcp title 13", "Tcp title 14");
    assertThat(bulk).extracting(Board::score).isSorted().doesNotHaveDuplicates();
    assertThat(bulk.get(0).score()).isGreaterThan(created.score());

    List<Board> page = c.page(1, 500).get(30, TimeUnit.SECONDS);
    assertThat(page).extracting(Board::score).isSortedAccordingTo((a, b) -> Long.compare(b, a));
    assertThat(page).contains(created).containsAll(bulk);
    assertThat(page).isEqualTo(httpPage(500));
    assertThat(c.page(1, 2).get(30, TimeUnit.SECONDS)).isEqualTo(page.subList(0, 2));
    assertThat(c.page(1_000_000, 500).get(30, TimeUnit.SECONDS)).isEmpty();

    assertThat(c.get(created.id()).get(30, TimeUnit.SECONDS)).contains(created);
    assertThat(c.get(bulk.get(4).id()).get(30, TimeUnit.SECONDS)).contains(bulk.get(4));
    assertThat(c.get("ffffffffffffffffffffffff").get(30, TimeUnit.SECONDS)).isEmpty();
    assertThat(c.ping()).succeedsWithin(WAIT);
  }

  /** The same page through the HTTP API, decoded the same way. */
  private List<Board> httpPage(int size) throws Exception {
    HttpResponse<byte[]> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(board.url() + "/boards?page=1&size=" + size))
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    ObjectMapper mapper = new BoardFormats().json();
    JsonNode data = mapper.readTree(response.body()).get("data");
    List<Board> boards = new ArrayList<>();
    for (JsonNode node : data) {
      boards.add(mapper.treeToValue(node, Board.class));
    }
    return boards;
  }

  @Test
  void aThousandRequestsInFlightOnOneConnectionEachGetTheirOwnReply() throws Exception {
    List<Board> posts = client.createAll(TestPosts.posts(1000, 1000)).get(60, TimeUnit.SECONDS);
    long connectionsBefore = client.connections();
    List<CompletableFuture<Optional<Board>>> gets = new ArrayList<>();
    List<CompletableFuture<List<Board>>> pages = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      if (i % 4 == 3) {
        pages.add(client.page(1, 1 + i % 50));
      } else {
        gets.add(client.get(posts.get(i).id()));
      }
    }
    CompletableFuture.allOf(gets.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    CompletableFuture.allOf(pages.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    int g = 0;
    int p = 0;
    for (int i = 0; i < 1000; i++) {
      if (i % 4 == 3) {
        assertThat(pages.get(p++).join()).hasSize(1 + i % 50);
      } else {
        assertThat(gets.get(g++).join()).contains(posts.get(i));
      }
    }
    assertThat(client.connections()).isEqualTo(connectionsBefore);
  }

  @Test
  void applicationErrorsAnswerTheRequestAndKeepTheConnection() throws Exception {
    client.ping().get(30, TimeUnit.SECONDS);
    long connections = client.connections();
    assertThatThrownBy(() -> client.page(0, 25).join())
        .cause()
        .isInstanceOf(BoardClientException.class)
        .hasMessage("page must be from 1 to 1000000, got 0")
        .satisfies(e -> assertThat(((BoardClientException) e).code()).isEqualTo(400));
    assertThatThrownBy(() -> client.page(1, 501).join())
        .cause()
        .hasMessage("size must be from 1 to 500, got 501");
    assertThatThrownBy(() -> client.createAll(List.of()).join())
        .cause()
        .hasMessage("a bulk request needs at least one post");
    NewBoard missing = new NewBoard(1L, null, "b", "a", "c", "j", "cr", "s", "co", "p");
    assertThatThrownBy(() -> client.create(missing).join())
        .cause()
        .hasMessage("missing required fields: title");
    assertThat(client.ping()).succeedsWithin(WAIT);
    assertThat(client.connections()).isEqualTo(connections);

    try (RawConnection raw = new RawConnection(tcp.port(), WAIT)) {
      raw.sendFrame(BoardProtocol.OP_CREATE, 7, HexFormat.of().parseHex("c1100200c1"));
      byte[] reply = raw.readFrame();
      assertThat(HexFormat.of().formatHex(reply, 4, 11)).isEqualTo("8100000007" + "0190");
      assertThat(message(reply)).startsWith("malformed MessagePack");
      raw.sendFrame(BoardProtocol.OP_GET, 8, HexFormat.of().parseHex("7b7d"));
      assertThat(raw.readFrame())
          .isEqualTo(
              RawConnection.codeFrame(
                  BoardProtocol.REPLY_ERROR,
                  8,
                  400,
                  "the body starts with 7b, not the envelope's magic byte c1"));
      raw.sendFrame(BoardProtocol.OP_PAGE, 9, HexFormat.of().parseHex("c1100300"));
      assertThat(raw.readFrame())
          .isEqualTo(
              RawConnection.codeFrame(
                  BoardProtocol.REPLY_ERROR,
                  9,
                  400,
                  "envelope codec id 3 is not accepted; send JSON (1) or MessagePack (2)"));
      raw.sendFrame(BoardProtocol.OP_GET, 10, HexFormat.of().parseHex("c1100200a3616263"));
      assertThat(raw.readFrame())
          .isEqualTo(
              RawConnection.codeFrame(
                  BoardProtocol.REPLY_ERROR, 10, 404, "no board with id 'abc'"));
      raw.sendFrame(BoardProtocol.OP_PING, 11, new byte[0]);
      assertThat(raw.readFrame()).isEqualTo(HexFormat.of().parseHex("00000005800000000b"));
    }
  }

  @Test
  void aFrameClaimingTwoGibibytesEndsTheConnection() throws Exception {
    assertClosedWith(
        HexFormat.of().parseHex("7fffffff0100000001"),
        false,
        RawConnection.codeFrame(
            BoardProtocol.REPLY_CLOSING,
            0,
            1003,
            "frame length 2147483647 exceeds the limit of 4194304 bytes"));
  }

  @Test
  void aTruncatedFrameEndsTheConnection() throws Exception {
    assertClosedWith(
        HexFormat.of().parseHex("000000200300000007c110"),
        true,
        RawConnection.codeFrame(
            BoardProtocol.REPLY_CLOSING,
            0,
            1005,
            "the connection's input ended 11 bytes into a frame; its length field announced 32"
                + " bytes after it, of which 25 are still expected"));
  }

  @Test
  void garbageEndsTheConnection() throws Exception {
    assertClosedWith(
        "hello there, server".getBytes(StandardCharsets.US_ASCII),
        false,
        RawConnection.codeFrame(
            BoardProtocol.REPLY_CLOSING,
            0,
            1003,
            "frame length 1751477356 exceeds the limit of 4194304 bytes"));
    assertClosedWith(
        "GET /boards HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII),
        false,
        RawConnection.codeFrame(
            BoardProtocol.REPLY_CLOSING,
            0,
            1003,
            "frame length 1195725856 exceeds the limit of 4194304 bytes (an HTTP request? this"
                + " port speaks the Stowage board protocol, see docs/PROTOCOL.md)"));
    assertClosedWith(
        HexFormat.of().parseHex("00000002ffff"),
        false,
        RawConnection.codeFrame(
            BoardProtocol.REPLY_CLOSING,
            0,
            1004,
            "frame length 2 is below 5, the size of a frame's type and request id"));
  }

  @Test
  void anUnknownOperationEndsTheConnection() throws Exception {
    assertClosedWith(
        HexFormat.of().parseHex("000000057e0000002a"),
        false,
        RawConnection.codeFrame(
            BoardProtocol.REPLY_CLOSING,
            42,
            1006,
            "unknown operation 0x7e; operations are 0x01 create, 0x02 create-all, 0x03 page,"
                + " 0x04 get and 0x05 ping"));
  }

  @Test
  void aTlsHandshakeOnThePlainPortEndsTheConnection() throws Exception {
    SSLEngine engine = SSLContext.getDefault().createSSLEngine("localhost", tcp.port());
    engine.setUseClientMode(true);
    ByteBuffer hello = ByteBuffer.allocate(engine.getSession().getPacketBufferSize());
    engine.beginHandshake();
    engine.wrap(ByteBuffer.allocate(0), hello);
    byte[] clientHello = Arrays.copyOf(hello.array(), hello.position());
    assertThat(clientHello[0]).isEqualTo((byte) 0x16);
    assertClosedWith(
        clientHello,
        false,
        RawConnection.codeFrame(
            BoardProtocol.REPLY_CLOSING,
            0,
            1007,
            "a TLS handshake reached the plain port; use the TLS port, or send frames without"
                + " TLS here"));
  }

  /** Sends {@code bytes}; the server answers with exactly {@code closing} and closes. */
  private void assertClosedWith(byte[] bytes, boolean thenShutdownOutput, byte[] closing)
      throws Exception {
    try (RawConnection raw = new RawConnection(tcp.port(), WAIT)) {
      raw.send(bytes);
      if (thenShutdownOutput) {
        raw.socket().shutdownOutput();
      }
      assertThat(raw.readToEnd())
          .asHexString()
          .isEqualTo(HexFormat.of().formatHex(closing).toUpperCase(Locale.ROOT));
    }
    // The server keeps serving everyone else.
    try (StowageBoardClient fresh = StowageBoardClient.builder("127.0.0.1", tcp.port()).build()) {
      assertThat(fresh.page(1, 1)).succeedsWithin(WAIT);
    }
    assertThat(client.ping()).succeedsWithin(WAIT);
  }

  private static String message(byte[] frame) {
    return new String(frame, 11, frame.length - 11, StandardCharsets.UTF_8);
  }
}
