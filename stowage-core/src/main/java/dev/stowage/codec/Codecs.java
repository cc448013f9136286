package dev.stowage.codec;

import dev.stowage.Codec;
import dev.stowage.MissingLibraryException;
import dev.stowage.TypeRef;
import dev.stowage.internal.OptionalLibrary;
import dev.stowage.internal.codec.BuiltInCodecs;
import dev.stowage.internal.codec.CodecLibraries;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The built-in codecs. Each factory checks that its library is on the classpath and otherwise
 * throws {@link MissingLibraryException} naming the Maven coordinates to add; nothing here loads a
 * library that the chosen codec does not use.
 *
 * <pre>{@code
 * Codec<Order> codec = Codecs.kryo(Order.class);
 * byte[] bytes = codec.encode(order);
 * Order back = codec.decode(bytes, 0, bytes.length);
 * }</pre>
 *
 * <p>Every codec returned is thread-safe and should be created once and shared: creating one builds
 * readers, writers and pools. Decoding never creates a class the codec was not configured for: JSON
 * and MessagePack never enable Jackson's default typing, fastjson2 runs without auto-type, Kryo and
 * Fory require class registration, and JDK serialization runs behind an allowlist. Bytes that
 * cannot be decoded, whatever the reason, give a {@link dev.stowage.CodecException} that names the
 * codec and carries the library's exception as its cause. A length or count in the bytes is checked
 * against the bytes left before the library allocates for it, so a few bytes cannot ask for
 * gigabytes (Fory's one exception is described in {@link #fory}).
 *
 * <p><b>When a class changes.</b> JSON, fastjson2 and named MessagePack read properties by name,
 * ignoring those they do not know; Protobuf and Thrift read fields by number. Compact MessagePack
 * (the default) and Kryo and Fory write by position, so they are {@link Codec.Evolving}s: each
 * value names the shape it was written with. Compact MessagePack reads older shapes by property
 * name; Kryo and Fory refuse a value of another shape (a cache counts it as a miss and loads it
 * again), so a changed class never reads as wrong values. Avro resolves the writer's schema against
 * the reader's by Avro's own rules. Any other codec can say the same by implementing {@link
 * dev.stowage.Codec.Evolving}: a schema text that changes whenever the class's bytes would.
 *
 * <p>The Jackson-based codecs (JSON, MessagePack) take {@link JacksonOptions} for property naming,
 * visibility and modules, which need no Jackson mapper type; nothing here loads Jackson until one
 * of them is called.
 */
public final class Codecs {
  private static final List<String> NAMES =
      List.of(
          "json",
          "msgpack",
          "msgpack-compact",
          "kryo",
          "fory",
          "protobuf",
          "avro",
          "thrift",
          "jdk",
          "fastjson2",
          "string");

  private Codecs() {}

  /**
   * The codec a cache uses when none is chosen: {@link #msgpackCompact(Class)}.
   *
   * <p>Compact MessagePack is smaller than JSON and needs no registration: Kryo and Fory need every
   * class a value holds registered, which a default given only {@code type} cannot know, while
   * compact MessagePack works on any record or bean Jackson can map, reads named MessagePack too,
   * and stays readable outside the JVM.
   *
   * @throws MissingLibraryException without {@code jackson-dataformat-msgpack} (or Jackson)
   */
  public static <T> Codec<T> defaultFor(Class<T> type) {
    return msgpackCompact(type);
  }

  /**
   * The default codec for a type with type arguments, such as {@code List<Item>}: see {@link
   * #defaultFor(Class)}.
   */
  public static <T> Codec<T> defaultFor(TypeRef<T> type) {
    return msgpackCompact(type);
  }

  /**
   * Jackson JSON in UTF-8, with {@code java.time} support (ISO-8601 text). Unknown properties are
   * ignored; default typing is never enabled, so the bytes cannot choose the class created.
   *
   * @throws MissingLibraryException without {@code jackson-databind} or {@code
   *     jackson-datatype-jsr310}
   */
  public static <T> Codec<T> json(Class<T> type) {
    return json(TypeRef.of(type), JacksonOptions.defaults());
  }

  /**
   * As {@link #json(Class)}, for a type with type arguments (such as {@code List<Item>}, decoded to
   * {@code Item} elements).
   *
   * @throws MissingLibraryException without {@code jackson-databind} or {@code
   *     jackson-datatype-jsr310}
   */
  public static <T> Codec<T> json(TypeRef<T> type) {
    return json(type, JacksonOptions.defaults());
  }

  /**
   * As {@link #json(TypeRef)}, with the mapping adjusted by {@code options} (property naming,
   * visibility, modules), applied once, when the codec is made, to a mapper already set up as
   * described above.
   *
   * <pre>{@code
   * Codecs.json(new TypeRef<List<Item>>() {}, JacksonOptions.defaults().withPropertyNaming(PropertyNaming.SNAKE_CASE));
   * }</pre>
   *
   * @throws IllegalArgumentException if a {@linkplain JacksonOptions#withJackson2Mapper Jackson 2
   *     mapper configuration} enables default typing, which would let the bytes choose the class
   *     created
   * @throws MissingLibraryException without {@code jackson-databind} or {@code
   *     jackson-datatype-jsr310}
   */
  public static <T> Codec<T> json(TypeRef<T> type, JacksonOptions options) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(options, "options");
    CodecLibraries.JACKSON.require();
    CodecLibraries.JACKSON_JAVA_TIME.require();
    return BuiltInCodecs.json(type.type(), options);
  }

  /**
   * MessagePack through msgpack-java's Jackson format, each object a map keyed by property names:
   * the shape Spring's MessagePack serializers store. Reads the {@linkplain #msgpackCompact
   * compact} shape too. Codec id 2, {@code msgpack}.
   *
   * @throws MissingLibraryException without {@code jackson-dataformat-msgpack} (or Jackson)
   */
  public static <T> Codec<T> msgpack(Class<T> type) {
    return msgpack(TypeRef.of(type), JacksonOptions.defaults());
  }

  /**
   * As {@link #msgpack(Class)}, for a type with type arguments.
   *
   * @throws MissingLibraryException without {@code jackson-dataformat-msgpack} (or Jackson)
   */
  public static <T> Codec<T> msgpack(TypeRef<T> type) {
    return msgpack(type, JacksonOptions.defaults());
  }

  /**
   * As {@link #msgpack(TypeRef)}, with the mappers adjusted by {@code options}; see {@link
   * #json(TypeRef, JacksonOptions)}.
   *
   * @throws IllegalArgumentException if a Jackson 2 mapper configuration enables default typing
   * @throws MissingLibraryException without {@code jackson-dataformat-msgpack} (or Jackson)
   */
  public static <T> Codec<T> msgpack(TypeRef<T> type, JacksonOptions options) {
    requireMsgpack(type);
    Objects.requireNonNull(options, "options");
    return BuiltInCodecs.msgpack(type.type(), false, options);
  }

  /**
   * MessagePack with each object written as an array of its property values, by position
   * (declaration order; record component order): much smaller than the named shape, as field names
   * are not repeated in every value. Reads the named shape too, so a cache can switch between the
   * two without flushing: both have codec id 2, {@code msgpack}, and the decoder tells them apart
   * by the first byte.
   *
   * <p>The codec is an {@link Codec.Evolving}: each value's envelope carries the fingerprint of the
   * type's positional shape, and the shape itself is kept in Redis once. A value written before the
   * type gained, lost or reordered properties is read by property name through the writer's shape:
   * new properties take their defaults, removed ones are skipped. A value whose shape cannot be
   * read correctly (a property changed to an incompatible kind, or a removed and an added property
   * of compatible kinds, which may be a rename, unless {@code @JsonAlias} names the old property)
   * is refused with a {@link dev.stowage.CodecException}, which a cache counts as a miss.
   *
   * @throws MissingLibraryException without {@code jackson-dataformat-msgpack} (or Jackson)
   */
  public static <T> Codec<T> msgpackCompact(Class<T> type) {
    return msgpackCompact(TypeRef.of(type), JacksonOptions.defaults());
  }

  /**
   * As {@link #msgpackCompact(Class)}, for a type with type arguments.
   *
   * @throws MissingLibraryException without {@code jackson-dataformat-msgpack} (or Jackson)
   */
  public static <T> Codec<T> msgpackCompact(TypeRef<T> type) {
    return msgpackCompact(type, JacksonOptions.defaults());
  }

  /**
   * As {@link #msgpackCompact(TypeRef)}, with the mappers adjusted by {@code options}; see {@link
   * #json(TypeRef, JacksonOptions)}. Property naming changes the names a value's shape records.
   *
   * @throws IllegalArgumentException if a Jackson 2 mapper configuration enables default typing
   * @throws MissingLibraryException without {@code jackson-dataformat-msgpack} (or Jackson)
   */
  public static <T> Codec<T> msgpackCompact(TypeRef<T> type, JacksonOptions options) {
    requireMsgpack(type);
    Objects.requireNonNull(options, "options");
    return BuiltInCodecs.msgpack(type.type(), true, options);
  }

  /**
   * Kryo 5 with class registration required. Registered are {@code type}, then {@code
   * alsoRegistered} in the order given (their ids are part of the wire format: keep the order), and
   * a fixed set of JDK value and collection classes ({@code String}, boxed primitives, {@code
   * java.time}, {@code BigDecimal}, {@code UUID}, {@code ArrayList}, {@code HashMap}, {@code
   * List.of(...)}, ...). Every other class of your own that the value holds (a nested record, an
   * enum, the element class of a list, the implementations of an interface-typed field) must be
   * passed in {@code alsoRegistered}.
   *
   * @throws IllegalArgumentException if a class that {@code type}'s fields declare is not
   *     registered; the message lists the classes to pass
   * @throws MissingLibraryException without {@code com.esotericsoftware:kryo}
   */
  public static <T> Codec<T> kryo(Class<T> type, Class<?>... alsoRegistered) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(alsoRegistered, "alsoRegistered");
    CodecLibraries.KRYO.require();
    return BuiltInCodecs.kryo(type, Arrays.asList(alsoRegistered));
  }

  /**
   * Apache Fory in Java mode with class registration required, thread-safe. Registered are {@code
   * type} and {@code alsoRegistered} in the order given (their ids are part of the wire format),
   * besides Fory's built-in JDK types. Every other class of your own that the value holds must be
   * passed in {@code alsoRegistered}.
   *
   * <p><b>Warning:</b> bytes that name a class by name, which this codec never writes, make Fory
   * 0.13 read the name at the length they declare (up to 1 GiB) before it refuses the class; no
   * hook reaches that read. Collections, maps, arrays and big numbers are checked.
   *
   * @throws IllegalArgumentException if a class that {@code type}'s fields declare is not
   *     registered; the message lists the classes to pass
   * @throws MissingLibraryException without {@code org.apache.fory:fory-core}
   */
  public static <T> Codec<T> fory(Class<T> type, Class<?>... alsoRegistered) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(alsoRegistered, "alsoRegistered");
    CodecLibraries.FORY.require();
    return BuiltInCodecs.fory(type, Arrays.asList(alsoRegistered));
  }

  /**
   * Protocol Buffers on a generated message class ({@code type} must implement {@code
   * com.google.protobuf.Message}), parsed by the class's own parser. Proto3 fields cannot be null.
   *
   * @throws IllegalArgumentException if {@code type} is not a generated message class
   * @throws MissingLibraryException without {@code com.google.protobuf:protobuf-java}
   */
  public static <T> Codec<T> protobuf(Class<T> type) {
    Objects.requireNonNull(type, "type");
    CodecLibraries.PROTOBUF.require();
    return BuiltInCodecs.protobuf(type);
  }

  /**
   * Avro binary encoding on a generated record class ({@code type} must implement {@code
   * org.apache.avro.specific.SpecificRecord}), with its own schema. Only fields whose schema is a
   * union with null can be null.
   *
   * @throws IllegalArgumentException if {@code type} is not a generated Avro record class
   * @throws MissingLibraryException without {@code org.apache.avro:avro}
   */
  public static <T> Codec<T> avro(Class<T> type) {
    Objects.requireNonNull(type, "type");
    CodecLibraries.AVRO.require();
    return BuiltInCodecs.avro(type);
  }

  /**
   * Thrift's compact protocol on a generated struct class ({@code type} must implement {@code
   * org.apache.thrift.TBase}). Unset optional fields read back as null.
   *
   * @throws IllegalArgumentException if {@code type} is not a generated Thrift struct
   * @throws MissingLibraryException without {@code org.apache.thrift:libthrift}
   */
  public static <T> Codec<T> thrift(Class<T> type) {
    Objects.requireNonNull(type, "type");
    CodecLibraries.THRIFT.require();
    return BuiltInCodecs.thrift(type);
  }

  /**
   * JDK serialization behind an {@link java.io.ObjectInputFilter} allowlist, with limits on depth
   * (64), array length (16 Mi elements, and no more than the bytes left), references (1 M) and
   * bytes (256 MiB), and on work: the stream is walked first and refused if its shared references
   * unfold into more than ten million objects (nested sets whose hashing would never end), and a
   * read stops once it has taken a second of CPU time and 200 ns more per byte (colliding hash
   * keys). Allowed are {@code type}, the classes its fields declare (and their superclasses), plain
   * JDK data classes (boxed primitives, {@code String}, {@code BigDecimal}, {@code BigInteger},
   * {@code java.time}, {@code UUID}, {@code Date} and the common {@code java.util} collections),
   * and the patterns given: {@code "com.example.Type"}, {@code "com.example.*"} (a package) or
   * {@code "com.example.**"} (a package and its subpackages). Anything else in the bytes is
   * rejected before it is created. Classes are looked up through {@code type}'s class loader first,
   * so a type loaded from a class loader of its own (a plugin's, the inspector's {@code
   * --classpath}) finds the classes its values hold.
   *
   * @throws IllegalArgumentException if {@code type} is not {@code Serializable} or a pattern is
   *     malformed
   */
  public static <T> Codec<T> jdk(Class<T> type, String... allowedClassPatterns) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(allowedClassPatterns, "allowedClassPatterns");
    for (String pattern : allowedClassPatterns) {
      Objects.requireNonNull(pattern, "allowedClassPatterns contains null");
    }
    return BuiltInCodecs.jdk(type, List.of(allowedClassPatterns));
  }

  /**
   * JSON as Spring Data Redis's {@code GenericJackson2JsonRedisSerializer} writes it with its
   * default typing: the class of each object in an {@code "@class"} property, collections wrapped
   * as {@code ["java.util.ArrayList",[...]]}, and {@code Long}, {@code Date} and other non-natural
   * values in a field of type {@code Object} wrapped as {@code ["java.lang.Long",5]}. Meant as the
   * {@linkplain dev.stowage.Encoding#legacy legacy codec} of a cache whose Redis holds that
   * serializer's values (see {@code docs/MIGRATION.md}); it also writes that format, for {@link
   * dev.stowage.Encoding#writeLegacy}.
   *
   * <p>A class named in the bytes is created only if it is allowed, and checked by its name before
   * it is loaded: allowed are {@code type}, the classes its fields declare (and their
   * superclasses), the JDK data classes {@link #jdk} allows (boxed primitives, {@code String}, big
   * numbers, {@code UUID}, {@code Date}, {@code java.time} and the common {@code java.util}
   * collections), and the patterns given, as for {@link #jdk}: {@code "com.example.Type"}, {@code
   * "com.example.*"} or {@code "com.example.**"}. A value naming any other class, such as the
   * implementation of an interface-typed field or Spring's {@code NullValue}, is a {@link
   * dev.stowage.CodecException}, which a cache counts as a miss. The root of a value is read as its
   * raw class, as the serializer writes it: use {@code List.class} (or {@link #springJson(TypeRef,
   * String...)}) for a cached list, and allow its elements' classes.
   *
   * <p>Dates are written as timestamps, as the serializer's mapper writes them, and read in either
   * form; unknown properties are ignored. The codec's id is 1, {@code json}, and its name {@code
   * spring-json}.
   *
   * @throws IllegalArgumentException if a pattern is malformed
   * @throws MissingLibraryException without {@code jackson-databind} or {@code
   *     jackson-datatype-jsr310}
   */
  public static <T> Codec<T> springJson(Class<T> type, String... allowedClassPatterns) {
    return springJson(TypeRef.of(type), allowedClassPatterns);
  }

  /**
   * As {@link #springJson(Class, String...)}, for a type with type arguments: the classes of its
   * type arguments (such as {@code Item} in {@code List<Item>}) and their fields are allowed too.
   */
  public static <T> Codec<T> springJson(TypeRef<T> type, String... allowedClassPatterns) {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(allowedClassPatterns, "allowedClassPatterns");
    for (String pattern : allowedClassPatterns) {
      Objects.requireNonNull(pattern, "allowedClassPatterns contains null");
    }
    CodecLibraries.JACKSON.require();
    CodecLibraries.JACKSON_JAVA_TIME.require();
    return BuiltInCodecs.springJson(type.type(), List.of(allowedClassPatterns));
  }

  /**
   * fastjson2 JSON in UTF-8, with auto-type off. Null properties are left out when writing and read
   * back as null.
   *
   * @throws MissingLibraryException without {@code com.alibaba.fastjson2:fastjson2}
   */
  public static <T> Codec<T> fastjson2(Class<T> type) {
    Objects.requireNonNull(type, "type");
    CodecLibraries.FASTJSON2.require();
    return BuiltInCodecs.fastjson2(type);
  }

  /**
   * JSON documents kept as their UTF-8 bytes, for code that serves stored JSON without building
   * objects (a service that splices stored fragments into its response). Values are stored and
   * returned as they are, under codec id 1, {@code json}, so every JSON reader (and the inspector)
   * reads them as JSON; both directions check, with Jackson's streaming parser, that the bytes are
   * exactly one well-formed JSON value nested at most 1,000 deep, and anything else is a {@link
   * dev.stowage.CodecException}.
   *
   * @throws MissingLibraryException without {@code jackson-core} (part of {@code jackson-databind})
   */
  public static Codec<byte[]> jsonBytes() {
    CodecLibraries.JACKSON.require();
    return BuiltInCodecs.jsonBytes();
  }

  /**
   * Strings as UTF-8: the bytes Spring's {@code StringRedisSerializer} writes. Decoding rejects
   * bytes that are not valid UTF-8. Needs no library.
   */
  public static Codec<String> string() {
    return BuiltInCodecs.string();
  }

  /**
   * The codec with this name, as the command line spells it: {@code json}, {@code msgpack}, {@code
   * msgpack-compact}, {@code kryo}, {@code fory}, {@code protobuf}, {@code avro}, {@code thrift},
   * {@code jdk}, {@code fastjson2} or {@code string} (ignoring case). The extra classes are
   * registered with Kryo and Fory, and allowed by name for JDK serialization; the other codecs
   * ignore them.
   *
   * @throws IllegalArgumentException for an unknown name (the message lists the valid ones), or for
   *     {@code string} with a type other than {@code String}
   * @throws MissingLibraryException if the codec's library is missing
   */
  public static <T> Codec<T> forName(String name, Class<T> type, Class<?>... alsoRegistered) {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(alsoRegistered, "alsoRegistered");
    return switch (name.strip().toLowerCase(Locale.ROOT)) {
      case "json" -> json(type);
      case "msgpack" -> msgpack(type);
      case "msgpack-compact" -> msgpackCompact(type);
      case "kryo" -> kryo(type, alsoRegistered);
      case "fory" -> fory(type, alsoRegistered);
      case "protobuf" -> protobuf(type);
      case "avro" -> avro(type);
      case "thrift" -> thrift(type);
      case "jdk" ->
          jdk(type, Arrays.stream(alsoRegistered).map(Class::getName).toArray(String[]::new));
      case "fastjson2" -> fastjson2(type);
      case "string" -> stringCodec(type);
      default ->
          throw new IllegalArgumentException(
              "unknown codec '" + name + "'; choose from " + String.join(", ", NAMES));
    };
  }

  private static <T> Codec<T> stringCodec(Class<T> type) {
    if (type != String.class) {
      throw new IllegalArgumentException(
          "the string codec encodes String values, not " + type.getName());
    }
    @SuppressWarnings("unchecked") // type is String.class, so a Codec<String> is a Codec<T>
    Codec<T> text = (Codec<T>) string();
    return text;
  }

  /** The names {@link #forName} accepts, in the order the documentation lists them. */
  public static List<String> names() {
    return NAMES;
  }

  /**
   * Returns normally when {@code className} can be loaded (without initialising it), and otherwise
   * throws {@link MissingLibraryException} naming {@code coordinates}: the check each factory makes
   * for its own library, open to tests for a class that does not exist.
   */
  static void requireLibrary(String feature, String className, String coordinates) {
    new OptionalLibrary(feature, className, coordinates).require();
  }

  private static void requireMsgpack(TypeRef<?> type) {
    Objects.requireNonNull(type, "type");
    CodecLibraries.JACKSON.require();
    CodecLibraries.JACKSON_JAVA_TIME.require();
    CodecLibraries.MSGPACK.require();
  }
}
