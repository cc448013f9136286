package dev.stowage.spring;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.codec.Codecs;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.cache.support.NullValue;

/**
 * The values of a cache without a configured type: each value's class name, then the value in the
 * codec named for that class. Reading loads the class only if the {@link ClassAllowlist} permits
 * its name; any other name is a {@link dev.stowage.CodecException}, which the cache counts as a
 * miss. Nothing outside the allowlist is ever loaded or created.
 *
 * <p>The payload: one tag byte, {@code 0} for a cached {@code null} (Spring's {@link NullValue}),
 * {@code 1} for a value, followed by the class name's length (two bytes, big-endian), the name in
 * UTF-8 and the codec's bytes. Collections, maps and arrays are refused when written: their element
 * types are not in the value, so they could not be read back as what was written.
 */
final class ClassNamingCodec implements Codec<Object> {
  /** The codec id in the envelope, from the range left to applications' codecs. */
  static final int ID = 200;
  static final byte NULL_TAG = 0;
  static final byte VALUE_TAG = 1;

  private final String cacheName;
  private final String codecName;
  private final ClassAllowlist allowlist;
  private final ClassLoader classLoader;
  private final Map<Class<?>, Codec<Object>> codecs = new ConcurrentHashMap<>();

  ClassNamingCodec(String cacheName, String codecName, ClassAllowlist allowlist, ClassLoader classLoader) {
    this.cacheName = cacheName;
    this.codecName = codecName;
    this.allowlist = allowlist;
    this.classLoader = classLoader;
  }

  @Override
  public int id() {
    return ID;
  }

  @Override
  public String name() {
    return "class-named " + codecName;
  }

  @Override
  public byte[] encode(Object value) {
    if (value instanceof NullValue) {
      return new byte[] {NULL_TAG};
    }
    Class<?> type = value.getClass();
    if (type.isArray() || value instanceof Collection || value instanceof Map) {
      throw new CodecException("cache '" + cacheName + "': a " + type.getName() + " cannot be cached without a type, as"
          + " its elements' classes are not recorded; return a record holding it, or set stowage.caches."
          + cacheName + ".type");
    }
    if (!allowlist.permits(type.getName())) {
      throw new CodecException("cache '" + cacheName + "': " + type.getName() + " is outside " + allowlist
          + ", so it could not be read back; add its package to stowage.allowed-packages");
    }
    byte[] name = type.getName().getBytes(StandardCharsets.UTF_8);
    byte[] payload = codecFor(type).encode(value);
    byte[] bytes = new byte[3 + name.length + payload.length];
    bytes[0] = VALUE_TAG;
    bytes[1] = (byte) (name.length >>> 8);
    bytes[2] = (byte) name.length;
    System.arraycopy(name, 0, bytes, 3, name.length);
    System.arraycopy(payload, 0, bytes, 3 + name.length, payload.length);
    return bytes;
  }

  @Override
  public Object decode(byte[] data, int offset, int length) {
    if (length == 1 && data[offset] == NULL_TAG) {
      return NullValue.INSTANCE;
    }
    if (length < 3 || data[offset] != VALUE_TAG) {
      throw new CodecException(name() + ": not a value of a Spring cache (tag " + (length == 0 ? "none" : data[offset])
          + ")");
    }
    int nameLength = (data[offset + 1] & 0xff) << 8 | data[offset + 2] & 0xff;
    if (nameLength == 0 || 3 + nameLength > length) {
      throw new CodecException(name() + ": a class name of " + nameLength + " bytes in a value of " + length);
    }
    String className = new String(data, offset + 3, nameLength, StandardCharsets.UTF_8);
    if (!allowlist.permits(className)) {
      throw new CodecException(name() + ": the value names " + className + ", outside " + allowlist);
    }
    Class<?> type;
    try {
      type = Class.forName(className, false, classLoader);
    } catch (ClassNotFoundException | LinkageError e) {
      throw new CodecException(name() + ": the value's class " + className + " cannot be loaded", e);
    }
    int start = offset + 3 + nameLength;
    return codecFor(type).decode(data, start, offset + length - start);
  }

  @SuppressWarnings("unchecked")
  private Codec<Object> codecFor(Class<?> type) {
    return codecs.computeIfAbsent(type, t -> (Codec<Object>) Codecs.forName(codecName, t));
  }
}
