package dev.stowage.board.client;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts the bytes that cross a connection's socket, both ways. Placed first in a pipeline, below
 * TLS and any codec, it counts what the wire carries: frames or HTTP heads and bodies, TLS records
 * and handshakes. Sharable: one counter may sum many connections. Thread-safe.
 */
@ChannelHandler.Sharable
public final class SocketByteCounter extends ChannelDuplexHandler {
  private final LongAdder sent = new LongAdder();
  private final LongAdder received = new LongAdder();

  /** Bytes written to the sockets so far. */
  public long sent() {
    return sent.sum();
  }

  /** Bytes read from the sockets so far. */
  public long received() {
    return received.sum();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf bytes) {
      received.add(bytes.readableBytes());
    }
    ctx.fireChannelRead(msg);
  }

  @SuppressWarnings("FutureReturnValueIgnored") // ctx.write returns the promise it was given
  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof ByteBuf bytes) {
      sent.add(bytes.readableBytes());
    }
    ctx.write(msg, promise);
  }
}
