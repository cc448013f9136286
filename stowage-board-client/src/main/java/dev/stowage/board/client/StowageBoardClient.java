package dev.stowage.board.client;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.BoardMappers;
import dev.stowage.board.protocol.BoardProtocol;
import dev.stowage.board.protocol.NewBoard;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.net.ssl.SSLException;
import org.jspecify.annotations.Nullable;

/**
 * A client of the board's TCP protocol ({@code docs/PROTOCOL.md}). It keeps one connection and
 * multiplexes every request over it: each request gets an id, and its future completes when the
 * reply with that id arrives, in whatever order replies come. When the connection drops (the server
 * closed an idle connection, a network failure), requests in flight fail with {@link
 * BoardClientException} and the next request connects again.
 *
 * <pre>{@code
 * try (StowageBoardClient client = StowageBoardClient.builder("127.0.0.1", 7070).build()) {
 *   Board created = client.create(post).join();
 *   List<Board> newest = client.page(1, 25).join();
 * }
 * }</pre>
 *
 * <p>Every method returns at once; its future completes on the client's I/O thread, so callbacks
 * should not block. A future fails with {@link BoardClientException}: an error reply (its code,
 * such as 400), a lost connection, or the request timeout. Thread-safe.
 */
public final class StowageBoardClient implements AutoCloseable {
  /** Time allowed for each request's reply by default: 10 s. */
  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);

  /** Time allowed to connect (and finish the TLS handshake) by default: 5 s. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** Largest reply frame the client reads by default: 64 MiB. */
  public static final int DEFAULT_MAX_FRAME_BYTES = 64 * 1024 * 1024;

  private final String host;
  private final int port;
  private final String serverName;
  private final @Nullable SslContext ssl;
  private final long requestTimeoutNanos;
  private final Duration connectTimeout;
  private final int maxFrameBytes;
  private final int codec;
  private final EventLoopGroup group;
  private final ObjectMapper mapper;
  private final JavaType boardList;
  private final AtomicInteger nextId = new AtomicInteger();
  private final AtomicLong connections = new AtomicLong();
  private final SocketByteCounter wire = new SocketByteCounter();
  private final Object lock = new Object();
  private @Nullable CompletableFuture<Connection> current;
  private volatile boolean closed;

  private StowageBoardClient(Builder b) throws SSLException {
    this.host = b.host;
    this.port = b.port;
    this.serverName = b.serverName != null ? b.serverName : b.host;
    this.requestTimeoutNanos = b.requestTimeout.toNanos();
    this.connectTimeout = b.connectTimeout;
    this.maxFrameBytes = b.maxFrameBytes;
    this.codec = b.json ? BoardProtocol.CODEC_JSON : BoardProtocol.CODEC_MSGPACK;
    if (b.trustAll) {
      ssl =
          SslContextBuilder.forClient().trustManager(InsecureTrustManagerFactory.INSTANCE).build();
    } else if (b.trustedCertificate != null) {
      ssl =
          SslContextBuilder.forClient()
              .trustManager(b.trustedCertificate.toFile())
              .endpointIdentificationAlgorithm("HTTPS")
              .build();
    } else {
      ssl = null;
    }
    this.mapper = b.json ? BoardMappers.json() : BoardMappers.msgpack();
    this.boardList = mapper.getTypeFactory().constructCollectionType(List.class, Board.class);
    this.group =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("stowage-board-client", true), NioIoHandler.newFactory());
  }

  /** A builder for a client of the server at {@code host:port}. */
  public static Builder builder(String host, int port) {
    return new Builder(host, port);
  }

  /** Creates one post; completes with it as stored (id, score and dates assigned). */
  public CompletableFuture<Board> create(NewBoard post) {
    Objects.requireNonNull(post, "post");
    return send(BoardProtocol.OP_CREATE, encode(post), reply -> decode(reply, Board.class));
  }

  /** Creates 1 to 1,000 posts at once (all or none); completes with them as stored. */
  public CompletableFuture<List<Board>> createAll(List<NewBoard> posts) {
    Objects.requireNonNull(posts, "posts");
    return send(BoardProtocol.OP_CREATE_ALL, encode(posts), reply -> decode(reply, boardList));
  }

  /** A page of posts, newest first; {@code page} from 1, {@code size} from 1 to 500. */
  public CompletableFuture<List<Board>> page(int page, int size) {
    return send(
        BoardProtocol.OP_PAGE, encode(new int[] {page, size}), reply -> decode(reply, boardList));
  }

  /**
   * A page as the reply's body: the 4-byte envelope header and the encoded array of posts, as they
   * came off the wire, without decoding them (what a benchmark measures).
   */
  public CompletableFuture<byte[]> pageBytes(int page, int size) {
    return send(BoardProtocol.OP_PAGE, encode(new int[] {page, size}), reply -> reply);
  }

  /** The post with {@code id}, or empty when the server knows no such post. */
  public CompletableFuture<Optional<Board>> get(String id) {
    Objects.requireNonNull(id, "id");
    CompletableFuture<Optional<Board>> result = new CompletableFuture<>();
    var unusedStage =
        send(BoardProtocol.OP_GET, encode(id), reply -> decode(reply, Board.class))
            .whenComplete(
                (board, failure) -> {
                  if (failure == null) {
                    result.complete(Optional.of(board));
                  } else if (failure instanceof BoardClientException e
                      && e.code() == BoardProtocol.ERROR_NOT_FOUND) {
                    result.complete(Optional.empty());
                  } else {
                    result.completeExceptionally(failure);
                  }
                });
    return result;
  }

  /** A round trip with an empty body. */
  public CompletableFuture<Void> ping() {
    return send(BoardProtocol.OP_PING, new byte[0], reply -> null);
  }

  /** Connections opened so far (1 while the first stays up; more after reconnections). */
  public long connections() {
    return connections.get();
  }

  /**
   * Bytes this client has written to its sockets, on every connection so far: frames, and with TLS
   * the records that carry them, handshakes included.
   */
  public long bytesSent() {
    return wire.sent();
  }

  /** Bytes this client has read from its sockets, counted as {@link #bytesSent()} is. */
  public long bytesReceived() {
    return wire.received();
  }

  /** Closes the connection and the client's I/O thread; requests in flight fail. */
  @Override
  public void close() {
    closed = true;
    CompletableFuture<Connection> last;
    synchronized (lock) {
      last = current;
      current = null;
    }
    if (last != null && last.isDone() && !last.isCompletedExceptionally()) {
      last.join().channel.close().awaitUninterruptibly(5000);
    }
    group.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly(5000);
  }

  private byte[] encode(Object value) {
    try {
      byte[] payload = mapper.writeValueAsBytes(value);
      byte[] body = new byte[4 + payload.length];
      body[0] = (byte) 0xC1;
      body[1] = 0x10;
      body[2] = (byte) codec;
      System.arraycopy(payload, 0, body, 4, payload.length);
      return body;
    } catch (IOException e) {
      throw new BoardClientException(0, "cannot encode the request: " + e.getMessage(), false, e);
    }
  }

  private <T> T decode(byte[] reply, Class<T> type) {
    return decode(reply, mapper.constructType(type));
  }

  @SuppressWarnings(
      "TypeParameterUnusedInFormals") // T is the type the JavaType describes, as in Jackson's
  // readValue
  private <T> T decode(byte[] reply, JavaType type) {
    if (reply.length < 4 || (reply[0] & 0xFF) != 0xC1 || (reply[2] & 0xFF) != codec) {
      throw new BoardClientException(
          0, "the reply is not an envelope of codec " + codec, false, null);
    }
    try {
      return mapper.readValue(reply, 4, reply.length - 4, type);
    } catch (IOException e) {
      throw new BoardClientException(0, "cannot decode the reply: " + e.getMessage(), false, e);
    }
  }

  /** Sends one request; the future completes with the decoded reply body. */
  private <T> CompletableFuture<T> send(int type, byte[] body, Function<byte[], T> decoder) {
    CompletableFuture<T> result = new CompletableFuture<>();
    send(type, body, decoder, result, true);
    return result;
  }

  /**
   * A request that meets a connection the server closed as idle is sent once more on a new
   * connection: the server closes an idle connection only with nothing in flight and discards what
   * arrives after, so the request was not run.
   */
  private <T> void send(
      int type,
      byte[] body,
      Function<byte[], T> decoder,
      CompletableFuture<T> result,
      boolean mayRetry) {
    if (closed) {
      result.completeExceptionally(
          new BoardClientException(0, "the client is closed", false, null));
      return;
    }
    var unusedStage2 =
        connection()
            .whenComplete(
                (connection, failure) -> {
                  if (failure != null) {
                    result.completeExceptionally(
                        failure instanceof BoardClientException
                            ? failure
                            : new BoardClientException(
                                0,
                                "cannot connect to "
                                    + host
                                    + ":"
                                    + port
                                    + ": "
                                    + failure.getMessage(),
                                false,
                                failure));
                    return;
                  }
                  var unusedStage3 =
                      connection
                          .send(type, body)
                          .whenComplete(
                              (reply, error) -> {
                                if (error instanceof BoardClientException e
                                    && mayRetry
                                    && e.code() == BoardProtocol.CLOSE_IDLE) {
                                  send(type, body, decoder, result, false);
                                  return;
                                }
                                if (error != null) {
                                  result.completeExceptionally(error);
                                  return;
                                }
                                try {
                                  result.complete(decoder.apply(reply));
                                } catch (RuntimeException e) {
                                  result.completeExceptionally(e);
                                }
                              });
                });
  }

  /** The live connection, connecting when there is none (or the last one dropped). */
  private CompletableFuture<Connection> connection() {
    synchronized (lock) {
      CompletableFuture<Connection> existing = current;
      if (existing != null
          && (!existing.isDone()
              || (!existing.isCompletedExceptionally()
                  && existing.join().channel.isActive()
                  && existing.join().closedBy == null))) {
        return existing;
      }
      CompletableFuture<Connection> connecting = new CompletableFuture<>();
      current = connecting;
      connect(connecting);
      return connecting;
    }
  }

  private void connect(CompletableFuture<Connection> connecting) {
    Connection connection = new Connection();
    Bootstrap bootstrap =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis())
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    channel.pipeline().addLast(wire);
                    if (ssl != null) {
                      var handler = ssl.newHandler(channel.alloc(), serverName, port);
                      handler.setHandshakeTimeoutMillis(connectTimeout.toMillis());
                      channel.pipeline().addLast(handler);
                    }
                    channel
                        .pipeline()
                        .addLast(new FlushConsolidationHandler(256, true))
                        .addLast(new LengthFieldBasedFrameDecoder(maxFrameBytes + 4, 0, 4, 0, 4))
                        .addLast(connection);
                  }
                });
    ChannelFuture future = bootstrap.connect(host, port);
    future.addListener(
        f -> {
          if (!f.isSuccess()) {
            connecting.completeExceptionally(
                new BoardClientException(
                    0,
                    "cannot connect to " + host + ":" + port + ": " + f.cause(),
                    false,
                    f.cause()));
            return;
          }
          connections.incrementAndGet();
          connection.channel = future.channel();
          var sslHandler = future.channel().pipeline().get(SslHandler.class);
          if (sslHandler == null) {
            connecting.complete(connection);
          } else {
            sslHandler
                .handshakeFuture()
                .addListener(
                    h -> {
                      if (h.isSuccess()) {
                        connecting.complete(connection);
                      } else {
                        connecting.completeExceptionally(
                            new BoardClientException(
                                0,
                                "TLS handshake with " + host + ":" + port + " failed: " + h.cause(),
                                false,
                                h.cause()));
                      }
                    });
          }
        });
  }

  /** One connection and the requests waiting on it. */
  private final class Connection extends ChannelInboundHandlerAdapter {
    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();

    // Set when the connect succeeds, before the connection's future completes: nothing reaches a
    // Connection earlier.
    @SuppressWarnings("NullAway.Init")
    private volatile Channel channel;

    private volatile @Nullable BoardClientException closedBy;

    CompletableFuture<byte[]> send(int type, byte[] body) {
      Pending request = new Pending();
      int id;
      do {
        id = nextId.incrementAndGet();
      } while (id == 0 || pending.putIfAbsent(id, request) != null);
      int requestId = id;
      BoardClientException gone = closedBy;
      if (gone != null || !channel.isActive()) {
        pending.remove(requestId);
        request.future.completeExceptionally(
            gone != null
                ? gone
                : new BoardClientException(
                    0, "the connection to " + host + ":" + port + " is closed", false, null));
        return request.future;
      }
      request.timeout =
          channel
              .eventLoop()
              .schedule(
                  () -> {
                    if (pending.remove(requestId) != null) {
                      request.future.completeExceptionally(
                          new BoardClientException(
                              0,
                              "no reply to request "
                                  + requestId
                                  + " within "
                                  + TimeUnit.NANOSECONDS.toMillis(requestTimeoutNanos)
                                  + " ms",
                              true,
                              null));
                    }
                  },
                  requestTimeoutNanos,
                  TimeUnit.NANOSECONDS);
      ByteBuf frame = channel.alloc().buffer(9 + body.length);
      frame
          .writeInt(BoardProtocol.FRAME_HEADER_BYTES + body.length)
          .writeByte(type)
          .writeInt(requestId)
          .writeBytes(body);
      channel
          .writeAndFlush(frame)
          .addListener(
              f -> {
                if (!f.isSuccess() && pending.remove(requestId) != null) {
                  request.timeout.cancel(false);
                  request.future.completeExceptionally(
                      new BoardClientException(
                          0,
                          "cannot send to " + host + ":" + port + ": " + f.cause(),
                          false,
                          f.cause()));
                }
              });
      return request.future;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ByteBuf frame = (ByteBuf) msg;
      try {
        if (frame.readableBytes() < BoardProtocol.FRAME_HEADER_BYTES) {
          fail(
              new BoardClientException(
                  0,
                  "the server sent a frame of "
                      + frame.readableBytes()
                      + " bytes, too short for a type and a request id",
                  false,
                  null));
          var unusedClose = ctx.close();
          return;
        }
        int type = frame.readUnsignedByte();
        int id = frame.readInt();
        if (type == BoardProtocol.REPLY_CLOSING) {
          int code = frame.readableBytes() >= 2 ? frame.readUnsignedShort() : 0;
          String message = frame.toString(StandardCharsets.UTF_8);
          closedBy =
              new BoardClientException(
                  code, "the server closed the connection: " + code + " " + message, false, null);
          fail(closedBy);
          return;
        }
        Pending request = pending.remove(id);
        if (request == null) {
          return;
        }
        request.timeout.cancel(false);
        if (type == BoardProtocol.REPLY_OK) {
          byte[] body = new byte[frame.readableBytes()];
          frame.readBytes(body);
          request.future.complete(body);
        } else {
          int code = frame.readableBytes() >= 2 ? frame.readUnsignedShort() : 0;
          request.future.completeExceptionally(
              new BoardClientException(code, frame.toString(StandardCharsets.UTF_8), false, null));
        }
      } finally {
        frame.release();
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      if (closedBy == null) {
        closedBy =
            new BoardClientException(
                0, "the connection to " + host + ":" + port + " closed", false, null);
      }
      fail(closedBy);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      closedBy =
          new BoardClientException(
              0, "the connection to " + host + ":" + port + " failed: " + cause, false, cause);
      fail(closedBy);
      var unusedClose2 = ctx.close();
    }

    @SuppressWarnings(
        "ModifyCollectionInEnhancedForLoop") // pending is a ConcurrentHashMap, whose key set
    // iterates while entries go
    private void fail(BoardClientException failure) {
      for (Integer id : pending.keySet()) {
        Pending request = pending.remove(id);
        if (request != null) {
          if (request.timeout != null) {
            request.timeout.cancel(false);
          }
          request.future.completeExceptionally(failure);
        }
      }
    }
  }

  private static final class Pending {
    final CompletableFuture<byte[]> future = new CompletableFuture<>();

    // Set by send() before the request is written, so before any reply or write failure reads it.
    @SuppressWarnings("NullAway.Init")
    volatile ScheduledFuture<?> timeout;
  }

  /** Builds a {@link StowageBoardClient}; not thread-safe. */
  public static final class Builder {
    private final String host;
    private final int port;
    private @Nullable Path trustedCertificate;
    private @Nullable String serverName;
    private boolean trustAll;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
    private boolean json;

    private Builder(String host, int port) {
      this.host = Objects.requireNonNull(host, "host");
      if (port < 1 || port > 65535) {
        throw new IllegalArgumentException("port must be from 1 to 65535, got " + port);
      }
      this.port = port;
    }

    /**
     * Connects with TLS, trusting the server certificate (or its CA) in this PEM file. The server's
     * certificate must also name the host the client connects to, or the {@linkplain #tlsServerName
     * name} given instead.
     */
    public Builder tls(Path trustedCertificate) {
      this.trustedCertificate = Objects.requireNonNull(trustedCertificate, "trustedCertificate");
      return this;
    }

    /**
     * The name the server's certificate must carry (and the SNI name sent), when it is not the host
     * connected to: for instance {@code localhost} for a self-signed certificate reached at {@code
     * 127.0.0.1}.
     */
    public Builder tlsServerName(String serverName) {
      this.serverName = Objects.requireNonNull(serverName, "serverName");
      return this;
    }

    /**
     * Connects with TLS and accepts <b>any</b> server certificate. <b>Warning:</b> this defeats
     * TLS's protection against an impostor; it is for tests and benchmarks against a self-signed
     * certificate, never for production.
     */
    public Builder tlsTrustingAnyCertificateInsecurely() {
      this.trustAll = true;
      return this;
    }

    /** Time each request may wait for its reply ({@link #DEFAULT_REQUEST_TIMEOUT}). */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = positive(requestTimeout, "requestTimeout");
      return this;
    }

    /** Time to connect and finish the TLS handshake ({@link #DEFAULT_CONNECT_TIMEOUT}). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = positive(connectTimeout, "connectTimeout");
      return this;
    }

    /** Largest reply frame read ({@link #DEFAULT_MAX_FRAME_BYTES}). */
    public Builder maxFrameBytes(int maxFrameBytes) {
      if (maxFrameBytes < 64) {
        throw new IllegalArgumentException(
            "maxFrameBytes must be at least 64, got " + maxFrameBytes);
      }
      this.maxFrameBytes = maxFrameBytes;
      return this;
    }

    /** Sends and receives JSON bodies instead of MessagePack (the default). */
    public Builder json() {
      this.json = true;
      return this;
    }

    /**
     * Builds the client; it connects at its first request.
     *
     * @throws IllegalArgumentException if both {@link #tls} and the insecure trust are set, or the
     *     certificate cannot be read
     */
    public StowageBoardClient build() {
      if (trustAll && trustedCertificate != null) {
        throw new IllegalArgumentException(
            "give either a trusted certificate or"
                + " tlsTrustingAnyCertificateInsecurely(), not both");
      }
      try {
        return new StowageBoardClient(this);
      } catch (SSLException | RuntimeException e) {
        throw new IllegalArgumentException(
            "cannot set up TLS with " + trustedCertificate + ": " + e.getMessage(), e);
      }
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException(name + " must be positive, got " + value);
      }
      return value;
    }
  }
}
