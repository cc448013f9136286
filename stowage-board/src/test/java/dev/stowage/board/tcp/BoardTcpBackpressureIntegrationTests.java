package dev.stowage.board.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.board.BoardMode;
import dev.stowage.board.BoardServer;
import dev.stowage.board.FeedCompression;
import dev.stowage.board.client.StowageBoardClient;
import dev.stowage.board.protocol.BoardProtocol;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Clients that send page requests and never read their replies (issue 29): the server stops reading
 * them, holds at most {@link TcpOptions#maxUnsentBytes()} of replies unsent for each, and closes
 * them (by the write timeout, or when a reply would pass the bound), while another client is served
 * throughout. Pages of posts with 4,000-character fields, as in the issue; a bound of 8 MiB and a
 * write timeout of 1 s keep it to seconds.
 */
@WithRedis
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BoardTcpBackpressureIntegrationTests {
  private static final int MAX_UNSENT = 8 * 1024 * 1024;
  private static final Duration WRITE_TIMEOUT = Duration.ofSeconds(1);
  private static final int POSTS = 100;
  private static final Duration WAIT = Duration.ofSeconds(20);

  private BoardServer board;
  private BoardTcpServer tcp;

  @BeforeAll
  void start(RedisServer redis) throws Exception {
    board =
        BoardServer.start(
            0,
            redis.uri(),
            null,
            BoardMode.STOWAGE,
            FeedCompression.NONE,
            TcpOptions.builder()
                .port(0)
                .idleTimeout(Duration.ofSeconds(2))
                .readTimeout(Duration.ofSeconds(1))
                .maxUnsentBytes(MAX_UNSENT)
                .writeTimeout(WRITE_TIMEOUT)
                .build());
    tcp = board.tcp();
    List<NewBoard> posts = new ArrayList<>();
    String text = "x".repeat(3990);
    for (int i = 0; i < POSTS; i++) {
      posts.add(
          new NewBoard(
              90_000L + i,
              "Long post " + i,
              i + text,
              i + text,
              "Chile",
              "Engineer",
              "4716296968179136",
              "333-96-3366",
              i + text,
              "+1-610-354-4229"));
    }
    try (StowageBoardClient client =
        StowageBoardClient.builder("127.0.0.1", tcp.port()).requestTimeout(WAIT).build()) {
      assertThat(client.createAll(posts)).succeedsWithin(WAIT);
    }
  }

  @AfterAll
  void stop() {
    if (board != null) {
      board.close();
    }
  }

  @BeforeEach
  void noConnectionsOpen() {
    await().atMost(WAIT).until(() -> tcp.openConnections() == 0);
  }

  /**
   * A client that sends a page request (25 long posts, about 300 KB) every 40 ms and reads none:
   * the server stops reading it once half the bound is unsent, never holds more than the bound for
   * it, and closes it by the write timeout; another client's pages are answered meanwhile.
   */
  @Test
  void aClientThatDoesNotReadIsPausedBoundedAndClosedByTheWriteTimeout() throws Exception {
    int writeTimeoutsBefore = tcp.connections().writeTimeouts();
    int overflowsBefore = tcp.connections().unsentOverflows();
    long started = System.nanoTime();
    try (Socket slow = notReading()) {
      AtomicBoolean stop = new AtomicBoolean();
      AtomicInteger sent = new AtomicInteger();
      CompletableFuture<Void> sender =
          CompletableFuture.runAsync(
              () -> {
                try {
                  OutputStream out = slow.getOutputStream();
                  while (!stop.get() && sent.get() < 2000) {
                    out.write(pageFrame(sent.get() + 1, 25));
                    out.flush();
                    sent.incrementAndGet();
                    Thread.sleep(40);
                  }
                } catch (IOException e) {
                  // the server closed the connection
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      try (StowageBoardClient other =
          StowageBoardClient.builder("127.0.0.1", tcp.port()).requestTimeout(WAIT).build()) {
        // Another client is served throughout, until the slow connection is closed by the write
        // timeout.
        await("the slow connection closed by the write timeout")
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(50))
            .until(
                () -> {
                  long asked = System.nanoTime();
                  assertThat(other.page(1, 5))
                      .succeedsWithin(WAIT)
                      .satisfies(page -> assertThat(page).hasSize(5));
                  assertThat(Duration.ofNanos(System.nanoTime() - asked))
                      .isLessThan(Duration.ofSeconds(2));
                  return tcp.connections().writeTimeouts() != writeTimeoutsBefore;
                });
        assertThat(tcp.connections().writeTimeouts())
            .as(
                "the slow connection is closed by the write timeout (%s requests sent, %s bytes"
                    + " unsent at most, %s closed past the bound)",
                sent.get(), tcp.connections().peakUnsent(), tcp.connections().unsentOverflows())
            .isEqualTo(writeTimeoutsBefore + 1);
        assertThat(tcp.connections().unsentOverflows()).isEqualTo(overflowsBefore);
        assertThat(tcp.connections().peakUnsent())
            .as("bytes of replies held unsent for one connection")
            .isLessThanOrEqualTo(MAX_UNSENT);
        // The write timeout is counted from a reply left unsent, a few seconds in at most.
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .isLessThan(Duration.ofSeconds(10));
        assertThat(other.page(1, 5)).succeedsWithin(WAIT);
      } finally {
        stop.set(true);
        sender.get();
      }
    }
    await().atMost(WAIT).until(() -> tcp.openConnections() == 0);
  }

  /**
   * A client that sends 40 page requests (100 long posts, about 1.2 MB each) at once and reads
   * none: every one is run, but the server never holds more than the bound unsent for it; it closes
   * the connection (when a reply would pass the bound, or by the write timeout).
   */
  @Test
  void aBurstOfLargePagesNeverHoldsMoreThanTheBound() throws Exception {
    int closedBefore = tcp.connections().writeTimeouts() + tcp.connections().unsentOverflows();
    try (Socket slow = notReading()) {
      ByteArrayOutputStream frames = new ByteArrayOutputStream();
      for (int i = 1; i <= 40; i++) {
        frames.write(pageFrame(i, POSTS));
      }
      slow.getOutputStream().write(frames.toByteArray());
      slow.getOutputStream().flush();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  tcp.connections().writeTimeouts() + tcp.connections().unsentOverflows()
                      > closedBefore);
      assertThat(tcp.connections().peakUnsent()).isLessThanOrEqualTo(MAX_UNSENT);
      await().atMost(WAIT).until(() -> tcp.openConnections() == 0);
    }
  }

  /**
   * Pages of 100 posts under a bound of 150 posts in flight run one at a time, though all are sent
   * at once; a page of 500, larger than the bound, runs once nothing else is in flight, and the
   * requests behind it are answered too.
   */
  @Test
  void pagesRunWithinThePostsInFlightAndOneLargerThanTheBoundRunsAlone() throws Exception {
    // A Redis of its own: this service's refill would replace the feed of the class's service.
    try (RedisServer redis = RedisServer.start();
        BoardServer small =
            BoardServer.start(
                0,
                redis.uri(),
                null,
                BoardMode.STOWAGE,
                FeedCompression.NONE,
                TcpOptions.builder().port(0).maxPostsInFlight(150).build())) {
      BoardTcpServer server = small.tcp();
      try (StowageBoardClient client =
          StowageBoardClient.builder("127.0.0.1", server.port()).requestTimeout(WAIT).build()) {
        assertThat(client.createAll(TestPosts.posts(0, 120))).succeedsWithin(WAIT);
      }
      try (RawConnection raw = new RawConnection(server.port(), WAIT)) {
        ByteArrayOutputStream pages = new ByteArrayOutputStream();
        for (int i = 1; i <= 5; i++) {
          pages.write(pageFrame(i, 100));
        }
        raw.send(pages.toByteArray());
        assertRepliesOk(raw, 5);
        assertThat(server.connections().peakPostsInFlight()).isEqualTo(100);

        raw.send(pageFrame(6, 100));
        raw.send(pageFrame(7, 500));
        raw.send(pageFrame(8, 100));
        raw.sendFrame(BoardProtocol.OP_PING, 9, new byte[0]);
        assertRepliesOk(raw, 4);
        assertThat(server.connections().peakPostsInFlight()).isEqualTo(500);
      }
    }
  }

  private static void assertRepliesOk(RawConnection raw, int replies) throws IOException {
    for (int i = 0; i < replies; i++) {
      assertThat(raw.readFrame()[4])
          .as("reply %s of %s", i + 1, replies)
          .isEqualTo((byte) BoardProtocol.REPLY_OK);
    }
  }

  /** A connection from 127.0.0.1 whose receive buffer is small, so that replies back up soon. */
  private Socket notReading() throws IOException {
    Socket socket = new Socket();
    socket.setReceiveBufferSize(4096);
    socket.connect(new InetSocketAddress("127.0.0.1", tcp.port()));
    return socket;
  }

  /** A page request frame with a JSON body. */
  private static byte[] pageFrame(int id, int size) {
    byte[] json = ("[1," + size + "]").getBytes(StandardCharsets.US_ASCII);
    byte[] body = new byte[4 + json.length];
    body[0] = (byte) 0xc1;
    body[1] = 0x10;
    body[2] = BoardProtocol.CODEC_JSON;
    System.arraycopy(json, 0, body, 4, json.length);
    return RawConnection.frame(BoardProtocol.OP_PAGE, id, body);
  }
}
