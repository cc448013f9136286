package dev.stowage.bench.http;

import dev.stowage.bench.load.Outcome;
import dev.stowage.board.client.SocketByteCounter;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.ReadTimeoutHandler;
import java.net.URI;
import java.nio.channels.ClosedChannelException;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * {@link HttpLoadClient} on Netty's HTTP codec alone: each request takes an idle keep-alive
 * connection (or opens one), writes the request, counts the response's bytes as they arrive and
 * hands the connection back when the response ends. No pool library, no reactive pipeline: the load
 * generator shares the machine's cores with the service it measures, so the less the client spends
 * on a request, the more of the machine measures the service.
 */
public final class NettyHttpLoadClient implements HttpLoadClient {
  private static final int RESPONSE_TIMEOUT_SECONDS = 60;

  private final EventLoopGroup loops;
  private final Bootstrap bootstrap;
  private final String host;
  private final int port;
  private final String hostHeader;
  private final ConcurrentLinkedQueue<Connection> idle = new ConcurrentLinkedQueue<>();
  private final SocketByteCounter wire = new SocketByteCounter();
  private volatile boolean closed;

  /**
   * A client for {@code baseUrl} ({@code http://host:port}) with {@code ioThreads} event-loop
   * threads; it opens a connection whenever no idle one is left, so it holds as many as there are
   * requests in flight at once.
   *
   * @throws IllegalArgumentException if the URL is not {@code http://host:port} or {@code
   *     ioThreads} is below 1
   */
  public NettyHttpLoadClient(String baseUrl, int ioThreads) {
    Objects.requireNonNull(baseUrl, "baseUrl");
    if (ioThreads < 1) {
      throw new IllegalArgumentException("I/O threads must be at least 1, not " + ioThreads);
    }
    URI uri = URI.create(baseUrl);
    if (!"http".equals(uri.getScheme()) || uri.getHost() == null || uri.getPort() < 0) {
      throw new IllegalArgumentException("expected http://host:port, not " + baseUrl);
    }
    this.host = uri.getHost();
    this.port = uri.getPort();
    this.hostHeader = host + ":" + port;
    boolean epoll = Epoll.isAvailable();
    this.loops =
        new MultiThreadIoEventLoopGroup(
            ioThreads, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
    this.bootstrap =
        new Bootstrap()
            .group(loops)
            .channel(epoll ? EpollSocketChannel.class : NioSocketChannel.class)
            .option(ChannelOption.TCP_NODELAY, true)
            .handler(
                new ChannelInitializer<SocketChannel>() {
                  @Override
                  protected void initChannel(SocketChannel channel) {
                    channel
                        .pipeline()
                        .addLast(wire)
                        .addLast(new ReadTimeoutHandler(RESPONSE_TIMEOUT_SECONDS, TimeUnit.SECONDS))
                        .addLast(new HttpClientCodec())
                        .addLast(new Connection(channel));
                  }
                });
  }

  @Override
  public CompletionStage<Outcome> get(String path, @Nullable String accept) {
    return send(request(HttpMethod.GET, path, accept, null, null), 0);
  }

  @Override
  public CompletionStage<Outcome> post(
      String path, String contentType, @Nullable String accept, byte[] body) {
    Objects.requireNonNull(body, "body");
    return send(request(HttpMethod.POST, path, accept, contentType, body), body.length);
  }

  private FullHttpRequest request(
      HttpMethod method,
      String path,
      @Nullable String accept,
      @Nullable String contentType,
      byte @Nullable [] body) {
    FullHttpRequest request =
        new DefaultFullHttpRequest(
            HttpVersion.HTTP_1_1,
            method,
            path,
            body == null ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(body));
    request.headers().set(HttpHeaderNames.HOST, hostHeader);
    if (accept != null) {
      request.headers().set(HttpHeaderNames.ACCEPT, accept);
    }
    if (body != null) {
      request.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
      HttpUtil.setContentLength(request, body.length);
    }
    return request;
  }

  private CompletionStage<Outcome> send(FullHttpRequest request, long sent) {
    if (closed) {
      request.release();
      return CompletableFuture.completedFuture(
          Outcome.failure(new IllegalStateException("the client is closed")));
    }
    Connection connection;
    while ((connection = idle.poll()) != null) {
      if (connection.channel.isActive()) {
        return connection.exchange(request, sent);
      }
    }
    CompletableFuture<Outcome> result = new CompletableFuture<>();
    bootstrap
        .connect(host, port)
        .addListener(
            (ChannelFuture connected) -> {
              if (!connected.isSuccess()) {
                request.release();
                result.complete(Outcome.failure(connected.cause()));
                return;
              }
              var unusedStage =
                  connected
                      .channel()
                      .pipeline()
                      .get(Connection.class)
                      .exchange(request, sent)
                      .whenComplete(
                          (outcome, error) ->
                              result.complete(error == null ? outcome : Outcome.failure(error)));
            });
    return result;
  }

  /** Bytes written to the sockets so far: request lines, headers and bodies. */
  public long wireBytesSent() {
    return wire.sent();
  }

  /** Bytes read from the sockets so far: status lines, headers and bodies. */
  public long wireBytesReceived() {
    return wire.received();
  }

  @Override
  public void close() {
    closed = true;
    idle.clear();
    loops.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
  }

  /** One keep-alive connection and the exchange in flight on it, if any. */
  private final class Connection extends SimpleChannelInboundHandler<HttpObject> {
    private final Channel channel;

    /** Touched by the caller that takes the idle connection, then only by its event loop. */
    private @Nullable CompletableFuture<Outcome> pending;

    private long sent;
    private long received;
    private int status;
    private boolean keepAlive;

    Connection(Channel channel) {
      this.channel = channel;
    }

    CompletableFuture<Outcome> exchange(FullHttpRequest request, long sentBytes) {
      CompletableFuture<Outcome> result = new CompletableFuture<>();
      if (channel.eventLoop().inEventLoop()) {
        start(request, sentBytes, result);
      } else {
        channel.eventLoop().execute(() -> start(request, sentBytes, result));
      }
      return result;
    }

    private void start(FullHttpRequest request, long sentBytes, CompletableFuture<Outcome> result) {
      if (!channel.isActive()) {
        request.release();
        result.complete(Outcome.failure(new ClosedChannelException()));
        return;
      }
      pending = result;
      sent = sentBytes;
      received = 0;
      status = 0;
      channel
          .writeAndFlush(request)
          .addListener(
              (ChannelFutureListener)
                  written -> {
                    if (!written.isSuccess()) {
                      fail(written.cause());
                      var unusedClose = written.channel().close();
                    }
                  });
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject message) {
      if (message instanceof HttpResponse response) {
        status = response.status().code();
        keepAlive = HttpUtil.isKeepAlive(response);
      }
      if (message instanceof HttpContent content) {
        received += content.content().readableBytes();
      }
      if (message instanceof LastHttpContent && pending != null) {
        CompletableFuture<Outcome> done = pending;
        pending = null;
        Outcome outcome =
            status / 100 == 2
                ? Outcome.success(sent + received)
                : Outcome.failure(HttpLoadClient.statusFailure(status));
        if (keepAlive && !closed) {
          idle.offer(this);
        } else {
          var unusedClose2 = ctx.close();
        }
        done.complete(outcome);
      }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      fail(new ClosedChannelException());
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail(cause);
      var unusedClose3 = ctx.close();
    }

    private void fail(Throwable cause) {
      CompletableFuture<Outcome> done = pending;
      pending = null;
      if (done != null) {
        done.complete(Outcome.failure(cause));
      }
    }
  }
}
