package dev.stowage.internal.codec;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import dev.stowage.Codec;
import dev.stowage.internal.format.CodecIds;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Jackson JSON, UTF-8. Values are read through a {@link BoundedJsonParser}, which holds them to the
 * elements the decode's {@link DecodeLimits} allow. Thread-safe: Jackson's readers and writers are
 * immutable.
 */
final class JsonCodec<T> implements Codec<T> {
  private static final String NAME = "json";
  private final Type type;
  private final ObjectReader reader;
  private final ObjectWriter writer;

  JsonCodec(Type type, @Nullable Consumer<? super ObjectMapper> configuration) {
    this.type = Objects.requireNonNull(type, "type");
    ObjectMapper mapper =
        JacksonMappers.configured(JacksonMappers.named(new JsonFactory()), configuration);
    JavaType javaType = mapper.constructType(type);
    this.reader = mapper.readerFor(javaType);
    this.writer = mapper.writerFor(javaType);
  }

  @Override
  public int id() {
    return CodecIds.JSON;
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
    T value;
    try (JsonParser parser =
        new BoundedJsonParser(reader.createParser(data, offset, length), DecodeLimits.scope())) {
      value = reader.readValue(parser);
      if (value != null
          && reader.isEnabled(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          && parser.nextToken() != null) {
        throw new IOException(
            "trailing token found after the value"); // as readValue(byte[]) says it
      }
    } catch (IOException | RuntimeException e) {
      throw BoundedJsonParser.failure(NAME, type, length, e);
    }
    if (value == null) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    return value;
  }

  @Override
  public String toString() {
    return "json codec for " + CodecFailures.name(type);
  }
}
