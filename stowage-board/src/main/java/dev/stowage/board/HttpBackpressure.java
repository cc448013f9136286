package dev.stowage.board;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Backpressure on one HTTP/1.1 connection, between the HTTP codec and Reactor Netty's handler: a
 * request is passed on only once the response before it has left the server (its last write
 * completed, not merely written), so a connection holds at most one response unsent and a client
 * that pipelines requests and reads no response has no further page computed, nor the Redis and
 * database reads behind it. Requests that arrive meanwhile are held, in order, and passed on one at
 * a time as each response leaves. While it holds a request, or while the channel is not writable
 * (half of {@link HttpOptions#maxUnsentBytes()} unsent), it swallows Reactor Netty's read demand
 * (auto-read is off in Reactor Netty's server), and issues the read once it can go on: what a
 * connection holds is one response and the requests of one read of its socket.
 *
 * <p>It also publishes the connection's {@link Idleness}: busy from a request's first byte (told by
 * {@link HttpRequestDeadline}) until its response has left with nothing held or begun after it, so
 * that a newcomer beyond {@link HttpOptions#maxConnections()} can take the place of the longest
 * idle connection ({@link #evict()}). Confined to the channel's event loop, except {@link
 * #idleness()} and {@link #evict()}.
 */
final class HttpBackpressure extends ChannelDuplexHandler {
  private static final Logger log = LoggerFactory.getLogger(HttpBackpressure.class);

  private final Idleness idleness;
  private final BooleanSupplier requestArriving;
  private final int maxUnsentBytes;

  /** Messages of requests read and not yet passed on, oldest first; each begins a request. */
  private final ArrayDeque<Object> held = new ArrayDeque<>();

  // Set in handlerAdded, before any other event reaches this handler.
  @SuppressWarnings("NullAway.Init")
  private ChannelHandlerContext ctx;

  /** A request was passed on and its response has not all left the server. */
  private boolean answering;

  /** The response being written is informational (1xx): its end is not the request's. */
  private boolean informational;

  /** A read was asked for and swallowed; issued once the connection can go on. */
  private boolean readWanted;

  /** Chosen to make room for a newcomer: closes once the response being answered has left. */
  private boolean evicted;

  /**
   * @param idleness the connection's, idle since now
   * @param requestArriving whether a request has begun to arrive and not all of it has yet
   */
  HttpBackpressure(Idleness idleness, BooleanSupplier requestArriving, int maxUnsentBytes) {
    this.idleness = idleness;
    this.requestArriving = requestArriving;
    this.maxUnsentBytes = maxUnsentBytes;
  }

  /** The connection's idleness; read from any thread. */
  Idleness idleness() {
    return idleness;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    ctx.channel()
        .config()
        .setWriteBufferWaterMark(new WriteBufferWaterMark(maxUnsentBytes / 4, maxUnsentBytes / 2));
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (evicted) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpRequest && !answering && held.isEmpty()) {
      answering = true;
      ctx.fireChannelRead(msg);
    } else if (msg instanceof HttpRequest || !held.isEmpty()) {
      // A request behind one being answered, or the rest of a request held.
      held.addLast(msg);
    } else {
      ctx.fireChannelRead(msg);
    }
  }

  @Override
  public void read(ChannelHandlerContext ctx) {
    if (!held.isEmpty() || evicted || !ctx.channel().isWritable()) {
      readWanted = true;
      return;
    }
    readWanted = false;
    ctx.read();
  }

  @SuppressWarnings("FutureReturnValueIgnored") // ctx.write returns the promise it was given
  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof HttpResponse response) {
      informational = response.status().codeClass() == HttpStatusClass.INFORMATIONAL;
    }
    if (!(msg instanceof LastHttpContent)) {
      ctx.write(msg, promise);
      return;
    }
    boolean ends = answering && !informational;
    informational = false;
    if (!ends) {
      ctx.write(msg, promise);
      return;
    }
    ChannelPromise written = promise.unvoid();
    ctx.write(msg, written);
    written.addListener((ChannelFutureListener) this::responseLeft);
  }

  /** The last write of the response being answered completed (or failed, the channel closing). */
  private void responseLeft(ChannelFuture future) {
    answering = false;
    if (!future.isSuccess() || !ctx.channel().isActive()) {
      return;
    }
    if (evicted) {
      var unusedClose = ctx.close();
      return;
    }
    // Not from within the write's completion, which may run inside a flush.
    ctx.executor().execute(this::goOn);
  }

  /** Passes on the next request held, or, with none, reads on and is idle unless one begins. */
  private void goOn() {
    if (answering || evicted || !ctx.channel().isActive()) {
      return;
    }
    if (!held.isEmpty()) {
      answering = true;
      ctx.fireChannelRead(held.pollFirst());
      while (!held.isEmpty() && !(held.peekFirst() instanceof HttpRequest)) {
        ctx.fireChannelRead(held.pollFirst());
      }
    } else if (!requestArriving.getAsBoolean()) {
      idleness.idle();
    }
    readIfWanted();
  }

  private void readIfWanted() {
    if (readWanted && held.isEmpty() && !evicted && ctx.channel().isWritable()) {
      readWanted = false;
      ctx.read();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    readIfWanted();
    ctx.fireChannelWritabilityChanged();
  }

  /**
   * Closes this connection to make room for a newcomer (from any thread): at once, or, when a
   * response is being answered, once it has left, passing on no request held and reading nothing
   * more meanwhile.
   */
  void evict() {
    ctx.executor()
        .execute(
            () -> {
              if (!ctx.channel().isActive()) {
                return;
              }
              log.debug(
                  "closing {} to make room for a new connection: it was the longest idle",
                  ctx.channel().remoteAddress());
              if (answering) {
                evicted = true;
                releaseHeld();
              } else {
                var unusedClose2 = ctx.close();
              }
            });
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    releaseHeld();
    ctx.fireChannelInactive();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    releaseHeld();
  }

  private void releaseHeld() {
    for (Object msg; (msg = held.pollFirst()) != null; ) {
      ReferenceCountUtil.release(msg);
    }
  }
}
