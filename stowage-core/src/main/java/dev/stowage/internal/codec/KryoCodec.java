package dev.stowage.internal.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import com.esotericsoftware.kryo.util.MapReferenceResolver;
import com.esotericsoftware.kryo.util.Pool;
import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.internal.format.CodecIds;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Kryo 5 with class registration required: a value can only name (and so create) a class that was
 * registered. Registered are the value class, the classes passed in, and a fixed list of JDK value
 * and collection classes with ids of their own. Values are written with their class id ({@code
 * writeClassAndObject}), so the value type may be an interface or an abstract class whose
 * implementations are passed in.
 *
 * <p>Kryo instances and their buffers are not thread-safe; each call borrows them from a pool, so
 * the codec is. Registration ids are part of the wire format: the user classes get ids from {@value
 * #FIRST_USER_ID} upwards in the order given, so that order must not change while values written
 * with it are alive. Kryo writes fields by position, so the codec's schema describes the registered
 * classes' fields, and a value written with another shape is refused (a miss), never read into the
 * wrong fields.
 */
final class KryoCodec<T> implements Codec.Evolving<T> {
  static final int FIRST_USER_ID = 100;
  private static final String NAME = "kryo";
  private static final int MAX_DEPTH = 64;
  private static final int INITIAL_BUFFER = 1024;
  private static final int MAX_RETAINED_BUFFER = 256 * 1024;
  private static final byte[] EMPTY = new byte[0];

  /**
   * The JDK classes every instance registers, at fixed ids from 20. Part of the wire format: append
   * only, never reorder.
   */
  private static final List<Class<?>> JDK_CLASSES =
      List.of(
          ArrayList.class,
          LinkedList.class,
          HashMap.class,
          LinkedHashMap.class,
          TreeMap.class,
          HashSet.class,
          LinkedHashSet.class,
          TreeSet.class,
          List.of().getClass(),
          List.of(1).getClass(),
          Set.of().getClass(),
          Set.of(1).getClass(),
          Map.of().getClass(),
          Map.of(1, 1).getClass(),
          Collections.emptyList().getClass(),
          Collections.emptySet().getClass(),
          Collections.emptyMap().getClass(),
          Collections.singletonList(1).getClass(),
          Collections.singleton(1).getClass(),
          Collections.singletonMap(1, 1).getClass(),
          byte[].class,
          int[].class,
          long[].class,
          double[].class,
          float[].class,
          short[].class,
          char[].class,
          boolean[].class,
          String[].class,
          BigDecimal.class,
          BigInteger.class,
          UUID.class,
          Date.class,
          Instant.class,
          LocalDate.class,
          LocalTime.class,
          LocalDateTime.class,
          OffsetDateTime.class,
          ZonedDateTime.class,
          Duration.class,
          ZoneOffset.class,
          ZoneId.of("Europe/Paris").getClass());

  private static final int FIRST_JDK_ID = 20;

  private final Class<T> type;
  private final List<Class<?>> registered;
  private final String schema;
  private final Pool<Kryo> kryos;
  private final Pool<Output> outputs;
  private final Pool<Input> inputs;

  KryoCodec(Class<T> type, List<Class<?>> alsoRegistered) {
    this.type = Objects.requireNonNull(type, "type");
    List<Class<?>> classes = new ArrayList<>();
    classes.add(type);
    for (Class<?> extra : alsoRegistered) {
      Objects.requireNonNull(extra, "alsoRegistered contains null");
      if (!classes.contains(extra) && !JDK_CLASSES.contains(extra)) {
        classes.add(extra);
      }
    }
    this.registered = List.copyOf(classes);
    this.schema = FieldTypes.shapeOf(NAME, registered);
    int capacity = Math.max(8, Runtime.getRuntime().availableProcessors() * 4);
    this.kryos =
        new Pool<>(true, false, capacity) {
          @Override
          protected Kryo create() {
            return newKryo();
          }
        };
    this.outputs =
        new Pool<>(true, false, capacity) {
          @Override
          protected Output create() {
            return new Output(INITIAL_BUFFER, -1);
          }
        };
    this.inputs =
        new Pool<>(true, false, capacity) {
          @Override
          protected Input create() {
            return new KryoBounds.BoundedInput();
          }
        };
    Kryo first = kryos.obtain();
    requireNestedTypesRegistered(first);
    kryos.free(first);
  }

  private Kryo newKryo() {
    Kryo kryo = new Kryo(new KryoBounds.RegisteredIdsOnly(), new MapReferenceResolver());
    kryo.setRegistrationRequired(true);
    kryo.setReferences(false);
    kryo.setMaxDepth(MAX_DEPTH);
    kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
    int id = FIRST_JDK_ID;
    for (Class<?> jdk : JDK_CLASSES) {
      Serializer<?> serializer = boundedSerializerFor(jdk);
      Registration registration =
          serializer != null ? kryo.register(jdk, serializer, id++) : kryo.register(jdk, id++);
      checkArrayLengths(registration);
    }
    id = FIRST_USER_ID;
    for (Class<?> user : registered) {
      checkArrayLengths(kryo.register(user, id++));
    }
    return kryo;
  }

  /** The serializers that replace Kryo's defaults so that lengths are checked before allocation. */
  private static @Nullable Serializer<?> boundedSerializerFor(Class<?> jdk) {
    if (jdk == UUID.class) {
      return new DefaultSerializers.UUIDSerializer();
    }
    if (jdk == ArrayList.class || jdk == HashSet.class || jdk == LinkedHashSet.class) {
      return new KryoBounds.BoundedCollectionSerializer();
    }
    if (jdk == HashMap.class || jdk == LinkedHashMap.class) {
      return new KryoBounds.BoundedMapSerializer();
    }
    String name = jdk.getName();
    if (name.startsWith("java.util.ImmutableCollections$List")) {
      return new KryoBounds.ImmutableListSerializer();
    }
    if (name.startsWith("java.util.ImmutableCollections$Set")) {
      return new KryoBounds.ImmutableSetSerializer();
    }
    if (name.startsWith("java.util.ImmutableCollections$Map")) {
      return new KryoBounds.ImmutableMapSerializer();
    }
    return null;
  }

  @SuppressWarnings({"rawtypes", "unchecked"})
  private static void checkArrayLengths(Registration registration) {
    Class<?> type = registration.getType();
    if (type.isArray() && !type.getComponentType().isPrimitive()) {
      registration.setSerializer(
          new KryoBounds.LengthCheckedArraySerializer(registration.getSerializer()));
    }
  }

  private void requireNestedTypesRegistered(Kryo kryo) {
    List<String> missing =
        FieldTypes.reachableFrom(registered).stream()
            .filter(c -> kryo.getClassResolver().getRegistration(c) == null)
            .map(Class::getName)
            .collect(Collectors.toList());
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "kryo codec for "
              + type.getName()
              + " needs every class its fields hold registered; pass these to Codecs.kryo(type, alsoRegistered...): "
              + String.join(", ", missing));
    }
  }

  /** The classes registered from {@value #FIRST_USER_ID} on, in id order. */
  List<Class<?>> registered() {
    return registered;
  }

  @Override
  public int id() {
    return CodecIds.KRYO;
  }

  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    Kryo kryo = kryos.obtain();
    Output output = outputs.obtain();
    boolean clean = false;
    try {
      output.reset();
      kryo.writeClassAndObject(output, value);
      byte[] bytes = output.toBytes();
      clean = true;
      return bytes;
    } catch (RuntimeException e) {
      throw CodecFailures.encode(NAME, type, e);
    } finally {
      if (!clean) {
        recover(kryo);
      }
      kryos.free(kryo);
      if (output.getBuffer().length > MAX_RETAINED_BUFFER) {
        output.setBuffer(new byte[INITIAL_BUFFER], -1);
      }
      outputs.free(output);
    }
  }

  @Override
  public T decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    Kryo kryo = kryos.obtain();
    Input input = inputs.obtain();
    boolean clean = false;
    Object decoded;
    try {
      input.setBuffer(data, offset, length);
      decoded = kryo.readClassAndObject(input);
      clean = true;
    } catch (RuntimeException e) {
      throw CodecFailures.decode(NAME, type, length, e);
    } finally {
      if (!clean) {
        recover(kryo);
      }
      kryos.free(kryo);
      input.setBuffer(EMPTY);
      inputs.free(input);
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
   * Returns a Kryo that failed midway through a write or a read to the state of a new one, which
   * costs far less than building one (about 0.35 ms here, registering every class): {@link
   * Kryo#reset()} clears the nesting depth, the graph context, the class and reference resolvers'
   * per-call state and the object being read, but not the generics stack, onto which Kryo 5.6's
   * field serializer pushes a field's type variables and pops them only when the call succeeds; a
   * new stack replaces it. (The tests below did not make such a leftover misread a value; nothing
   * else stops it.) {@code CodecCorruptionUnitTests.aFailedDecodeLeavesNothingForTheNext} and
   * {@code KryoSecurityUnitTests.aReadThatFailedInsideAGenericFieldLeavesNothingForTheNextRead}
   * read a valid value after every failed read, {@code
   * KryoSecurityUnitTests.encodingAnUnregisteredClassFails} writes one after a failed write.
   */
  private static void recover(Kryo kryo) {
    kryo.reset();
    kryo.setOptimizedGenerics(true);
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
    return "kryo codec for " + type.getName();
  }
}
