package dev.stowage.internal.codec;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.internal.format.CodecIds;
import java.lang.reflect.Constructor;
import java.util.Objects;
import org.apache.thrift.TBase;
import org.apache.thrift.TConfiguration;
import org.apache.thrift.TException;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.transport.TMemoryInputTransport;

/**
 * Apache Thrift's compact protocol on a generated struct class. Thrift's serializers are not
 * thread-safe; each thread gets its own, so the codec is. Each decode reads through a transport and
 * protocol of its own whose message size, string length and container size are bounded by the bytes
 * given: Thrift's defaults (100 MB) would let a few bytes allocate a string of 16 MB. Unset
 * optional fields read back as {@code null}.
 */
final class ThriftCodec<T> implements Codec<T> {
  private static final String NAME = "thrift";
  private static final int MAX_RETAINED_BUFFER = 256 * 1024;
  private final Class<T> type;
  private final Constructor<T> constructor;
  private final ThreadLocal<TSerializer> serializers =
      ThreadLocal.withInitial(ThriftCodec::newSerializer);

  ThriftCodec(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
    if (!TBase.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(
          "thrift codec needs a generated org.apache.thrift.TBase class; "
              + type.getName()
              + " is not one");
    }
    try {
      this.constructor = type.getConstructor();
    } catch (NoSuchMethodException e) {
      throw new IllegalArgumentException(
          "thrift codec needs a public no-argument constructor on " + type.getName(), e);
    }
  }

  private static TSerializer newSerializer() {
    try {
      return new TSerializer(new TCompactProtocol.Factory());
    } catch (TException e) {
      throw new CodecException("thrift codec could not create a serializer: " + e.getMessage(), e);
    }
  }

  @Override
  public int id() {
    return CodecIds.THRIFT;
  }

  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    try {
      byte[] bytes = serializers.get().serialize((TBase<?, ?>) value);
      if (bytes.length > MAX_RETAINED_BUFFER) {
        // The serializer keeps its grown buffer; do not hold a large one per thread.
        serializers.remove();
      }
      return bytes;
    } catch (TException | RuntimeException e) {
      serializers.remove();
      throw CodecFailures.encode(NAME, type, e);
    }
  }

  @Override
  public T decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    try {
      T value = constructor.newInstance();
      int bound = Math.max(1, length);
      TConfiguration limits =
          new TConfiguration(
              bound, TConfiguration.DEFAULT_MAX_FRAME_SIZE, TConfiguration.DEFAULT_RECURSION_DEPTH);
      ((TBase<?, ?>) value)
          .read(
              new TCompactProtocol(
                  new TMemoryInputTransport(limits, data, offset, length), bound, bound));
      return value;
    } catch (TException | ReflectiveOperationException | RuntimeException e) {
      throw CodecFailures.decode(NAME, type, length, e);
    }
  }

  @Override
  public String toString() {
    return "thrift codec for " + type.getName();
  }
}
