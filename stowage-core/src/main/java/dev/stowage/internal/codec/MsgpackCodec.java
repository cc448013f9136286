package dev.stowage.internal.codec;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.stowage.Codec;
import dev.stowage.CodecIds;
import java.io.IOException;
import java.util.Objects;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/**
 * MessagePack through msgpack-java's Jackson format, in one of two shapes under one codec id: a
 * map keyed by property names (as Spring and the seed store it), or a compact array of property
 * values by position. Either instance reads both shapes, picking by the first byte (a map header or
 * an array header), so a cache can move from one shape to the other without flushing. For an array
 * or collection type, whose values are arrays in both shapes, the first element's header decides.
 * Lengths, counts and depth are checked by {@link MsgpackBounds} before Jackson reads a byte.
 * Thread-safe.
 */
final class MsgpackCodec<T> implements Codec<T> {
  private static final String NAME = "msgpack";
  private final Class<T> type;
  private final boolean compact;
  private final boolean container;
  private final ObjectReader namedReader;
  private final ObjectReader positionalReader;
  private final ObjectWriter writer;

  MsgpackCodec(Class<T> type, boolean compact) {
    this.type = Objects.requireNonNull(type, "type");
    this.compact = compact;
    this.container = type.isArray() || java.util.Collection.class.isAssignableFrom(type);
    ObjectMapper named = JacksonMappers.namedBinary(new MessagePackFactory());
    ObjectMapper positional = JacksonMappers.positionalBinary(new MessagePackFactory());
    this.namedReader = named.readerFor(type);
    this.positionalReader = positional.readerFor(type);
    this.writer = (compact ? positional : named).writerFor(type);
  }

  @Override
  public int id() {
    return CodecIds.MSGPACK;
  }

  /** Whether this instance writes the positional (array) shape. */
  boolean compact() {
    return compact;
  }

  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    try {
      return writer.writeValueAsBytes(value);
    } catch (IOException | RuntimeException e) {
      throw CodecFailures.encode(NAME, type, e);
    }
  }

  @Override
  public T decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    if (length == 0) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    String problem = MsgpackBounds.problem(data, offset, length);
    if (problem != null) {
      throw CodecFailures.refused(NAME, type, length, problem);
    }
    ObjectReader reader = isPositional(data, offset, length) ? positionalReader : namedReader;
    T value;
    try {
      value = reader.readValue(data, offset, length);
    } catch (IOException | RuntimeException e) {
      throw CodecFailures.decode(NAME, type, length, e);
    }
    if (value == null) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    return value;
  }

  /** Whether the value at {@code offset} is in the positional shape. */
  private boolean isPositional(byte[] data, int offset, int length) {
    if (!isArrayHeader(data[offset])) {
      return false;
    }
    if (!container) {
      return true;
    }
    int b = data[offset] & 0xff;
    int first = offset + (b == 0xdc ? 3 : b == 0xdd ? 5 : 1);
    return first < offset + length && isArrayHeader(data[first]);
  }

  /** fixarray (0x90-0x9f), array 16 (0xdc) or array 32 (0xdd). */
  static boolean isArrayHeader(byte first) {
    int b = first & 0xff;
    return (b & 0xf0) == 0x90 || b == 0xdc || b == 0xdd;
  }

  @Override
  public String toString() {
    return (compact ? "msgpack (compact) codec for " : "msgpack codec for ") + type.getName();
  }
}
