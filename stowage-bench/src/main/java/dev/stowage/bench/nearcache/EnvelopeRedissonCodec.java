package dev.stowage.bench.nearcache;

import dev.stowage.Encoding;
import dev.stowage.samples.Item;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import org.redisson.client.codec.BaseCodec;
import org.redisson.client.codec.StringCodec;
import org.redisson.client.protocol.Decoder;
import org.redisson.client.protocol.Encoder;

/**
 * A Redisson codec whose map keys are UTF-8 strings and whose values are items in Stowage's
 * envelope, so that Redisson's row stores and decodes the same bytes as the other rows.
 * Thread-safe.
 */
final class EnvelopeRedissonCodec extends BaseCodec {

  private final Encoder encoder;
  private final Decoder<Object> decoder;

  EnvelopeRedissonCodec(Encoding.Serializer<Item> envelope) {
    this.encoder =
        value -> {
          byte[] bytes = envelope.encode((Item) value);
          ByteBuf out = ByteBufAllocator.DEFAULT.buffer(bytes.length);
          out.writeBytes(bytes);
          return out;
        };
    this.decoder =
        (buffer, state) -> {
          byte[] bytes = new byte[buffer.readableBytes()];
          buffer.readBytes(bytes);
          return envelope.decode(bytes);
        };
  }

  @Override
  public Decoder<Object> getValueDecoder() {
    return decoder;
  }

  @Override
  public Encoder getValueEncoder() {
    return encoder;
  }

  @Override
  public Decoder<Object> getMapKeyDecoder() {
    return StringCodec.INSTANCE.getValueDecoder();
  }

  @Override
  public Encoder getMapKeyEncoder() {
    return StringCodec.INSTANCE.getValueEncoder();
  }
}
