package dev.stowage.board;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The request read timeout of one HTTP/1.1 connection: a request's headers and body must all
 * arrive within {@link HttpOptions#requestReadTimeout()} of its first byte. Reactor Netty's idle
 * timeout closes a connection that sends nothing, and its read and request timeouts watch a body
 * only once the headers are in, between reads; none bounds a request whose bytes trickle in. So
 * the clock starts with a request's first byte, seen before the HTTP codec ({@link
 * #requestStart()}), and stops with its last content, seen after it ({@link #requestEnd()}).
 * When it runs out the connection is answered 408 (or, when a response was already begun, only
 * closed). Confined to the channel's event loop.
 */
final class HttpRequestDeadline {
  private final long timeoutNanos;
  private final byte[] timeoutResponse;
  // Set in handlerAdded, before any other event reaches this handler.
  @SuppressWarnings("NullAway.Init")
  private ChannelHandlerContext head;
  private @Nullable ScheduledFuture<?> timer;
  /** A request has begun and not all of it has arrived. */
  private boolean reading;
  /** A response to the current request was begun. */
  private boolean answering;
  /** The time ran out: the connection is closing. */
  private boolean expired;

  /**
   * @param timeoutResponse the whole HTTP response written when the time runs out, ending with
   *     the connection's closing
   */
  HttpRequestDeadline(HttpOptions options, byte[] timeoutResponse) {
    this.timeoutNanos = options.requestReadTimeout().toNanos();
    this.timeoutResponse = timeoutResponse;
  }

  /** The handler for the pipeline's head, before the HTTP codec: it sees a request's first byte. */
  ChannelHandler requestStart() {
    return new ChannelInboundHandlerAdapter() {
      @Override
      public void handlerAdded(ChannelHandlerContext ctx) {
        head = ctx;
      }

      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!reading && msg instanceof ByteBuf bytes && bytes.isReadable()) {
          reading = true;
          timer = ctx.executor().schedule(HttpRequestDeadline.this::expire, timeoutNanos,
              TimeUnit.NANOSECONDS);
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
      }
    };
  }

  /** The handler right after the HTTP codec: it sees a request's last content and the response. */
  ChannelHandler requestEnd() {
    return new ChannelDuplexHandler() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (expired && msg instanceof HttpObject cut && cut.decoderResult().isFailure()) {
          // The codec's report of the request cut off when the time ran out: already answered.
          ReferenceCountUtil.release(msg);
          return;
        }
        if (msg instanceof HttpRequest) {
          answering = false;
        }
        if (msg instanceof LastHttpContent) {
          stop();
        }
        ctx.fireChannelRead(msg);
      }

      @Override
      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof HttpResponse) {
          answering = true;
        }
        ctx.write(msg, promise);
      }
    };
  }

  private void stop() {
    reading = false;
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void expire() {
    timer = null;
    if (!reading || !head.channel().isActive()) {
      return;
    }
    reading = false;
    expired = true;
    if (answering) {
      head.close();
    } else {
      // Written from the head, past the codec: the connection ends with this response.
      head.writeAndFlush(Unpooled.wrappedBuffer(timeoutResponse))
          .addListener(ChannelFutureListener.CLOSE);
    }
  }
}
