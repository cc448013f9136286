package dev.stowage.board;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.timeout.WriteTimeoutHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/**
 * Applies {@link HttpOptions} to the HTTP API's Reactor Netty server: its idle timeout (Reactor
 * Netty's own, as {@code server.netty.idle-timeout} sets it); a 503 and the close for every
 * connection beyond {@link HttpOptions#maxConnectionsPerAddress()} from its remote address, as soon
 * as it is accepted, so that one address cannot take every connection; for a connection beyond
 * {@link HttpOptions#maxConnections()}, the close of the longest idle connection kept to make room
 * (see {@link Idleness}), or, when none is idle, the 503 and the close; and on every connection
 * kept the request read timeout ({@link HttpRequestDeadline}), backpressure ({@link
 * HttpBackpressure}) and the write timeout. Thread-safe.
 */
final class HttpServerLimits implements NettyServerCustomizer {
  private static final Logger log = LoggerFactory.getLogger(HttpServerLimits.class);

  private final HttpOptions options;
  private final AtomicInteger admitted = new AtomicInteger();
  private final Set<HttpBackpressure> kept = ConcurrentHashMap.newKeySet();
  private final AtomicInteger writeTimeouts = new AtomicInteger();
  private final AtomicInteger evictions = new AtomicInteger();
  private final LongAdder responsesBegun = new LongAdder();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
  private final byte[] fullResponse;
  private final byte[] timeoutResponse;
  private final BoardFormats formats;

  HttpServerLimits(HttpOptions options, BoardFormats formats) {
    this.options = options;
    this.formats = formats;
    this.fullResponse =
        closingResponse(
            503,
            "Service Unavailable",
            formats.error(
                503,
                "the server holds its maximum of "
                    + options.maxConnections()
                    + " HTTP connections"
                    + " and none is idle; try again later"));
    this.timeoutResponse =
        closingResponse(
            408,
            "Request Timeout",
            formats.error(
                408,
                "the request did not arrive within the request read timeout of "
                    + options.requestReadTimeout().toMillis()
                    + " ms from its first byte"));
  }

  @Override
  public HttpServer apply(HttpServer server) {
    // The value of server.netty.idle-timeout when it is set (Spring Boot then applies it too).
    return server
        .idleTimeout(options.idleTimeout())
        // The callback's address is the server's own: the client's is the channel's remote one.
        .doOnChannelInit((observer, channel, address) -> install(channel, channel.remoteAddress()));
  }

  /**
   * HTTP connections kept now (one more for a moment while a newcomer takes an idle one's place).
   */
  int connections() {
    return admitted.get();
  }

  /** HTTP connections kept now that are idle, waiting for their next request. */
  int idleConnections() {
    return Idleness.countIdle(kept, HttpBackpressure::idleness);
  }

  /** Connections closed by the write timeout so far. */
  int writeTimeouts() {
    return writeTimeouts.get();
  }

  /** Idle connections closed to make room for a newcomer so far. */
  int evictions() {
    return evictions.get();
  }

  /** Responses (not informational ones) begun on every connection so far. */
  long responsesBegun() {
    return responsesBegun.sum();
  }

  private void install(Channel channel, @Nullable SocketAddress remoteAddress) {
    ChannelPipeline pipeline = channel.pipeline();
    InetAddress address =
        remoteAddress instanceof InetSocketAddress remote
            ? remote.getAddress()
            : InetAddress.getLoopbackAddress();
    if (perAddress.merge(address, 1, Integer::sum) > options.maxConnectionsPerAddress()) {
      release(address);
      pipeline.addFirst(
          "stowage.http.shed",
          new Shed(
              closingResponse(
                  503,
                  "Service Unavailable",
                  formats.error(
                      503,
                      "the server holds its maximum of "
                          + options.maxConnectionsPerAddress()
                          + " HTTP connections from "
                          + address.getHostAddress()
                          + "; close one first"))));
      return;
    }
    Idleness idleness = new Idleness();
    idleness.idle();
    HttpRequestDeadline deadline =
        new HttpRequestDeadline(
            options,
            timeoutResponse,
            this::codecFailure,
            new HttpRequestDeadline.Events() {
              @Override
              public void requestBegun() {
                idleness.busy();
              }

              @Override
              public void responseBegun() {
                responsesBegun.increment();
              }
            });
    HttpBackpressure connection =
        new HttpBackpressure(idleness, deadline::reading, options.maxUnsentBytes());
    if (admitted.incrementAndGet() > options.maxConnections()) {
      HttpBackpressure idlest = Idleness.chooseIdlest(kept, HttpBackpressure::idleness);
      if (idlest == null) {
        admitted.decrementAndGet();
        release(address);
        pipeline.addFirst("stowage.http.shed", new Shed(fullResponse));
        return;
      }
      evictions.incrementAndGet();
      idlest.evict();
    }
    channel
        .closeFuture()
        .addListener(
            closed -> {
              kept.remove(connection);
              admitted.decrementAndGet();
              release(address);
            });
    if (pipeline.get(NettyPipeline.HttpCodec) == null) {
      return; // not HTTP/1.1: never idle, so never closed to make room
    }
    kept.add(connection);
    pipeline.addFirst("stowage.http.requestStart", deadline.requestStart());
    // Nearest the socket: it times every write, the deadline's own responses included.
    pipeline.addFirst("stowage.http.writeTimeout", new WriteTimeout());
    // The deadline sees each request as it arrives; the backpressure, behind it, holds it.
    pipeline.addAfter(NettyPipeline.HttpCodec, "stowage.http.requestEnd", deadline.requestEnd());
    pipeline.addAfter("stowage.http.requestEnd", "stowage.http.backpressure", connection);
  }

