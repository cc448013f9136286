package dev.stowage.internal.codec;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.internal.format.CodecIds;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * JDK serialization behind an {@link java.io.ObjectInputFilter} allowlist. Allowed are the value
 * class, the classes its fields declare (found by walking the field types, superclasses included),
 * plain JDK data classes ({@link JdkClassFilter#JDK_BASICS} and {@code java.time}), and the
 * patterns given; every other class is rejected before it is created.
 *
 * <p>Reading is bounded by work as well as by depth and references: {@link JdkGraphBounds} walks
 * the stream first and refuses a graph whose shared references unfold into more than {@value
 * JdkGraphBounds#MAX_UNFOLDED_OBJECTS} objects (nested sets that cost 2<sup>depth</sup> hash
 * calls), and the filter refuses arrays and collection tables larger than the bytes left and a read
 * that runs past its CPU budget (colliding hash keys). Thread-safe: each call uses its own streams.
 *
 * <p>Classes named in the bytes are looked up through the class loader of the value class first,
 * then as {@link ObjectInputStream} does, so a value class loaded by its own loader (a plugin, or
 * the inspector's {@code --classpath}) finds its fields' classes. Either way a class is resolved
 * without being initialized, and the filter judges it before anything is created.
 */
final class JdkCodec<T> implements Codec<T> {
  private static final String NAME = "jdk";
  private final Class<T> type;
  private final JdkClassFilter filter;

  JdkCodec(Class<T> type, List<String> allowedClassPatterns) {
    this.type = Objects.requireNonNull(type, "type");
    if (!Serializable.class.isAssignableFrom(type) && !type.isInterface()) {
      throw new IllegalArgumentException(
          "jdk codec needs a java.io.Serializable class; " + type.getName() + " is not");
    }
    Set<Class<?>> allowed = new HashSet<>();
    for (Class<?> reachable : FieldTypes.reachableFrom(List.of(type))) {
      for (Class<?> c = reachable;
          c != null && c != Object.class && !FieldTypes.isJdk(c);
          c = c.getSuperclass()) {
        allowed.add(c);
      }
    }
    this.filter = new JdkClassFilter(allowed, allowedClassPatterns);
  }

  @Override
  public int id() {
    return CodecIds.JDK;
  }

  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    } catch (IOException | RuntimeException | StackOverflowError e) {
      throw CodecFailures.encode(NAME, type, e);
    }
    return bytes.toByteArray();
  }

  @Override
  public T decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    String shape = JdkGraphBounds.problem(data, offset, length);
    if (shape != null) {
      throw CodecFailures.refused(NAME, type, length, shape);
    }
    Object decoded;
    JdkClassFilter.Reading reading = filter.reading(length);
    try (ObjectInputStream in =
        new TypeLoaderInput(new ByteArrayInputStream(data, offset, length), type)) {
      in.setObjectInputFilter(reading);
      decoded = in.readObject();
    } catch (IOException | ClassNotFoundException | RuntimeException | StackOverflowError e) {
      if (reading.rejection() != null) {
        throw CodecFailures.refused(NAME, type, length, reading.rejection(), e);
      }
      if (e instanceof StackOverflowError) {
        throw new CodecException(
            "jdk codec could not decode "
                + length
                + " bytes as "
                + type.getName()
                + ": the stack overflowed, as hashing a value that contains itself does",
            e);
      }
      throw CodecFailures.decode(NAME, type, length, e);
    }
    if (decoded == null) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    if (!type.isInstance(decoded)) {
      throw CodecFailures.wrongType(NAME, type, decoded);
    }
    return type.cast(decoded);
  }

  @Override
  public String toString() {
    return "jdk codec for " + type.getName();
  }

  /** An {@link ObjectInputStream} that resolves classes through the value class's loader first. */
  private static final class TypeLoaderInput extends ObjectInputStream {
    private final @Nullable ClassLoader loader;

    TypeLoaderInput(InputStream in, Class<?> type) throws IOException {
      super(in);
      this.loader = type.getClassLoader();
    }

    @Override
    protected Class<?> resolveClass(ObjectStreamClass descriptor)
        throws IOException, ClassNotFoundException {
      if (loader != null) {
        try {
          return Class.forName(descriptor.getName(), false, loader);
        } catch (ClassNotFoundException e) {
          // a JDK class, or one this loader does not see: resolved as the JDK resolves it
        }
      }
      return super.resolveClass(descriptor);
    }
  }
}
