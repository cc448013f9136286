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
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.reactor.netty.NettyServerCustomizer;
import reactor.netty.NettyPipeline;
import reactor.netty.http.server.HttpServer;

/**
 * Applies {@link HttpOptions} to the HTTP API's Reactor Netty server: its idle timeout (Reactor
 * Netty's own, as {@code server.netty.idle-timeout} sets it), a 503 and the close for every
 * connection beyond {@link HttpOptions#maxConnections()}, or beyond {@link
 * HttpOptions#maxConnectionsPerAddress()} from its remote address, as soon as it is accepted, so
 * that one address cannot take every connection and the
 * connections kept go on being served, and the request read timeout ({@link HttpRequestDeadline})
 * on every connection kept. Thread-safe.
 */
final class HttpServerLimits implements NettyServerCustomizer {
  private final HttpOptions options;
  private final AtomicInteger kept = new AtomicInteger();
  private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
  private final byte[] fullResponse;
  private final byte[] timeoutResponse;
  private final BoardFormats formats;

  HttpServerLimits(HttpOptions options, BoardFormats formats) {
    this.options = options;
    this.formats = formats;
    this.fullResponse = closingResponse(503, "Service Unavailable", formats.error(503,
        "the server holds its maximum of " + options.maxConnections() + " HTTP connections;"
            + " try again later"));
    this.timeoutResponse = closingResponse(408, "Request Timeout", formats.error(408,
        "the request did not arrive within the request read timeout of "
            + options.requestReadTimeout().toMillis() + " ms from its first byte"));
  }

  @Override
  public HttpServer apply(HttpServer server) {
    // The value of server.netty.idle-timeout when it is set (Spring Boot then applies it too).
    return server.idleTimeout(options.idleTimeout())
        // The callback's address is the server's own: the client's is the channel's remote one.
        .doOnChannelInit((observer, channel, address) -> install(channel, channel.remoteAddress()));
  }

  /** HTTP connections kept now. */
  int connections() {
    return kept.get();
  }

  private void install(Channel channel, @Nullable SocketAddress remoteAddress) {
    ChannelPipeline pipeline = channel.pipeline();
    InetAddress address = remoteAddress instanceof InetSocketAddress remote
        ? remote.getAddress() : InetAddress.getLoopbackAddress();
    if (perAddress.merge(address, 1, Integer::sum) > options.maxConnectionsPerAddress()) {
      release(address);
      pipeline.addFirst("stowage.http.shed", new Shed(closingResponse(503, "Service Unavailable",
          formats.error(503, "the server holds its maximum of "
              + options.maxConnectionsPerAddress() + " HTTP connections from "
              + address.getHostAddress() + "; close one first"))));
      return;
    }
    if (kept.incrementAndGet() > options.maxConnections()) {
      kept.decrementAndGet();
      release(address);
      pipeline.addFirst("stowage.http.shed", new Shed(fullResponse));
      return;
    }
    channel.closeFuture().addListener(closed -> {
      kept.decrementAndGet();
      release(address);
    });
    if (pipeline.get(NettyPipeline.HttpCodec) != null) {
      HttpRequestDeadline deadline = new HttpRequestDeadline(options, timeoutResponse,
          this::codecFailure);
      pipeline.addFirst("stowage.http.requestStart", deadline.requestStart());
      pipeline.addAfter(NettyPipeline.HttpCodec, "stowage.http.requestEnd", deadline.requestEnd());
    }
  }

  /**
   * The closing response to a request the HTTP codec could not decode, in the service's words:
   * 414 for a request line beyond its limit, 431 for headers beyond theirs, 400 for the rest.
   */
  private byte[] codecFailure(Throwable cause, @Nullable String bothLengths) {
    String limit = cause.getMessage() == null ? "" : " (" + cause.getMessage().strip() + ")";
    if (cause instanceof TooLongHttpLineException) {
      return closingResponse(414, "URI Too Long", formats.error(414, "the request line (method,"
          + " target and version) is longer than the server's limit" + limit));
    }
    if (cause instanceof TooLongHttpHeaderException) {
      return closingResponse(431, "Request Header Fields Too Large", formats.error(431,
          "the request's headers are larger than the server's limit" + limit));
    }
    String message;
    if (bothLengths != null || cause.getMessage() != null
        && cause.getMessage().toLowerCase(Locale.ROOT).contains("content-length")) {
      message = "the request has both Content-Length and Transfer-Encoding, or a Content-Length"
          + " that is not one whole number; send one length";
    } else if (cause instanceof TooLongFrameException) {
      message = "a line of the request (a header or a chunk's size) is longer than the server's"
          + " limit" + limit;
    } else {
      message = "the request is not valid HTTP/1.1: its request line (method, target and"
          + " version), a header or a chunk is malformed";
    }
    return closingResponse(400, "Bad Request", formats.error(400, message));
  }

  private void release(InetAddress address) {
    perAddress.computeIfPresent(address, (key, count) -> count == 1 ? null : count - 1);
  }

  /** A whole HTTP/1.1 response with a JSON body, after which the connection closes. */
  private static byte[] closingResponse(int status, String reason, byte[] json) {
    byte[] head = ("HTTP/1.1 " + status + " " + reason + "\r\ncontent-type: application/json\r\n"
        + "content-length: " + json.length + "\r\nconnection: close\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
    byte[] response = new byte[head.length + json.length];
    System.arraycopy(head, 0, response, 0, head.length);
    System.arraycopy(json, 0, response, head.length, json.length);
    return response;
  }

  /** Turns away a connection beyond the maximum: 503, then close; nothing it sends is read. */
  private static final class Shed extends ChannelInboundHandlerAdapter {
    private final byte[] response;

    Shed(byte[] response) {
      this.response = response;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
      ctx.writeAndFlush(Unpooled.wrappedBuffer(response))
          .addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ReferenceCountUtil.release(msg);
    }
  }
}
