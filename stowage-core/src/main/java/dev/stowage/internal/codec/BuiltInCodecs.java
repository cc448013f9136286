package dev.stowage.internal.codec;

import dev.stowage.Codec;
import dev.stowage.codec.JacksonOptions;
import java.lang.reflect.Type;
import java.util.List;

/**
 * Creates the built-in codecs. {@link dev.stowage.codec.Codecs} checks that a codec's library is
 * present before it calls in here; each method then loads the classes of that one library only.
 */
public final class BuiltInCodecs {
  private BuiltInCodecs() {}

  /** Jackson JSON for {@code type}, its mapper adjusted by {@code options}. */
  public static <T> Codec<T> json(Type type, JacksonOptions options) {
    return new JsonCodec<>(type, JacksonMappers.configuration(options));
  }

  /** MessagePack for {@code type}, both its mappers adjusted by {@code options}. */
  public static <T> Codec<T> msgpack(Type type, boolean compact, JacksonOptions options) {
    return new MsgpackCodec<>(type, compact, JacksonMappers.configuration(options));
  }

  public static <T> Codec<T> kryo(Class<T> type, List<Class<?>> alsoRegistered) {
    return new KryoCodec<>(type, alsoRegistered);
  }

  public static <T> Codec<T> fory(Class<T> type, List<Class<?>> alsoRegistered) {
    return new ForyCodec<>(type, alsoRegistered);
  }

  public static <T> Codec<T> protobuf(Class<T> type) {
    return new ProtobufCodec<>(type);
  }

  public static <T> Codec<T> avro(Class<T> type) {
    return new AvroCodec<>(type);
  }

  public static <T> Codec<T> thrift(Class<T> type) {
    return new ThriftCodec<>(type);
  }

  public static <T> Codec<T> jdk(Class<T> type, List<String> allowedClassPatterns) {
    return new JdkCodec<>(type, allowedClassPatterns);
  }

  /**
   * JSON as Spring's {@code GenericJackson2JsonRedisSerializer} writes it, behind a class
   * allowlist.
   */
  public static <T> Codec<T> springJson(Type type, List<String> allowedClassPatterns) {
    return new SpringJsonCodec<>(type, allowedClassPatterns);
  }

  public static <T> Codec<T> fastjson2(Class<T> type) {
    return new Fastjson2Codec<>(type);
  }

  public static Codec<byte[]> jsonBytes() {
    return JsonBytesCodec.INSTANCE;
  }

  public static Codec<String> string() {
    return Utf8StringCodec.INSTANCE;
  }
}
