package dev.stowage.internal.codec;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.internal.format.CodecIds;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;
import org.apache.fory.Fory;
import org.apache.fory.ThreadSafeFory;
import org.apache.fory.config.Language;
import org.apache.fory.memory.MemoryBuffer;

/**
 * Apache Fory in Java mode with class registration required: bytes can only name registered classes
 * (the value class, the classes passed in, and Fory's own built-in JDK types). Values are written
 * with their class ({@code serialize}), so the value type may be an interface or an abstract class
 * whose implementations are passed in. Thread-safe through Fory's thread-safe wrapper.
 *
 * <p>Lengths that Fory would allocate by (arrays, collections, maps, big numbers) are checked
 * against the bytes left first ({@link ForyBounds}). One is out of reach: bytes that name a class
 * by name (this codec never writes one; every class it reads is registered) make Fory 0.13 read the
 * name at the length they declare, up to 1 GiB, before it refuses the unregistered class. Its
 * {@code MetaStringResolver} is final and reads before any serializer runs. Bytes left over after
 * the value fail the decode. Fory itself does not check every length: a {@code BigDecimal} cut
 * exactly at its unscaled digits reads as zero rather than failing, and this codec cannot tell.
 *
 * <p>Registration ids follow the order of registration, so that order is part of the wire format.
 * Fory's default schema-consistent mode does not notice a changed class, so the codec's schema
 * describes the registered classes' fields, and a value written with another shape is refused (a
 * miss), never read into the wrong fields.
 */
final class ForyCodec<T> implements Codec.Evolving<T> {
  private static final String NAME = "fory";
  private static final int MAX_DEPTH = 64;
  private final Class<T> type;
  private final ThreadSafeFory fory;
  private final String schema;

  ForyCodec(Class<T> type, List<Class<?>> alsoRegistered) {
    this.type = Objects.requireNonNull(type, "type");
    List<Class<?>> classes = new ArrayList<>();
    classes.add(type);
    for (Class<?> extra : alsoRegistered) {
      Objects.requireNonNull(extra, "alsoRegistered contains null");
      if (!classes.contains(extra)) {
        classes.add(extra);
      }
    }
    this.schema = FieldTypes.shapeOf(NAME, classes);
    this.fory =
        Fory.builder()
            .withLanguage(Language.JAVA)
            .requireClassRegistration(true)
            .withRefTracking(false)
            .withMaxDepth(MAX_DEPTH)
            .withClassLoader(
                type.getClassLoader() != null
                    ? type.getClassLoader()
                    : ForyCodec.class.getClassLoader())
            .buildThreadSafeFory();
    ForyBounds.install(fory);
    for (Class<?> registered : classes) {
      if (!fory.<Boolean>execute(f -> f.getClassResolver().isRegistered(registered))) {
        fory.register(registered);
      }
    }
    List<String> missing =
        FieldTypes.reachableFrom(classes).stream()
            .filter(c -> !FieldTypes.isJdk(c))
            .filter(c -> !fory.<Boolean>execute(f -> f.getClassResolver().isRegistered(c)))
            .map(Class::getName)
            .collect(Collectors.toList());
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "fory codec for "
              + type.getName()
              + " needs every class its fields hold registered; pass these to Codecs.fory(type, alsoRegistered...): "
              + String.join(", ", missing));
    }
  }

  @Override
  public int id() {
    return CodecIds.FORY;
  }

  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    try {
      return fory.serialize(value);
    } catch (RuntimeException e) {
      throw CodecFailures.encode(NAME, type, e);
    }
  }

  @Override
  public T decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    Object decoded;
    MemoryBuffer buffer = MemoryBuffer.fromByteArray(data, offset, length);
    try {
      decoded = fory.deserialize(buffer);
    } catch (RuntimeException e) {
      throw CodecFailures.decodeByRootCause(NAME, type, length, e);
    }
    if (buffer.readerIndex() != length) {
      // A value is read to its last byte. Fory 0.13 reads a BigDecimal cut short as zero instead of
      // failing; the position it stops at gives most such cuts away.
      throw new CodecException(
          "fory codec could not decode "
              + length
              + " bytes as "
              + type.getName()
              + ": the value ended after "
              + buffer.readerIndex()
              + " bytes");
    }
    if (decoded == null) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    if (!type.isInstance(decoded)) {
      throw CodecFailures.wrongType(NAME, type, decoded);
    }
    return type.cast(decoded);
  }

  /**
   * The registered classes and their fields, in order: {@link FieldTypes#shapeOf}. This codec
   * writes fields by position and cannot map another shape onto its classes, so it only tells a
   * changed class apart; see {@link #decode(byte[], int, int, String)}.
   */
  @Override
  public String schema() {
    return schema;
  }

  /**
   * Refuses a value written with another shape of the registered classes: read by position, it
   * could give wrong values.
   *
   * @throws CodecException always
   */
  @Override
  public T decode(byte[] data, int offset, int length, String writerSchema) {
    throw new CodecException(
        NAME
            + " codec reads fields by position and cannot read a value written with another"
            + " shape of "
            + type.getName()
            + " or the classes registered with it; it is read as a miss");
  }

  @Override
  public String toString() {
    return "fory codec for " + type.getName();
  }
}