  /**
   * The closing response to a request the HTTP codec could not decode, in the service's words: 414
   * for a request line beyond its limit, 431 for headers beyond theirs, 400 for the rest.
   */
  private byte[] codecFailure(Throwable cause, @Nullable String bothLengths) {
    String limit = cause.getMessage() == null ? "" : " (" + cause.getMessage().strip() + ")";
    if (cause instanceof TooLongHttpLineException) {
      return closingResponse(
          414,
          "URI Too Long",
          formats.error(
              414,
              "the request line (method,"
                  + " target and version) is longer than the server's limit"
                  + limit));
    }
    if (cause instanceof TooLongHttpHeaderException) {
      return closingResponse(
          431,
          "Request Header Fields Too Large",
          formats.error(431, "the request's headers are larger than the server's limit" + limit));
    }
    String message;
    if (bothLengths != null
        || (cause.getMessage() != null
            && cause.getMessage().toLowerCase(Locale.ROOT).contains("content-length"))) {
      message =
          "the request has both Content-Length and Transfer-Encoding, or a Content-Length"
              + " that is not one whole number; send one length";
    } else if (cause instanceof TooLongFrameException) {
      message =
          "a line of the request (a header or a chunk's size) is longer than the server's"
              + " limit"
              + limit;
    } else {
      message =
          "the request is not valid HTTP/1.1: its request line (method, target and"
              + " version), a header or a chunk is malformed";
    }
    return closingResponse(400, "Bad Request", formats.error(400, message));
  }

  private void release(InetAddress address) {
    perAddress.computeIfPresent(address, (key, count) -> count == 1 ? null : count - 1);
  }

  /** A whole HTTP/1.1 response with a JSON body, after which the connection closes. */
  private static byte[] closingResponse(int status, String reason, byte[] json) {
    byte[] head =
        ("HTTP/1.1 "
                + status
                + " "
                + reason
                + "\r\ncontent-type: application/json\r\n"
                + "content-length: "
                + json.length
                + "\r\nconnection: close\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    byte[] response = new byte[head.length + json.length];
    System.arraycopy(head, 0, response, 0, head.length);
    System.arraycopy(json, 0, response, head.length, json.length);
    return response;
  }

  /**
   * Closes the connection at once when a write has not completed within {@link
   * HttpOptions#writeTimeout()} (its client does not read), releasing what it holds unsent: Netty's
   * handler, counting the close and logging it in one debug line rather than passing Netty's {@code
   * WriteTimeoutException} down the pipeline, where it would be logged as an error on every
   * occurrence.
   */
  private final class WriteTimeout extends WriteTimeoutHandler {
    private boolean closed;

    WriteTimeout() {
      super(options.writeTimeout().toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    protected void writeTimedOut(ChannelHandlerContext ctx) {
      if (closed) {
        return;
      }
      closed = true;
      writeTimeouts.incrementAndGet();
      log.debug(
          "closing {}: a write has not left the server within the write timeout of {} ms",
          ctx.channel().remoteAddress(),
          options.writeTimeout().toMillis());
      var unusedClose = ctx.close();
    }
  }

  /** Turns away a connection beyond the maximum: 503, then close; nothing it sends is read. */
  private static final class Shed extends ChannelInboundHandlerAdapter {
    private final byte[] response;

    Shed(byte[] response) {
      this.response = response;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.writeAndFlush(Unpooled.wrappedBuffer(response)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }
  }
}
