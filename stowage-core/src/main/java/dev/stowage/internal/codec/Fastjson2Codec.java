package dev.stowage.internal.codec;

import com.alibaba.fastjson2.JSON;
import dev.stowage.Codec;
import dev.stowage.internal.format.CodecIds;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * fastjson2 JSON, UTF-8, with auto-type off: an {@code "@type"} in the bytes never chooses the
 * class that is created, and the class it names is never loaded or instantiated. fastjson2 reads
 * only the declared types: an {@code "@type"} member of the value itself is skipped, and one inside
 * a field declared {@code Object} (or a map) stays plain data, an {@code "@type"} entry of the
 * {@code JSONObject} read there. Thread-safe.
 */
final class Fastjson2Codec<T> implements Codec<T> {
  private static final String NAME = "fastjson2";
  private final Class<T> type;

  Fastjson2Codec(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
  }

  @Override
  public int id() {
    return CodecIds.FASTJSON2;
  }

  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    try {
      return JSON.toJSONBytes(value);
    } catch (RuntimeException e) {
      throw CodecFailures.encode(NAME, type, e);
    }
  }

  @Override
  public T decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    T value;
    try {
      value = JSON.parseObject(data, offset, length, StandardCharsets.UTF_8, type);
    } catch (RuntimeException e) {
      throw CodecFailures.decode(NAME, type, length, e);
    }
    if (value == null) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    return value;
  }

  @Override
  public String toString() {
    return "fastjson2 codec for " + type.getName();
  }
}
