package dev.stowage.board.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: cuts frames out of the byte stream, runs each request concurrently,
 * writes replies as they complete, and closes the connection (after a CLOSING frame) on a protocol
 * violation, an idle or stalled client, or too many connections. Every field is confined to the
 * channel's event loop; replies computed elsewhere hop back onto it.
 */
final class BoardConnection extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(BoardConnection.class);

  private final BoardOperations operations;
  private final TcpOptions options;
  private final boolean plain;
  private final AtomicInteger open;
  private final long idleNanos;
  private final long readNanos;

  private ChannelHandlerContext ctx;
  private ByteBuf cumulation;
  private int inFlight;
  private boolean counted;
  private boolean closing;
  private boolean inputClosed;
  private long lastRead;
  private long lastActivity;
  private ScheduledFuture<?> timer;
  private long timerAt;

  BoardConnection(BoardOperations operations, TcpOptions options, boolean plain,
      AtomicInteger open) {
    this.operations = operations;
    this.options = options;
    this.plain = plain;
    this.open = open;
    this.idleNanos = options.idleTimeout().toNanos();
    this.readNanos = options.readTimeout().toNanos();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (ctx.channel().isActive()) {
      start();
    }
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    // Reactor Netty's bridge behind this handler turns auto-read off when it sees the channel
    // active; let it, then ask for each read explicitly (see requestRead).
    ctx.fireChannelActive();
    start();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    requestRead();
  }

  /**
   * Asks the transport for more bytes unless requests have reached the in-flight limit (reading
   * resumes when one completes) or the connection is closing. Auto-read stays off: Reactor Netty
   * reads on demand, and this handler, which consumes every byte itself, is the one demanding.
   */
  private void requestRead() {
    if (!closing && inFlight < options.maxInFlight() && ctx.channel().isActive()) {
      ctx.read();
    }
  }

  private void start() {
    if (counted) {
      return;
    }
    counted = true;
    int now = open.incrementAndGet();
    ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
    lastRead = lastActivity = System.nanoTime();
    ctx.channel().config().setAutoRead(false);
    if (now > options.maxConnections()) {
      closeWith(0, BoardProtocol.CLOSE_TOO_MANY_CONNECTIONS, "the server holds its maximum of "
          + options.maxConnections() + " connections; try again later");
      return;
    }
    schedule(idleNanos);
    requestRead();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (closing) {
      in.release();
      return;
    }
    lastRead = lastActivity = System.nanoTime();
    cumulation = cumulation == null ? in
        : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), cumulation, in);
    decodeFrames();
    if (!closing && midFrame() && timerAt - lastRead > readNanos) {
      schedule(readNanos);
    }
  }

  private boolean midFrame() {
    return cumulation != null && cumulation.isReadable();
  }

  /** Runs every complete frame in the cumulation while fewer than the maximum are in flight. */
  private void decodeFrames() {
    while (!closing && cumulation != null && inFlight < options.maxInFlight()) {
      int readable = cumulation.readableBytes();
      if (readable < BoardProtocol.LENGTH_BYTES) {
        break;
      }
      int at = cumulation.readerIndex();
      long length = cumulation.getUnsignedInt(at);
      if (length > options.maxFrameBytes()) {
        tooLarge(at, length);
        return;
      }
      if (length < BoardProtocol.FRAME_HEADER_BYTES) {
        closeWith(0, BoardProtocol.CLOSE_MALFORMED_FRAME, "frame length " + length
            + " is below 5, the size of a frame's type and request id");
        return;
      }
      if (readable < BoardProtocol.LENGTH_BYTES + length) {
        break;
      }
      int type = cumulation.getUnsignedByte(at + 4);
      int requestId = cumulation.getInt(at + 5);
      if (!BoardOperations.isOperation(type)) {
        closeWith(requestId, BoardProtocol.CLOSE_UNKNOWN_OPERATION, String.format(
            "unknown operation 0x%02x; operations are 0x01 create, 0x02 create-all, 0x03 page,"
                + " 0x04 get and 0x05 ping", type));
        return;
      }
      byte[] body = new byte[(int) length - BoardProtocol.FRAME_HEADER_BYTES];
      cumulation.getBytes(at + 9, body);
      cumulation.skipBytes(BoardProtocol.LENGTH_BYTES + (int) length);
      dispatch(type, requestId, body);
    }
    if (cumulation != null && !cumulation.isReadable()) {
      cumulation.release();
      cumulation = null;
    } else if (cumulation != null) {
      cumulation.discardSomeReadBytes();
    }
    if (inFlight < options.maxInFlight() && inputClosed && !closing) {
      afterInputClosed();
    }
  }

  private void tooLarge(int at, long length) {
    int first = cumulation.getUnsignedByte(at);
    int second = cumulation.getUnsignedByte(at + 1);
    if (plain && first == 0x16 && second == 0x03) {
      closeWith(0, BoardProtocol.CLOSE_TLS_ON_PLAIN_PORT, "a TLS handshake reached the plain"
          + " port; use the TLS port, or send frames without TLS here");
      return;
    }
    String hint = looksLikeHttp(at) ? " (an HTTP request? this port speaks the Stowage board"
        + " protocol, see docs/PROTOCOL.md)" : "";
    closeWith(0, BoardProtocol.CLOSE_FRAME_TOO_LARGE, "frame length " + length
        + " exceeds the limit of " + options.maxFrameBytes() + " bytes" + hint);
  }

  /** Whether the bytes at {@code at} start like an HTTP request line: a method, then a space. */
  private boolean looksLikeHttp(int at) {
    int end = Math.min(cumulation.writerIndex(), at + 8);
    for (int i = at; i < end; i++) {
      int c = cumulation.getUnsignedByte(i);
      if (c == ' ') {
        return i - at >= 3;
      }
      if (c < 'A' || c > 'Z') {
        return false;
      }
    }
    return false;
  }

  private void dispatch(int type, int requestId, byte[] body) {
    inFlight++;
    operations.run(type, requestId, body, ctx.alloc()).subscribe(frame -> {
      if (ctx.executor().inEventLoop()) {
        complete(frame);
      } else {
        ctx.executor().execute(() -> complete(frame));
      }
    });
  }

  private void complete(ByteBuf frame) {
    inFlight--;
    lastActivity = System.nanoTime();
    if (closing || !ctx.channel().isActive()) {
      frame.release();
      return;
    }
    ctx.writeAndFlush(frame, ctx.voidPromise());
    if (inFlight == options.maxInFlight() - 1) {
      // Reading paused at the limit: run what is already buffered, then read on.
      decodeFrames();
      requestRead();
    } else if (inputClosed && inFlight == 0) {
      afterInputClosed();
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof ChannelInputShutdownEvent) {
      inputClosed = true;
      if (!closing && inFlight < options.maxInFlight()) {
        afterInputClosed();
      }
      return;
    }
    if (event == ChannelInputShutdownReadComplete.INSTANCE) {
      return;
    }
    ctx.fireUserEventTriggered(event);
  }

  /** The client sent its last byte: a partial frame is truncated; else close once answered. */
  private void afterInputClosed() {
    if (midFrame()) {
      closeWith(0, BoardProtocol.CLOSE_TRUNCATED_FRAME, "the connection's input ended "
          + cumulation.readableBytes() + " bytes into a frame" + expected());
    } else if (inFlight == 0) {
      closing = true;
      ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER)
          .addListener(ChannelFutureListener.CLOSE);
    }
  }

  private String expected() {
    if (cumulation.readableBytes() < BoardProtocol.LENGTH_BYTES) {
      return ", before its length was complete";
    }
    return "; its length field announced " + cumulation.getUnsignedInt(cumulation.readerIndex())
        + " more";
  }

  private void schedule(long delayNanos) {
    if (timer != null) {
      timer.cancel(false);
    }
    timerAt = System.nanoTime() + delayNanos;
    timer = ctx.executor().schedule(this::onTimer, delayNanos, TimeUnit.NANOSECONDS);
  }

  private void onTimer() {
    timer = null;
    if (closing || !ctx.channel().isActive()) {
      return;
    }
    long now = System.nanoTime();
    if (inFlight > 0) {
      schedule(idleNanos);
      return;
    }
    if (midFrame()) {
      long quiet = now - lastRead;
      if (quiet >= readNanos) {
        closeWith(0, BoardProtocol.CLOSE_READ_TIMEOUT, "no byte for "
            + TimeUnit.NANOSECONDS.toMillis(quiet) + " ms in the middle of a frame (read timeout "
            + options.readTimeout().toMillis() + " ms)");
      } else {
        schedule(readNanos - quiet);
      }
      return;
    }
    long quiet = now - lastActivity;
    if (quiet >= idleNanos) {
      closeWith(0, BoardProtocol.CLOSE_IDLE, "idle for " + TimeUnit.NANOSECONDS.toMillis(quiet)
          + " ms (idle timeout " + options.idleTimeout().toMillis() + " ms)");
    } else {
      schedule(idleNanos - quiet);
    }
  }

  /** Writes a CLOSING frame, then closes the connection; later input is discarded. */
  void closeWith(int requestId, int code, String message) {
    if (closing) {
      return;
    }
    closing = true;
    log.debug("closing {}: {} {}", ctx.channel().remoteAddress(), code, message);
    releaseCumulation();
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    ctx.writeAndFlush(BoardOperations.codeFrame(ctx.alloc(), BoardProtocol.REPLY_CLOSING,
        requestId, code, message)).addListener(ChannelFutureListener.CLOSE);
  }

  private void releaseCumulation() {
    if (cumulation != null) {
      cumulation.release();
      cumulation = null;
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    closing = true;
    releaseCumulation();
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    closing = true;
    ctx.close();
  }
}
