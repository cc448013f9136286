package dev.stowage.spring;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.Inspector;
import dev.stowage.StowageException;
import dev.stowage.TypeRef;
import dev.stowage.codec.Codecs;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A codec that reads properties by name ({@code json}, {@code fastjson2}) or whose own check can
 * pass a changed class ({@code jdk}: records and classes with a declared {@code serialVersionUID}),
 * made to record the shape of its type: it is an {@link Codec.Evolving} whose schema is the shape
 * Jackson sees in the type (the schema of MessagePack for the type, the same text), so that each
 * value's envelope carries the fingerprint of the shape it was written with. A value written with
 * another shape is refused, whatever changed: such a codec cannot tell a rename from a removal and
 * an addition, and reading a renamed property by name gives {@code null}. A cache counts the
 * refusal as a miss and loads the value again. Thread-safe.
 */
final class ShapedCodec implements Codec.Evolving<Object> {
  private final Codec<Object> codec;
  private final String schema;
  private final String typeName;

  private ShapedCodec(Codec<Object> codec, String schema, String typeName) {
    this.codec = codec;
    this.schema = schema;
    this.typeName = typeName;
  }

  /** The codecs, by the name of their id, whose bytes do not say the shape of what they wrote. */
  private static final Set<String> SHAPELESS = Set.of("json", "fastjson2", "jdk");

  /**
   * {@code codec} itself when it records the shape of what it writes already (an {@link
   * Codec.Evolving}) or reads by field number (Protobuf, Thrift) or holds text only, and otherwise
   * {@code codec} recording the shape of {@code type}; {@code codec} itself too when Jackson cannot
   * describe the type.
   */
  static Codec<Object> of(Codec<Object> codec, TypeRef<?> type) {
    if (codec instanceof Codec.Evolving || !SHAPELESS.contains(Inspector.codecName(codec.id()))) {
      return codec;
    }
    String schema = shapeOf(type);
    return schema == null ? codec : new ShapedCodec(codec, schema, type.toString());
  }

  /** The shape of {@code type} as MessagePack's schema describes it, or null when there is none. */
  private static @Nullable String shapeOf(TypeRef<?> type) {
    try {
      return ((Codec.Evolving<?>) Codecs.msgpack(type)).schema();
    } catch (StowageException | IllegalArgumentException | ClassCastException e) {
      return null;
    }
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
  public String schema() {
    return schema;
  }

  @Override
  public byte[] encode(Object value) {
    return codec.encode(value);
  }

  @Override
  public Object decode(byte[] data, int offset, int length) {
    return codec.decode(data, offset, length);
  }

  @Override
  public Object decode(byte[] data, int offset, int length, String writerSchema) {
    throw new CodecException(
        codec.name()
            + " codec: the value was written with another shape of "
            + typeName
            + "; this codec reads properties by name and cannot tell a renamed property from a removed one, so a value"
            + " of another shape is read again (msgpack and msgpack-compact read it when the change is safe)");
  }

  @Override
  public String toString() {
    return codec + ", recording the shape of " + typeName;
  }
}
