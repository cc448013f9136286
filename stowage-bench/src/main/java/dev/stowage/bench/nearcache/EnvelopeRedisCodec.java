package dev.stowage.bench.nearcache;

import dev.stowage.Encoding;
import dev.stowage.samples.Item;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.nio.ByteBuffer;

/**
 * A Lettuce codec whose keys are UTF-8 strings and whose values are items in Stowage's envelope,
 * decoded when the reply arrives: Lettuce's client-side cache then keeps decoded items, as
 * Stowage's near cache does. Thread-safe.
 */
final class EnvelopeRedisCodec implements RedisCodec<String, Item> {

  private final Encoding.Serializer<Item> envelope;

  EnvelopeRedisCodec(Encoding.Serializer<Item> envelope) {
    this.envelope = envelope;
  }

  @Override
  public String decodeKey(ByteBuffer bytes) {
    return StringCodec.UTF8.decodeKey(bytes);
  }

  @Override
  public Item decodeValue(ByteBuffer bytes) {
    byte[] value = new byte[bytes.remaining()];
    bytes.get(value);
    return envelope.decode(value);
  }

  @Override
  public ByteBuffer encodeKey(String key) {
    return StringCodec.UTF8.encodeKey(key);
  }

  @Override
  public ByteBuffer encodeValue(Item value) {
    return ByteBuffer.wrap(envelope.encode(value));
  }
}
