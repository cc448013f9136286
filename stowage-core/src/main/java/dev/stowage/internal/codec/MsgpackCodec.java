package dev.stowage.internal.codec;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.internal.format.CodecIds;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Collection;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/**
 * MessagePack through msgpack-java's Jackson format, in one of two shapes under one codec id: a map
 * keyed by property names (as Spring and the seed store it), or a compact array of property values
 * by position. Either instance reads both shapes, picking by the first byte (a map header or an
 * array header), so a cache can move from one shape to the other without flushing. For an array or
 * collection type, whose values are arrays in both shapes, the first element's header decides.
 * Lengths, counts and depth are checked by {@link MsgpackBounds} before Jackson reads a byte, and
 * so are the elements and string bytes that the value would build, against the {@link DecodeLimits}
 * of the decode.
 *
 * <p>Positional values are only as good as the reader's knowledge of the writer's field order, so
 * the codec is an {@link Codec.Evolving}: its schema is the positional shape of the type ({@link
 * PositionalSchema}), and a value written with another schema is read through that schema by
 * property name, or refused when it cannot be read correctly. Resolutions are kept per writer
 * schema. Thread-safe.
 */
final class MsgpackCodec<T> implements Codec.Evolving<T> {
  private static final String NAME = "msgpack";

  /** Writer schemas resolved and kept; a type rarely has more than a few live versions. */
  private static final int MAX_RESOLUTIONS = 64;

  private final Type type;
  private final JavaType javaType;
  private final boolean compact;
  private final boolean container;
  private final boolean map;
  private final ObjectMapper named;
  private final ObjectReader namedReader;
  private final ObjectReader positionalReader;
  private final ObjectWriter writer;
  private final PositionalSchema schema;
  private final ObjectMapper schemaText = new ObjectMapper();
  private final ConcurrentMap<String, PositionalResolution> resolutions = new ConcurrentHashMap<>();

  MsgpackCodec(Type type, boolean compact, @Nullable Consumer<? super ObjectMapper> configuration) {
    this.type = Objects.requireNonNull(type, "type");
    this.compact = compact;
    this.named =
        JacksonMappers.configured(
            JacksonMappers.namedBinary(new MessagePackFactory()), configuration);
    ObjectMapper positional =
        JacksonMappers.configured(
            JacksonMappers.positionalBinary(new MessagePackFactory()), configuration);
    this.javaType = named.constructType(type);
    Class<?> raw = javaType.getRawClass();
    this.container = raw.isArray() || Collection.class.isAssignableFrom(raw);
    this.map = Map.class.isAssignableFrom(raw);
    this.namedReader = named.readerFor(javaType);
    this.positionalReader = positional.readerFor(javaType);
    this.writer = (compact ? positional : named).writerFor(javaType);
    this.schema = PositionalSchema.of(positional, named, positional.constructType(type));
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
  public String schema() {
    return schema.text();
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
    bound(data, offset, length, 1);
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

  /**
   * Reads a value written with another schema of the type. The writer's schema is resolved against
   * this codec's first, whatever the value's shape: a property whose type changed other than by an
   * exact widening is refused. A map-shaped value is then read by name as usual; a positional one,
   * or any value of a pre-0.1 schema (whose kinds are checked value by value), is turned into names
   * through the writer's schema first.
   *
   * @throws CodecException if the writer's schema cannot be read into this type correctly (a
   *     property changed other than by an exact widening, or a rename without an alias), naming the
   *     property
   */
  @Override
  public T decode(byte[] data, int offset, int length, String writerSchema) {
    Objects.requireNonNull(writerSchema, "writerSchema");
    CodecFailures.checkRange(NAME, data, offset, length);
    if (length == 0) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    PositionalResolution resolution = resolution(writerSchema);
    if (resolution.failure() != null) {
      throw new CodecException(
          NAME
              + " codec cannot read a value written with another shape of "
              + CodecFailures.name(type)
              + ": "
              + resolution.failure());
    }
    if (!isPositional(data, offset, length) && !resolution.checksValues()) {
      return decode(data, offset, length);
    }
    bound(data, offset, length, 2); // the tree of the positional value, then the value read from it
    T value;
    try {
      JsonNode positional =
          positionalReader.readTree(new ByteArrayInputStream(data, offset, length));
      value = namedReader.readValue(resolution.toNamed(positional));
    } catch (IOException | RuntimeException e) {
      throw CodecFailures.decode(NAME, type, length, e);
    }
    if (value == null) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    return value;
  }

  /**
   * Checks the value's headers, elements and string bytes against the limits of the decode running
   * on this thread ({@link DecodeLimits}), and charges {@code builds} times its estimated heap to
   * that decode's budget, before Jackson reads a byte.
   */
  private void bound(byte[] data, int offset, int length, int builds) {
    DecodeLimits.Scope scope = DecodeLimits.scope();
    long heap;
    try {
      heap = MsgpackBounds.heapEstimate(data, offset, length, scope.limits());
    } catch (MsgpackBounds.Refusal refusal) {
      throw CodecFailures.refused(NAME, type, length, String.valueOf(refusal.getMessage()));
    }
    scope.charge(builds * heap);
  }

  private PositionalResolution resolution(String writerSchema) {
    PositionalResolution known = resolutions.get(writerSchema);
    if (known != null) {
      return known;
    }
    PositionalResolution made =
        PositionalSchema.resolve(PositionalSchema.parse(writerSchema, schemaText), schema);
    if (resolutions.size() >= MAX_RESOLUTIONS) {
      resolutions.clear();
    }
    resolutions.put(writerSchema, made);
    return made;
  }

  /**
   * Whether the value at {@code offset} is in the positional shape. A bean is an array; a
   * collection is an array either way, so its first element decides; a map is a map either way, so
   * its first value does.
   */
  private boolean isPositional(byte[] data, int offset, int length) {
    int end = offset + length;
    int b = data[offset] & 0xff;
    if (map) {
      int key = offset + ((b & 0xf0) == 0x80 ? 1 : b == 0xde ? 3 : b == 0xdf ? 5 : length);
      int value = key < end ? afterString(data, key, end) : end;
      return value < end && isArrayHeader(data[value]);
    }
    if (!isArrayHeader(data[offset])) {
      return false;
    }
    if (!container) {
      return true;
    }
    int first = offset + (b == 0xdc ? 3 : b == 0xdd ? 5 : 1);
    return first < end && isArrayHeader(data[first]);
  }

  /**
   * Where the MessagePack string at {@code at} ends, or {@code end} when it is no string or runs
   * past the end.
   */
  private static int afterString(byte[] data, int at, int end) {
    int b = data[at] & 0xff;
    long next;
    if ((b & 0xe0) == 0xa0) {
      next = at + 1L + (b & 0x1f);
    } else if (b == 0xd9 && at + 1 < end) {
      next = at + 2L + (data[at + 1] & 0xff);
    } else if (b == 0xda && at + 2 < end) {
      next = at + 3L + (((data[at + 1] & 0xff) << 8) | (data[at + 2] & 0xff));
    } else {
      return end;
    }
    return (int) Math.min(next, end);
  }

  /** fixarray (0x90-0x9f), array 16 (0xdc) or array 32 (0xdd). */
  static boolean isArrayHeader(byte first) {
    int b = first & 0xff;
    return (b & 0xf0) == 0x90 || b == 0xdc || b == 0xdd;
  }

  @Override
  public String toString() {
    return (compact ? "msgpack (compact) codec for " : "msgpack codec for ")
        + CodecFailures.name(type);
  }
}
