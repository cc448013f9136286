package dev.stowage.internal.codec;

import dev.stowage.Codec;
import java.util.List;

/**
 * Creates the built-in codecs. {@link dev.stowage.codec.Codecs} checks that a codec's library is
 * present before it calls in here; each method then loads the classes of that one library only.
 */
public final class BuiltInCodecs {
  private BuiltInCodecs() {}

  public static <T> Codec<T> json(Class<T> type) {
    return new JsonCodec<>(type);
  }

  public static <T> Codec<T> msgpack(Class<T> type, boolean compact) {
    return new MsgpackCodec<>(type, compact);
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

  public static <T> Codec<T> fastjson2(Class<T> type) {
    return new Fastjson2Codec<>(type);
  }

  public static Codec<String> string() {
    return Utf8StringCodec.INSTANCE;
  }
}
