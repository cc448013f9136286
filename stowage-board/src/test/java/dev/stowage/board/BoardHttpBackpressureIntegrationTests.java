package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithRedis;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * HTTP clients that pipeline requests and read no response (issue 29): the service computes at most
 * one response ahead for each, serves other clients meanwhile, and closes them by the write
 * timeout; a client that pipelines and reads gets every response in order. Pages of 500 posts with
 * four 3,990-character fields (about 8 MB each), a write timeout of 2 s.
 */
@WithRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardHttpBackpressureIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final int POSTS = BoardLimits.MAX_PAGE_SIZE;
  private static final String LARGE_PAGE = "/boards?page=1&size=" + POSTS;

  private PostgresDatabase db;
  private BoardServer board;
  private HttpServerLimits limits;

  @BeforeAll
  void start(RedisServer redis) throws Exception {
    db = PostgresDatabase.create();
    board =
        BoardServer.start(
            0,
            redis.uri(),
            db.r2dbcUrl(),
            BoardMode.STOWAGE,
            FeedCompression.NONE,
            null,
            HttpOptions.builder().writeTimeout(WRITE_TIMEOUT).build(),
            true);
    limits = board.httpLimits();
    String text = "x".repeat(3990);
    for (int batch = 0; batch < 2; batch++) {
      List<Map<String, Object>> posts = new ArrayList<>();
      for (int i = batch * POSTS / 2; i < (batch + 1) * POSTS / 2; i++) {
        Map<String, Object> post = new LinkedHashMap<>(BoardPosts.post(i));
        for (String field : List.of("body", "address", "company", "job")) {
          post.put(field, i + text);
        }
        posts.add(post);
      }
      try (RawHttp connection = new RawHttp(board.port(), WAIT)) {
        connection.postJson("/boards/bulk", JSON.writeValueAsBytes(posts));
        RawHttp.Response created = connection.readResponse();
        assertThat(created.status()).as(created.text()).isBetween(200, 201);
      }
    }
  }

  @AfterAll
  void stop() throws Exception {
    if (board != null) {
      board.close();
    }
    if (db != null) {
      db.close();
    }
  }

  @BeforeEach
  void noConnectionsOpen() {
    await().atMost(WAIT).until(() -> limits.connections() == 0);
  }

  /**
   * 40 pipelined requests for pages of 500 posts, none read: one response is computed and held, the
   * other 39 requests wait unread; another client's pages are answered within 2 s each meanwhile;
   * the write timeout closes the slow connection.
   */
  @Test
  void aClientThatPipelinesPagesAndReadsNoneHasOneComputedAndIsClosedByTheWriteTimeout()
      throws Exception {
    int timeoutsBefore = limits.writeTimeouts();
    long begunBefore = limits.responsesBegun();
    long started = System.nanoTime();
    try (Socket slow = notReading()) {
      String request =
          "GET "
              + LARGE_PAGE
              + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              + "Accept: application/json\r\n\r\n";
      slow.getOutputStream().write(request.repeat(40).getBytes(StandardCharsets.US_ASCII));
      slow.getOutputStream().flush();
      await("the slow connection's first response begun")
          .atMost(WAIT)
          .until(() -> limits.responsesBegun() > begunBefore);
      AtomicInteger otherPages = new AtomicInteger();
      try (RawHttp other = new RawHttp(board.port(), WAIT)) {
        await("the slow connection closed by the write timeout")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  long asked = System.nanoTime();
                  other.get("/boards?page=1&size=5");
                  RawHttp.Response page = other.readResponse();
                  otherPages.incrementAndGet();
                  assertThat(page.status()).isEqualTo(200);
                  assertThat(JSON.readTree(page.body()).get("data")).hasSize(5);
                  assertThat(Duration.ofNanos(System.nanoTime() - asked))
                      .isLessThan(Duration.ofSeconds(2));
                  assertThat(limits.responsesBegun() - begunBefore - otherPages.get())
                      .as("responses begun for the slow connection")
                      .isLessThanOrEqualTo(1);
                  return limits.writeTimeouts() != timeoutsBefore;
                });
        assertThat(limits.writeTimeouts()).isEqualTo(timeoutsBefore + 1);
        assertThat(limits.responsesBegun() - begunBefore - otherPages.get())
            .as("responses begun for the slow connection")
            .isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .isLessThan(Duration.ofSeconds(10));
        other.get("/boards?page=1&size=5");
        assertThat(other.readResponse().status()).isEqualTo(200);
      }
      // Reading at last, the slow client gets part of the first response, then the end.
      long received = readToEnd(slow);
      assertThat(received).isPositive().isLessThan(POSTS * 4 * 3990L);
    }
  }

  /**
   * A client that pipelines a page of 500 posts, a POST with a body, a HEAD, another page, and a
   * request with {@code Connection: close} followed by one more, and reads: every response in
   * order, nothing for the request after the close, then the end of the connection.
   */
  @Test
  void aClientThatPipelinesAndReadsGetsEveryResponseInOrder() throws Exception {
    byte[] post = JSON.writeValueAsBytes(BoardPosts.post(9_999));
    String pipelined =
        "GET "
            + LARGE_PAGE
            + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "POST /boards HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: "
            + post.length
            + "\r\n\r\n"
            + new String(post, StandardCharsets.UTF_8)
            + "HEAD /boards?page=1&size=3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "GET /boards?page=1&size=3 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            + "GET /boards?page=1&size=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            + "GET /boards?page=1&size=2 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    try (RawHttp client = new RawHttp(board.port(), WAIT)) {
      client.send(pipelined);
      RawHttp.Response large = client.readResponse();
      assertThat(large.status()).isEqualTo(200);
      assertThat(JSON.readTree(large.body()).get("data")).hasSize(POSTS);
      RawHttp.Response created = client.readResponse();
      assertThat(created.status()).isBetween(200, 201);
      String id = JSON.readTree(created.body()).get("data").get("id").asText();
      RawHttp.Response head = client.readResponseHead();
      assertThat(head.status()).isEqualTo(200);
      RawHttp.Response three = client.readResponse();
      assertThat(three.status()).isEqualTo(200);
      JsonNode data = JSON.readTree(three.body()).get("data");
      assertThat(data).hasSize(3);
      assertThat(data.get(0).get("id").asText()).as("the POST was answered before").isEqualTo(id);
      RawHttp.Response last = client.readResponse();
      assertThat(last.status()).isEqualTo(200);
      assertThat(last.headers()).containsEntry("connection", "close");
      assertThat(JSON.readTree(last.body()).get("data")).hasSize(1);
      assertThat(client.endsNow()).as("nothing after the response that closes").isTrue();
    }
  }

  /** A connection from 127.0.0.1 whose receive buffer is small, so that responses back up soon. */
  private Socket notReading() throws IOException {
    Socket socket = new Socket();
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress("127.0.0.1", board.port()));
    socket.setSoTimeout((int) WAIT.toMillis());
    return socket;
  }

  /** Reads until the server's end of the connection (or its reset); the bytes read. */
  private static long readToEnd(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[65536];
    long total = 0;
    try {
      for (int n; (n = in.read(buffer)) != -1; ) {
        total += n;
      }
    } catch (SocketException e) {
      // reset after the last bytes: what was read is the answer
    }
    return total;
  }
}
