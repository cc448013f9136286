package dev.stowage.board.tcp;

import static java.util.Objects.requireNonNull;

import dev.stowage.board.Idleness;
import dev.stowage.board.protocol.BoardProtocol;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.ChannelInputShutdownReadComplete;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: cuts frames out of the byte stream, runs each request concurrently, writes
 * replies as they complete, and closes the connection (after a CLOSING frame) on a protocol
 * violation, an idle client, a client that stalls in a frame or takes too long over one, or too
 * many connections. Every field is confined to the channel's event loop, except what {@link
 * TcpConnections} reads from other threads ({@link #idleness()}); replies computed elsewhere hop
 * back onto the event loop.
 */
final class BoardConnection extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(BoardConnection.class);

  private final BoardOperations operations;
  private final TcpOptions options;
  private final boolean plain;
  private final TcpConnections connections;
  private final long idleNanos;
  private final long readNanos;
  private final long frameNanos;
  private final long writeNanos;
  private final Idleness idleness = new Idleness();

  // Set in handlerAdded, before any other event reaches this handler.
  @SuppressWarnings("NullAway.Init")
  private ChannelHandlerContext ctx;

  private @Nullable ByteBuf cumulation;
  private int inFlight;

  /** Posts the page requests in flight ask for (see {@link TcpOptions#maxPostsInFlight()}). */
  private int postsInFlight;

  /**
   * Whether a complete page request waits in the cumulation because it would take the posts in
   * flight past their bound; it is run once enough replies have left.
   */
  private boolean held;

  private boolean counted;
  private boolean closing;

  /** Why the connection closes once its requests in flight are answered; null while it stays. */
  private @Nullable String draining;

  private boolean inputClosed;
  private long lastRead;
  private long lastActivity;

  /** When the first byte of the frame being received arrived. */
  private long frameStart;

  private @Nullable ScheduledFuture<?> timer;
  private long timerAt;
  private long framesRead;

  /** Bytes of replies written and not yet taken by the operating system. */
  private long unsentBytes;

  /** When each reply not yet taken by the operating system was written, oldest first. */
  private final ArrayDeque<Long> unsentSince = new ArrayDeque<>();

  private @Nullable ScheduledFuture<?> writeTimer;

  BoardConnection(
      BoardOperations operations, TcpOptions options, boolean plain, TcpConnections connections) {
    this.operations = operations;
    this.options = options;
    this.plain = plain;
    this.connections = connections;
    this.idleNanos = options.idleTimeout().toNanos();
    this.readNanos = options.readTimeout().toNanos();
    this.frameNanos = options.frameTimeout().toNanos();
    this.writeNanos = options.writeTimeout().toNanos();
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
    if (!closing && reading() && ctx.channel().isActive()) {
      ctx.read();
    }
  }

  /**
   * Whether frames are read: not at the in-flight limit, no page request held back by the posts in
   * flight, not closing once answered, and the channel writable (its unsent replies below the high
   * water mark, half of {@link TcpOptions#maxUnsentBytes()}): a client that does not read its
   * replies is not read either.
   */
  private boolean reading() {
    return !full() && draining == null && ctx.channel().isWritable();
  }

  /**
   * Whether no further request may start until a reply has left: the requests in flight are at
   * {@link TcpOptions#maxInFlight()}, or the next one is a page that would take the posts in flight
   * past {@link TcpOptions#maxPostsInFlight()}.
   */
  private boolean full() {
    return inFlight >= options.maxInFlight() || held;
  }

  private void start() {
    if (counted) {
      return;
    }
    counted = true;
    connections.opened();
    InetAddress address =
        ctx.channel().remoteAddress() instanceof InetSocketAddress remote
            ? remote.getAddress()
            : InetAddress.getLoopbackAddress();
    lastRead = lastActivity = System.nanoTime();
    ctx.channel().config().setAutoRead(false);
    TcpConnections.Refusal refusal = connections.admit(this, address);
    ctx.channel().closeFuture().addListener(f -> connections.closed(this, address));
    if (refusal != null) {
      closeWith(0, refusal.code(), refusal.message());
      return;
    }
    publishIdleness();
    schedule(idleNanos);
    requestRead();
  }

  /**
   * Idle while the connection has no request in flight and no frame begun, since its last activity;
   * busy once chosen for eviction. Read from any thread.
   */
  Idleness idleness() {
    return idleness;
  }

  /**
   * Closes this connection to make room for another (from any thread): at once with code {@link
   * BoardProtocol#CLOSE_IDLE} when nothing is in flight, else once its requests in flight are
   * answered, reading nothing more meanwhile. Either way no request it had not started is run.
   */
  void evict(String reason) {
    ctx.executor()
        .execute(
            () -> {
              if (closing || !ctx.channel().isActive()) {
                return;
              }
              String why =
                  reason
                      + " (idle for "
                      + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lastActivity)
                      + " ms)";
              if (inFlight == 0) {
                closeWith(0, BoardProtocol.CLOSE_IDLE, why);
              } else {
                draining = why;
                releaseCumulation();
              }
            });
  }

  private void publishIdleness() {
    if (inFlight == 0 && !midFrame() && draining == null) {
      idleness.idleSince(lastActivity);
    } else {
      idleness.busy();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf in)) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (closing || draining != null) {
      in.release();
      return;
    }
    long now = System.nanoTime();
    lastRead = lastActivity = now;
    boolean wasMidFrame = midFrame();
    cumulation =
        cumulation == null
            ? in
            : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), cumulation, in);
    long framesBefore = framesRead;
    decodeFrames();
    if (closing) {
      return;
    }
    if (midFrame() && (!wasMidFrame || framesRead != framesBefore)) {
      frameStart = now; // the frame now begun started with these bytes
    }
    watchFrame();
    publishIdleness();
  }

  /**
   * While a frame is begun and frames are read: makes the timer fire by the frame's read timeout
   * (no byte for that long) or its frame timeout (begun that long ago), whichever comes first.
   */
  private void watchFrame() {
    if (midFrame() && reading()) {
      long deadline = Math.min(lastRead + readNanos, frameStart + frameNanos);
      if (timer == null || timerAt - deadline > 0) {
        schedule(deadline - System.nanoTime());
      }
    }
  }

  private boolean midFrame() {
    return cumulation != null && cumulation.isReadable();
  }

  /**
   * Runs every complete frame in the cumulation while fewer than the maximum are in flight and the
   * posts they ask for fit: a page request that would take the posts in flight past their bound
   * stays in the cumulation, {@link #held}, unless nothing is in flight (so that a page larger than
   * the bound still runs, alone).
   */
  private void decodeFrames() {
    held = false;
    while (!closing && cumulation != null && reading()) {
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
        closeWith(
            0,
            BoardProtocol.CLOSE_MALFORMED_FRAME,
            "frame length " + length + " is below 5, the size of a frame's type and request id");
        return;
      }
      if (readable < BoardProtocol.LENGTH_BYTES + length) {
        break;
      }
      int type = cumulation.getUnsignedByte(at + 4);
      int requestId = cumulation.getInt(at + 5);
      if (!BoardOperations.isOperation(type)) {
        closeWith(
            requestId,
            BoardProtocol.CLOSE_UNKNOWN_OPERATION,
            String.format(
                "unknown operation 0x%02x; operations are 0x01 create, 0x02 create-all, 0x03 page,"
                    + " 0x04 get and 0x05 ping",
                type));
        return;
      }
      byte[] body = new byte[(int) length - BoardProtocol.FRAME_HEADER_BYTES];
      cumulation.getBytes(at + 9, body);
      int posts = operations.postsAsked(type, body);
      if (postsInFlight > 0 && postsInFlight + posts > options.maxPostsInFlight()) {
        held = true;
        break;
      }
      cumulation.skipBytes(BoardProtocol.LENGTH_BYTES + (int) length);
      framesRead++;
      dispatch(type, requestId, body, posts);
    }
    if (cumulation != null && !cumulation.isReadable()) {
      cumulation.release();
      cumulation = null;
    } else if (cumulation != null) {
      cumulation.discardSomeReadBytes();
    }
    if (!full() && inputClosed && !closing) {
      afterInputClosed();
    }
  }

  /** The bytes of the frame being received: only called while one is. */
  private ByteBuf frameBytes() {
    return requireNonNull(cumulation, "no frame is being received");
  }

  private void tooLarge(int at, long length) {
    int first = frameBytes().getUnsignedByte(at);
    int second = frameBytes().getUnsignedByte(at + 1);
    if (plain && first == 0x16 && second == 0x03) {
      closeWith(
          0,
          BoardProtocol.CLOSE_TLS_ON_PLAIN_PORT,
          "a TLS handshake reached the plain"
              + " port; use the TLS port, or send frames without TLS here");
      return;
    }
    String hint =
        looksLikeHttp(at)
            ? " (an HTTP request? this port speaks the Stowage board"
                + " protocol, see docs/PROTOCOL.md)"
            : "";
    closeWith(
        0,
        BoardProtocol.CLOSE_FRAME_TOO_LARGE,
        "frame length "
            + length
            + " exceeds the limit of "
            + options.maxFrameBytes()
            + " bytes"
            + hint);
  }

  /** Whether the bytes at {@code at} start like an HTTP request line: a method, then a space. */
  private boolean looksLikeHttp(int at) {
    int end = Math.min(frameBytes().writerIndex(), at + 8);
    for (int i = at; i < end; i++) {
      int c = frameBytes().getUnsignedByte(i);
      if (c == ' ') {
        return i - at >= 3;
      }
      if (c < 'A' || c > 'Z') {
        return false;
      }
    }
    return false;
  }

  /** Runs a request that asks for {@code posts}, counting it in flight until its reply has left. */
  private void dispatch(int type, int requestId, byte[] body, int posts) {
    inFlight++;
    postsInFlight += posts;
    connections.postsInFlight(postsInFlight);
    operations
        .run(type, requestId, body, ctx.alloc())
        .subscribe(
            frame -> {
              if (ctx.executor().inEventLoop()) {
                complete(frame, posts);
              } else {
                ctx.executor().execute(() -> complete(frame, posts));
              }
            });
  }

  /**
   * Writes a reply; its request stays in flight until the reply has left the server (see {@link
   * #answered}). A reply that would take the connection's unsent bytes past {@link
   * TcpOptions#maxUnsentBytes()} closes the connection instead.
   */
  private void complete(ByteBuf frame, int posts) {
    if (closing || !ctx.channel().isActive()) {
      frame.release();
      inFlight--;
      postsInFlight -= posts;
      return;
    }
    int size = frame.readableBytes();
    if (unsentBytes > 0 && unsentBytes + size > options.maxUnsentBytes()) {
      frame.release();
      inFlight--;
      postsInFlight -= posts;
      connections.unsentOverflowed();
      abandon(
          "a reply of "
              + size
              + " bytes would take the connection's unsent replies from "
              + unsentBytes
              + " bytes past the limit of "
              + options.maxUnsentBytes()
              + " bytes");
      return;
    }
    unsentBytes += size;
    connections.unsent(unsentBytes);
    unsentSince.addLast(System.nanoTime());
    if (writeTimer == null) {
      scheduleWriteTimer(writeNanos);
    }
    ctx.writeAndFlush(frame).addListener(f -> answered(size, posts));
  }

  /**
   * A reply has left the server (or failed to, the connection closing): its request, which asked
   * for {@code posts}, is done.
   */
  private void answered(int size, int posts) {
    boolean wasFull = full();
    unsentBytes -= size;
    unsentSince.pollFirst();
    inFlight--;
    postsInFlight -= posts;
    lastActivity = System.nanoTime();
    if (closing || !ctx.channel().isActive()) {
      return;
    }
    if (draining != null) {
      if (inFlight == 0) {
        closeWith(0, BoardProtocol.CLOSE_IDLE, draining);
      }
      return;
    }
    if (wasFull) {
      resumeReading();
    } else if (inputClosed && inFlight == 0) {
      afterInputClosed();
    }
    if (!closing) {
      publishIdleness();
    }
  }

  /**
   * Reading paused (at the in-flight limit, a page request held back by the posts in flight, or
   * while the channel was not writable): runs what is already buffered, then reads on. The server
   * stopped reading, not the client: a begun frame's clocks start again.
   */
  private void resumeReading() {
    decodeFrames();
    if (!closing && midFrame() && reading()) {
      frameStart = lastRead = System.nanoTime();
      watchFrame();
    }
    requestRead();
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (!closing && ctx.channel().isActive() && ctx.channel().isWritable()) {
      resumeReading();
      if (!closing) {
        publishIdleness();
      }
    }
    ctx.fireChannelWritabilityChanged();
  }

  private void scheduleWriteTimer(long delayNanos) {
    writeTimer = ctx.executor().schedule(this::onWriteTimer, delayNanos, TimeUnit.NANOSECONDS);
  }

  /** Closes the connection when its oldest unsent reply was written a write timeout ago. */
  private void onWriteTimer() {
    writeTimer = null;
    Long oldest = unsentSince.peekFirst();
    if (oldest == null || !ctx.channel().isActive()) {
      return;
    }
    long age = System.nanoTime() - oldest;
    if (age >= writeNanos) {
      connections.writeTimedOut();
      abandon(
          "a reply written "
              + TimeUnit.NANOSECONDS.toMillis(age)
              + " ms ago has not left"
              + " the server (write timeout "
              + options.writeTimeout().toMillis()
              + " ms); "
              + unsentBytes
              + " bytes unsent");
    } else {
      scheduleWriteTimer(writeNanos - age);
    }
  }

  /**
   * Closes the connection at once, with no CLOSING frame (it would wait behind the replies the
   * client does not read), releasing its unsent replies.
   */
  private void abandon(String reason) {
    log.debug("closing {}: {}", ctx.channel().remoteAddress(), reason);
    closing = true;
    releaseCumulation();
    cancelTimers();
    var unusedClose = ctx.close();
  }

  private void cancelTimers() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    if (writeTimer != null) {
      writeTimer.cancel(false);
      writeTimer = null;
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof ChannelInputShutdownEvent) {
      inputClosed = true;
      if (!closing && !full()) {
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
      closeWith(
          0,
          BoardProtocol.CLOSE_TRUNCATED_FRAME,
          "the connection's input ended "
              + frameBytes().readableBytes()
              + " bytes into a frame"
              + expected());
    } else if (inFlight == 0) {
      closing = true;
      ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }

  private String expected() {
    if (frameBytes().readableBytes() < BoardProtocol.LENGTH_BYTES) {
      return ", before its length was complete";
    }
    long announced = frameBytes().getUnsignedInt(frameBytes().readerIndex());
    long arrived = (long) frameBytes().readableBytes() - BoardProtocol.LENGTH_BYTES;
    return "; its length field announced "
        + announced
        + " bytes after it, of which "
        + (announced - arrived)
        + " are still expected";
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
    if (midFrame() && reading()) {
      long age = now - frameStart;
      if (age >= frameNanos) {
        closeWith(
            0,
            BoardProtocol.CLOSE_READ_TIMEOUT,
            "a frame begun "
                + TimeUnit.NANOSECONDS.toMillis(age)
                + " ms ago is not complete (frame timeout "
                + options.frameTimeout().toMillis()
                + " ms): "
                + frameBytes().readableBytes()
                + " bytes of it arrived"
                + expected());
        return;
      }
      long quiet = now - lastRead;
      if (quiet >= readNanos) {
        closeWith(
            0,
            BoardProtocol.CLOSE_READ_TIMEOUT,
            "no byte for "
                + TimeUnit.NANOSECONDS.toMillis(quiet)
                + " ms in the middle of a frame (read timeout "
                + options.readTimeout().toMillis()
                + " ms)");
      } else {
        schedule(Math.min(readNanos - quiet, frameNanos - age));
      }
      return;
    }
    if (inFlight > 0) {
      schedule(idleNanos);
      return;
    }
    long quiet = now - lastActivity;
    if (quiet >= idleNanos) {
      closeWith(
          0,
          BoardProtocol.CLOSE_IDLE,
          "idle for "
              + TimeUnit.NANOSECONDS.toMillis(quiet)
              + " ms (idle timeout "
              + options.idleTimeout().toMillis()
              + " ms)");
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
    cancelTimers();
    ctx.writeAndFlush(
            BoardOperations.codeFrame(
                ctx.alloc(), BoardProtocol.REPLY_CLOSING, requestId, code, message))
        .addListener(ChannelFutureListener.CLOSE);
    // The CLOSING frame may wait behind replies the client does not read: close by the write
    // timeout at the latest.
    var unusedTimer =
        ctx.executor()
            .schedule(
                () -> {
                  if (ctx.channel().isActive()) {
                    connections.writeTimedOut();
                    var unusedClose2 = ctx.close();
                  }
                },
                writeNanos,
                TimeUnit.NANOSECONDS);
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
    cancelTimers();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    log.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
    closing = true;
    var unusedClose3 = ctx.close();
  }
}
