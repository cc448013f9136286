package dev.stowage.spring;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import org.springframework.cache.support.NullValue;

/**
 * The values of a cache with a configured type: a tag byte, {@code 0} for a cached {@code null}
 * (Spring's {@link NullValue}), {@code 1} followed by the value in the type's codec, whose id the
 * envelope records. An {@link Codec.Evolving} stays one ({@link Evolving}), so that the envelope
 * carries the shape of the value and values of an older shape are read by it.
 *
 * <p>A codec that reads by name ({@link ShapedCodec}: json, fastjson2, jdk) writes tag {@code 2}
 * instead of {@code 1}: its values carry the fingerprint of their shape. A tag {@code 1} value of
 * such a codec was written before the starter recorded shapes, so nothing says which shape of the
 * type it holds, and it is refused (a miss, once per key) rather than read by name, which gives
 * {@code null} for a renamed property.
 */
class TypedCodec implements Codec<Object> {
  /** The tag of a value of a {@link ShapedCodec}. */
  static final byte SHAPED_TAG = 2;

  private final Codec<Object> codec;
  private final byte valueTag;

  TypedCodec(Codec<Object> codec) {
    this.codec = codec;
    this.valueTag = codec instanceof ShapedCodec ? SHAPED_TAG : ClassNamingCodec.VALUE_TAG;
  }

  /** The codec for values of {@code codec}, evolving if it is. */
  static TypedCodec of(Codec<Object> codec) {
    return codec instanceof Codec.Evolving<Object> evolving
        ? new Evolving(evolving)
        : new TypedCodec(codec);
  }

  @Override
  public int id() {
    return codec.id();
  }

  @Override
  public String name() {
    return codec.name();
  }

  @Override
  public byte[] encode(Object value) {
    if (value instanceof NullValue) {
      return new byte[] {ClassNamingCodec.NULL_TAG};
    }
    byte[] payload = codec.encode(value);
    byte[] bytes = new byte[payload.length + 1];
    bytes[0] = valueTag;
    System.arraycopy(payload, 0, bytes, 1, payload.length);
    return bytes;
  }

  @Override
  public Object decode(byte[] data, int offset, int length) {
    return checkTag(data, offset, length)
        ? NullValue.INSTANCE
        : codec.decode(data, offset + 1, length - 1);
  }

  /** Whether the bytes hold a cached null; throws unless they hold a value either way. */
  final boolean checkTag(byte[] data, int offset, int length) {
    if (length == 1 && data[offset] == ClassNamingCodec.NULL_TAG) {
      return true;
    }
    if (length >= 1 && data[offset] == ClassNamingCodec.VALUE_TAG && valueTag == SHAPED_TAG) {
      throw new CodecException(
          name()
              + ": a value written by an earlier stowage-spring without the fingerprint of"
              + " its shape, which this codec, reading by name, needs to read it safely; it is read again");
    }
    if (length < 1 || data[offset] != valueTag) {
      throw new CodecException(name() + ": not a value of a Spring cache");
    }
    return false;
  }

  /** A typed codec over an evolving codec. */
  static final class Evolving extends TypedCodec implements Codec.Evolving<Object> {
    private final Codec.Evolving<Object> evolving;

    Evolving(Codec.Evolving<Object> codec) {
      super(codec);
      this.evolving = codec;
    }

    @Override
    public String schema() {
      return evolving.schema();
    }

    @Override
    public Object decode(byte[] data, int offset, int length, String writerSchema) {
      return checkTag(data, offset, length)
          ? NullValue.INSTANCE
          : evolving.decode(data, offset + 1, length - 1, writerSchema);
    }
  }
}
