package dev.stowage.spring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.Codec;
import dev.stowage.MissingLibraryException;
import dev.stowage.TypeRef;
import dev.stowage.codec.Codecs;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.support.NullValue;

/**
 * The legacy codec of a cache ({@code legacy-codec}): reads the values Spring Data Redis's {@code
 * RedisCacheManager} stored without Stowage's envelope, and writes them for {@code write-legacy}.
 * Spring's cached null is read as a cached null ({@link NullValue}) in both of its forms: the JDK
 * serialization of {@code NullValue} that Spring's {@code RedisCache} stores whatever its value
 * serializer, and the {@code {"@class":"org.springframework.cache.support.NullValue"}} that {@code
 * GenericJackson2JsonRedisSerializer} writes for it; a cached null is written in the first form,
 * which Spring's {@code RedisCache} reads as null. Any other value goes to the codec named, behind
 * the cache's allowlist.
 */
final class SpringLegacyCodec implements Codec<Object> {
  /** The names {@code legacy-codec} accepts. */
  static final List<String> NAMES = List.of("spring-json", "jackson-json", "jdk", "string");

  private static final String NULL_CLASS = NullValue.class.getName();

  /** What Spring's RedisCache stores for a cached null: NullValue, JDK-serialized. */
  private static final byte[] JDK_NULL = jdkNull();

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Longer JSON is no NullValue: spared the parse. */
  private static final int JSON_NULL_MAX = 256;

  private final Codec<Object> codec;

  private SpringLegacyCodec(Codec<Object> codec) {
    this.codec = codec;
  }

  /**
   * The legacy codec {@code name} of a cache of {@code type} (null for a cache without a type,
   * whose values name their class), allowing the classes {@code allowlist} allows.
   *
   * @param property the property that named it, for the messages
   * @throws IllegalArgumentException naming {@code property}, for an unknown name or a codec that
   *     cannot read the cache's type
   */
  @SuppressWarnings("unchecked")
  static SpringLegacyCodec of(
      String name, String property, @Nullable TypeRef<Object> type, ClassAllowlist allowlist) {
    String[] patterns = allowlist.packages().stream().map(p -> p + ".**").toArray(String[]::new);
    try {
      Codec<?> codec =
          switch (name) {
            case "spring-json" ->
                type == null
                    ? Codecs.springJson(Object.class, patterns)
                    : Codecs.springJson(type, patterns);
            case "jackson-json" -> {
              if (type == null) {
                throw new IllegalArgumentException(
                    "jackson-json reads plain JSON of one class, which the value does not"
                        + " name: set the cache's type too, or use spring-json for values with \"@class\"");
              }
              yield Codecs.json(type);
            }
            case "jdk" -> {
              Class<?> root = type == null ? Serializable.class : type.rawType();
              yield Codecs.jdk(root, patterns);
            }
            case "string" -> {
              if (type != null && type.type() != String.class) {
                throw new IllegalArgumentException(
                    "string reads text, but the cache's type is " + type);
              }
              yield Codecs.string();
            }
            default ->
                throw new IllegalArgumentException(
                    "unknown legacy codec '" + name + "'; choose from " + String.join(", ", NAMES));
          };
      return new SpringLegacyCodec((Codec<Object>) codec);
    } catch (MissingLibraryException e) {
      throw new IllegalStateException(property + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      // Without the cause: the message is the whole story, and the start's failure report ends with
      // it.
      throw new IllegalArgumentException(property + ": " + e.getMessage());
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
  public byte[] encode(Object value) {
    return value instanceof NullValue ? JDK_NULL.clone() : codec.encode(value);
  }

  @Override
  public Object decode(byte[] data, int offset, int length) {
    if (isJdkNull(data, offset, length) || isJsonNull(data, offset, length)) {
      return NullValue.INSTANCE;
    }
    return codec.decode(data, offset, length);
  }

  @Override
  public String toString() {
    return "legacy " + codec + ", reading Spring's cached nulls";
  }

  static boolean isJdkNull(byte[] data, int offset, int length) {
    return Arrays.equals(data, offset, offset + length, JDK_NULL, 0, JDK_NULL.length);
  }

  static boolean isJsonNull(byte[] data, int offset, int length) {
    if (length > JSON_NULL_MAX) {
      return false;
    }
    int start = offset;
    while (start < offset + length && Character.isWhitespace(data[start])) {
      start++;
    }
    if (start == offset + length || data[start] != '{') {
      return false;
    }
    try {
      JsonNode tree = JSON.readTree(data, offset, length);
      return tree != null
          && tree.isObject()
          && tree.size() == 1
          && NULL_CLASS.equals(tree.path("@class").asText(null));
    } catch (IOException e) {
      return false;
    }
  }

  private static byte[] jdkNull() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(NullValue.INSTANCE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }
}
