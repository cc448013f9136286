package dev.stowage.board;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The request read timeout of one HTTP/1.1 connection: a request's headers and body must all arrive
 * within {@link HttpOptions#requestReadTimeout()} of its first byte. Reactor Netty's idle timeout
 * closes a connection that sends nothing, and its read and request timeouts watch a body only once
 * the headers are in, between reads; none bounds a request whose bytes trickle in. So the clock
 * starts with a request's first byte, seen before the HTTP codec ({@link #requestStart()}), and
 * stops with its last content, seen after it ({@link #requestEnd()}). When it runs out the
 * connection is answered 408 (or, when a response was already begun, only closed). A request whose
 * first bytes arrive in the read that ends the one before starts its clock then too: the codec
 * holds them, and this handler sees them left in the buffer.
 *
 * <p>It also answers what the codec cannot decode (a malformed request line or header, a line or
 * headers beyond their limits, Content-Length with Transfer-Encoding) with the service's JSON
 * error, after the responses to the requests before, and closes the connection: Reactor Netty would
 * answer those with an empty body. Confined to the channel's event loop.
 */
final class HttpRequestDeadline {
  private final long timeoutNanos;
  private final byte[] timeoutResponse;
  private final BiFunction<Throwable, @Nullable String, byte[]> codecFailure;
  private final Events events;

  // Set in handlerAdded, before any other event reaches this handler.
  @SuppressWarnings("NullAway.Init")
  private ChannelHandlerContext head;

  private @Nullable ScheduledFuture<?> timer;

  /** A request has begun and not all of it has arrived. */
  private boolean reading;

  /** The current request's headers are in (its bytes went past the codec as a request). */
  private boolean headersIn;

  /** Requests passed on, and responses begun (not counting 1xx): in HTTP/1.1 order. */
  private long requestsRead;

  private long responsesBegun;

  /** The time ran out: the connection is closing. */
  private boolean expired;

  /** The codec could not decode a request: the connection is closing, nothing more is read. */
  private boolean rejected;

  /** Requests passed on whose responses have not all been written. */
  private int inFlight;

  /** The response that ends the connection once the responses before it are written. */
  private byte @Nullable [] closing;

  /** {@link #inFlight} when {@link #closing} is written: 1 when it answers a request passed on. */
  private int closingAt;

  /**
   * @param timeoutResponse the whole HTTP response written when the time runs out, ending with the
   *     connection's closing
   * @param codecFailure the whole closing HTTP response to a request the codec could not decode,
   *     from its failure and, when the request had both Content-Length and Transfer-Encoding, a
   *     non-null second argument
   * @param events told when a request begins and when a response does
   */
  HttpRequestDeadline(
      HttpOptions options,
      byte[] timeoutResponse,
      BiFunction<Throwable, @Nullable String, byte[]> codecFailure,
      Events events) {
    this.timeoutNanos = options.requestReadTimeout().toNanos();
    this.timeoutResponse = timeoutResponse;
    this.codecFailure = codecFailure;
    this.events = events;
  }

  /** What the deadline tells of its connection, on the connection's event loop. */
  interface Events {
    /** A request's first byte has arrived. */
    void requestBegun();

    /** A response (not an informational one) has begun to be written. */
    void responseBegun();
  }

  /** Whether a request has begun to arrive and not all of it has yet. */
  boolean reading() {
    return reading;
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
        if (!(msg instanceof ByteBuf bytes) || !bytes.isReadable() || rejected) {
          ctx.fireChannelRead(msg);
          return;
        }
        if (!reading) {
          start();
        }
        // Kept to see, once the codec is done, whether it left bytes in this buffer (it decodes
        // into the buffer itself when it held nothing before).
        bytes.retain();
        try {
          ctx.fireChannelRead(msg);
          if (!reading && !rejected && !expired && bytes.refCnt() > 1 && bytes.isReadable()) {
            // A request ended within this read and the codec holds the beginning of the next,
            // which arrived now: its clock starts now, not with the next read.
            start();
          }
        } finally {
          bytes.release();
        }
      }

      @Override
      public void channelInactive(ChannelHandlerContext ctx) {
        stop();
        ctx.fireChannelInactive();
      }
    };
  }

  /**
   * The handler right after the HTTP codec: it sees a request's beginning and last content, the
   * codec's failures, and the responses.
   */
  ChannelHandler requestEnd() {
    return new ChannelDuplexHandler() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
          ReferenceCountUtil.release(msg);
          return;
        }
        if (msg instanceof HttpObject http && http.decoderResult().isFailure()) {
          // What the codec could not decode: answered here in the JSON error shape, then closed
          // (or, when the time ran out, the codec's report of the request it cut off).
          Throwable cause = http.decoderResult().cause();
          String both =
              msg instanceof HttpMessage m
                      && m.headers().contains(HttpHeaderNames.CONTENT_LENGTH)
                      && m.headers().contains(HttpHeaderNames.TRANSFER_ENCODING)
                  ? "both"
                  : null;
          ReferenceCountUtil.release(msg);
          if (!expired) {
            if (!reading) {
              // A new request, begun and failed within the read that ended the one before.
              headersIn = false;
            }
            rejected = true;
            stop();
            finish(answering() ? null : codecFailure.apply(cause, both));
          }
          return;
        }
        if (msg instanceof HttpRequest) {
          requestsRead++;
          inFlight++;
          if (!reading) {
            // Its first byte arrived within the read that ended the previous request.
            start();
          }
          headersIn = true;
        }
        if (msg instanceof LastHttpContent) {
          stop();
        }
        ctx.fireChannelRead(msg);
      }

      @SuppressWarnings("FutureReturnValueIgnored") // ctx.write returns the promise it was given
      @Override
      public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        boolean informational = false;
        if (msg instanceof HttpResponse response) {
          informational = response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
          if (!informational) {
            responsesBegun++;
            events.responseBegun();
          }
        }
        ctx.write(msg, promise);
        if (msg instanceof LastHttpContent && !informational && inFlight > 0) {
          inFlight--;
          if (closing != null && inFlight == closingAt) {
            byte[] last = closing;
            closing = null;
            head.writeAndFlush(Unpooled.wrappedBuffer(last))
                .addListener(ChannelFutureListener.CLOSE);
          }
        }
      }
    };
  }

  /** A response to the request being read was begun (so no other can be sent). */
  private boolean answering() {
    return headersIn && responsesBegun >= requestsRead;
  }

  private void start() {
    events.requestBegun();
    reading = true;
    headersIn = false;
    timer = head.executor().schedule(this::expire, timeoutNanos, TimeUnit.NANOSECONDS);
  }

  /**
   * Ends the connection with {@code response} written from the head, past the codec, after the
   * responses to the requests before (or at once, closing only, when it is null).
   */
  private void finish(byte @Nullable [] response) {
    if (response == null) {
      var unusedClose = head.close();
    } else if (inFlight > (headersIn ? 1 : 0)) {
      closing = response;
      closingAt = headersIn ? 1 : 0;
    } else {
      head.writeAndFlush(Unpooled.wrappedBuffer(response)).addListener(ChannelFutureListener.CLOSE);
    }
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
    finish(answering() ? null : timeoutResponse);
  }
}
