package dev.stowage.internal.codec;

import com.google.protobuf.Internal;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import dev.stowage.Codec;
import dev.stowage.internal.format.CodecIds;
import java.util.Objects;

/**
 * Protocol Buffers on a generated message class, through the class's own parser. Thread-safe:
 * messages are immutable and parsers stateless. Proto3 has no null fields: an unset string reads
 * back as {@code ""}.
 */
final class ProtobufCodec<T> implements Codec<T> {
  private static final String NAME = "protobuf";
  private final Class<T> type;
  private final Parser<? extends Message> parser;

  ProtobufCodec(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
    if (!Message.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(
          "protobuf codec needs a generated com.google.protobuf.Message class; "
              + type.getName()
              + " is not one");
    }
    @SuppressWarnings("unchecked")
    Class<? extends Message> messageType = (Class<? extends Message>) type;
    Message defaultInstance;
    try {
      defaultInstance = Internal.getDefaultInstance(messageType);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "protobuf codec could not find the default instance of "
              + type.getName()
              + "; is it a generated message class?",
          e);
    }
    this.parser = defaultInstance.getParserForType();
  }

  @Override
  public int id() {
    return CodecIds.PROTOBUF;
  }

  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    try {
      return ((Message) value).toByteArray();
    } catch (RuntimeException e) {
      throw CodecFailures.encode(NAME, type, e);
    }
  }

  @Override
  public T decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    try {
      return type.cast(parser.parseFrom(data, offset, length));
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      throw CodecFailures.decode(NAME, type, length, e);
    }
  }

  @Override
  public String toString() {
    return "protobuf codec for " + type.getName();
  }
}
