package dev.stowage.spring;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.StowageException;
import dev.stowage.TypeRef;
import dev.stowage.codec.Codecs;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.springframework.cache.support.NullValue;

/**
 * The values of a cache without a configured type: each value's type as Java text, then the value
 * in an envelope of the codec named for that type, which carries the fingerprint of the type's
 * shape. Reading loads a class only if the {@link ClassAllowlist} permits its name; any other name
 * is a {@link CodecException}, which the cache counts as a miss. Nothing outside the allowlist is
 * ever loaded or created.
 *
 * <p><b>Types.</b> A value's type is its class; for a list, set or map it is the container with the
 * type of its elements, found in the value: {@code java.util.List<com.example.Book>} when every
 * element is a {@code Book} ({@code java.lang.Object} when there is none), read back as an {@code
 * ArrayList} of books. A container of {@code java.util} keeps its own class ({@code ArrayList},
 * {@code LinkedList}, {@code HashSet}, {@code LinkedHashSet}, {@code TreeSet}, {@code HashMap},
 * {@code LinkedHashMap}, {@code TreeMap}); any other is written as its interface ({@code List},
 * {@code Set}, {@code SortedSet}, {@code Map}, {@code SortedMap}) and read as an {@code ArrayList},
 * {@code HashSet}, {@code TreeSet}, {@code LinkedHashMap} or {@code TreeMap}; containers are
 * written in compact MessagePack when the codec is {@code msgpack}. A value whose type cannot be
 * told from it, such as a list holding elements of two classes, or a queue, is refused with a
 * message naming the {@code type} setting to add; {@link #refusal} says so before anything is
 * written.
 *
 * <p><b>Shapes.</b> Each type's codec is wrapped in an envelope of its own (no compression),
 * written with the {@link Encoding.Serializer} that {@code envelopes} makes, as a cache of that
 * type would: an {@link dev.stowage.Codec.Evolving} (named and compact MessagePack, the default)
 * writes the fingerprint of the type's schema, keeps the schema in Redis, and reads a value of
 * another shape through the writer's schema or refuses it, naming the property; JSON, fastjson2 and
 * JDK serialization record their shape through {@link ShapedCodec}. So a value of a changed class
 * is read exactly or is a miss, never a value with a renamed property read as {@code null}.
 *
 * <p><b>Payload.</b> One tag byte: {@code 0} for a cached {@code null} (Spring's {@link
 * NullValue}), alone; {@code 2} for a value, followed by the type text's length (two bytes,
 * big-endian), the text in UTF-8 and the envelope. Tag {@code 1} was written by earlier versions: a
 * class name and the codec's bytes, with no fingerprint. Those values are refused (a miss, once per
 * key, after which the value is written again with its shape): without a fingerprint nothing says
 * which shape of the class they hold, and reading them by property name is what read a renamed
 * property as {@code null}.
 */
final class ClassNamingCodec implements Codec<Object> {
  /** The codec id in the envelope, from the range left to applications' codecs. */
  static final int ID = 200;

  static final byte NULL_TAG = 0;

  /** The tag of a value written before shapes were recorded; read as a miss. */
  static final byte VALUE_TAG = 1;

  static final byte SHAPED_TAG = 2;

  /** How many types' codecs are kept; a cache rarely holds more than a few types. */
  private static final int MAX_TYPES = 256;

  /** How deep containers may nest in a value whose type is found in it. */
  private static final int MAX_DEPTH = 8;

  /** The containers a value may be read as: those written, and none other. */
  private static final Set<String> CONTAINERS =
      Set.of(
          "java.util.List",
          "java.util.Set",
          "java.util.SortedSet",
          "java.util.Map",
          "java.util.SortedMap",
          "java.util.ArrayList",
          "java.util.LinkedList",
          "java.util.HashSet",
          "java.util.LinkedHashSet",
          "java.util.TreeSet",
          "java.util.HashMap",
          "java.util.LinkedHashMap",
          "java.util.TreeMap");

  /**
   * Where a type's codec is made, or a writer's schema loaded, for a value first read on Redis's
   * I/O thread.
   */
  private static final Executor WARMING = ForkJoinPool.commonPool();

  /** Netty's event loop threads, which run Lettuce's I/O; null without Netty. */
  private static final @Nullable Class<?> NETTY_THREAD = nettyThread();

  private static final List<Class<?>> OWN_CLASS_CONTAINERS =
      List.of(
          ArrayList.class,
          LinkedList.class,
          HashSet.class,
          LinkedHashSet.class,
          TreeSet.class,
          HashMap.class,
          LinkedHashMap.class,
          TreeMap.class);

  private final String cacheName;
  private final String codecName;
  private final ClassAllowlist allowlist;
  private final ClassLoader classLoader;
  private final Function<Codec<Object>, Encoding.Serializer<Object>> envelopes;
  private final Predicate<String> readable;
  private final Map<String, TypeCodec> codecs = new ConcurrentHashMap<>();

  /**
   * A codec of values whose types {@code allowlist} permits, each written with the codec named
   * {@code codecName} for its type, wrapped by {@code envelopes} (an envelope without compression
   * that reads and keeps the writer schemas, such as {@code Encoding.serializer(stowage)}).
   */
  ClassNamingCodec(
      String cacheName,
      String codecName,
      ClassAllowlist allowlist,
      ClassLoader classLoader,
      Function<Codec<Object>, Encoding.Serializer<Object>> envelopes) {
    this.cacheName = cacheName;
    this.codecName = codecName.strip().toLowerCase(Locale.ROOT);
    this.allowlist = allowlist;
    this.classLoader = classLoader;
    this.envelopes = envelopes;
    this.readable =
        className ->
            allowlist.permits(className)
                || CONTAINERS.contains(className)
                || className.equals("java.lang.Object");
  }

  private static @Nullable Class<?> nettyThread() {
    try {
      return Class.forName(
          "io.netty.util.concurrent.FastThreadLocalThread",
          false,
          ClassNamingCodec.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      return null;
    }
  }

  @Override
  public int id() {
    return ID;
  }

  @Override
  public String name() {
    return "class-named " + codecName;
  }

  /**
   * Why {@code value} cannot be written, naming the setting that would let it, or null when it can:
   * what {@link #encode} would refuse before encoding it.
   */
  @Nullable String refusal(Object value) {
    if (value instanceof NullValue) {
      return null;
    }
    try {
      Type type = typeOf(value, value, 0);
      codecFor(JavaTypeText.of(type), type);
      return null;
    } catch (CodecException e) {
      return e.getMessage();
    }
  }

  @Override
  public byte[] encode(Object value) {
    if (value instanceof NullValue) {
      return new byte[] {NULL_TAG};
    }
    Type type = typeOf(value, value, 0);
    String text = JavaTypeText.of(type);
    byte[] name = text.getBytes(StandardCharsets.UTF_8);
    if (name.length > 0xffff) {
      throw new CodecException(
          "cache '" + cacheName + "': the type " + text.substring(0, 200) + "... is too long");
    }
    byte[] payload = codecFor(text, type).codec.encode(value);
    byte[] bytes = new byte[3 + name.length + payload.length];
    bytes[0] = SHAPED_TAG;
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
    if (length < 3 || (data[offset] != SHAPED_TAG && data[offset] != VALUE_TAG)) {
      throw new CodecException(
          name()
              + ": not a value of a Spring cache (tag "
              + (length == 0 ? "none" : data[offset])
              + ")");
    }
    int nameLength = (data[offset + 1] & 0xff) << 8 | (data[offset + 2] & 0xff);
    if (nameLength == 0 || 3 + nameLength > length) {
      throw new CodecException(
          name() + ": a type name of " + nameLength + " bytes in a value of " + length);
    }
    String text = new String(data, offset + 3, nameLength, StandardCharsets.UTF_8);
    if (data[offset] == VALUE_TAG) {
      throw new CodecException(
          name()
              + ": a value of "
              + text
              + " written by an earlier stowage-spring without the"
              + " fingerprint of its class's shape; it is read again, as reading it by property name could read a changed"
              + " class wrong (a renamed property as null)");
    }
    Type type;
    try {
      type = JavaTypeText.parse(text, classLoader, readable);
    } catch (IllegalArgumentException e) {
      throw new CodecException(
          name()
              + ": the value names "
              + text
              + ", which cannot be read: "
              + e.getMessage()
              + " (readable: "
              + allowlist
              + ")",
          e);
    }
    if (type == Object.class) {
      throw new CodecException(
          name() + ": the value names java.lang.Object, which no value is written as");
    }
    byte[] inner = Arrays.copyOfRange(data, offset + 3 + nameLength, offset + length);
    if (onRedisThread()) {
      // Making a type's codec keeps its schema in Redis, and reading another shape may load the
      // writer's schema from Redis: both wait for a reply that only this thread can read.
      TypeCodec known = codecs.get(text);
      int fingerprint = known == null ? -1 : known.fingerprintOf(inner);
      if (known == null || (fingerprint >= 0 && !known.readable.contains(fingerprint))) {
        WARMING.execute(
            () -> {
              try {
                decodeWith(codecFor(text, type), inner);
              } catch (RuntimeException e) {
                // Counted when it is read again.
              }
            });
        throw new CodecException(
            name()
                + ": the first value of "
                + text
                + (known == null ? "" : " of another shape")
                + " read on Redis's I/O thread, which must not wait for Redis; read as a miss while its schema is loaded");
      }
    }
    return decodeWith(codecFor(text, type), inner);
  }

  private static Object decodeWith(TypeCodec codec, byte[] inner) {
    int fingerprint = codec.fingerprintOf(inner);
    try {
      Object value = codec.codec.decode(inner);
      codec.read(fingerprint);
      return value;
    } catch (CodecException e) {
      codec.read(fingerprint); // the writer's schema was found, and refused
      throw e;
    }
  }

  /**
   * Whether this thread runs Lettuce's I/O (a Netty event loop), where decoding must never wait for
   * Redis.
   */
  private static boolean onRedisThread() {
    return NETTY_THREAD != null && NETTY_THREAD.isInstance(Thread.currentThread());
  }

  /** The codec of values of {@code type}, whose text is {@code text}. */
  private TypeCodec codecFor(String text, Type type) {
    TypeCodec known = codecs.get(text);
    if (known != null) {
      return known;
    }
    TypeCodec made =
        new TypeCodec(envelopes.apply(ShapedCodec.of(codecOf(text, type), TypeRef.of(type))));
    if (codecs.size() >= MAX_TYPES) {
      codecs.clear();
    }
    codecs.put(text, made);
    return made;
  }

  /**
   * The envelope codec of one type, and the writer fingerprints read with it without waiting for
   * Redis.
   */
  private static final class TypeCodec {
    private static final int MAX_FINGERPRINTS = 64;
    final Encoding.Serializer<Object> codec;
    final Set<Integer> readable = ConcurrentHashMap.newKeySet();

    TypeCodec(Encoding.Serializer<Object> codec) {
      this.codec = codec;
      codec.schemaVersion().ifPresent(readable::add);
    }

    /** The fingerprint an envelope names, or -1 for none (or no envelope). */
    int fingerprintOf(byte[] inner) {
      try {
        return Inspector.header(inner)
            .flatMap(h -> h.schemaVersion().stream().boxed().findFirst())
            .orElse(-1);
      } catch (StowageException e) {
        return -1;
      }
    }

    void read(int fingerprint) {
      if (fingerprint >= 0) {
        if (readable.size() >= MAX_FINGERPRINTS) {
          readable.clear();
          codec.schemaVersion().ifPresent(readable::add);
        }
        readable.add(fingerprint);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private Codec<Object> codecOf(String text, Type type) {
    try {
      if (type instanceof Class<?> c) {
        return (Codec<Object>) Codecs.forName(codecName, c);
      }
      TypeRef<Object> ref = (TypeRef<Object>) TypeRef.of(type);
      return switch (codecName) {
        // Compact for a container even under named msgpack: the reader tells the shapes apart by
        // the first element's header, which reads a named list of lists of records as positional.
        case "msgpack", "msgpack-compact" -> Codecs.msgpackCompact(ref);
        case "json" -> Codecs.json(ref);
        default ->
            throw new CodecException(
                "cache '"
                    + cacheName
                    + "': codec "
                    + codecName
                    + " takes a class, not "
                    + text
                    + "; choose msgpack (the default), msgpack-compact or json for stowage.caches."
                    + cacheName
                    + ".codec, or return a class holding it");
      };
    } catch (IllegalArgumentException e) {
      throw new CodecException(
          "cache '"
              + cacheName
              + "': codec "
              + codecName
              + " cannot write "
              + text
              + ": "
              + e.getMessage(),
          e);
    } catch (StowageException e) {
      if (e instanceof CodecException codecFailure) {
        throw codecFailure;
      }
      throw new CodecException(
          "cache '"
              + cacheName
              + "': codec "
              + codecName
              + " cannot write "
              + text
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The type {@code value} is written and read as: its class, or for a list, set or map its
   * container with the type its elements share. {@code root} is the value cached, for messages.
   */
  private Type typeOf(Object root, Object value, int depth) {
    if (depth > MAX_DEPTH) {
      throw refused(root, "its containers nest more than " + MAX_DEPTH + " deep", null);
    }
    Class<?> type = value.getClass();
    if (value instanceof Collection<?> collection) {
      Class<?> container = containerOf(collection);
      if (container == null) {
        throw refused(root, "a " + type.getName() + " is neither a list nor a set", null);
      }
      return JavaTypeText.parameterized(container, shared(root, collection, depth));
    }
    if (value instanceof Map<?, ?> map) {
      Class<?> container =
          OWN_CLASS_CONTAINERS.contains(type)
              ? type
              : map instanceof SortedMap ? SortedMap.class : Map.class;
      return JavaTypeText.parameterized(
          container, shared(root, map.keySet(), depth), shared(root, map.values(), depth));
    }
    Class<?> component = type;
    while (component.isArray()) {
      component = component.getComponentType();
    }
    if (!component.isPrimitive() && !allowlist.permits(component.getName())) {
      if (depth == 0 && component == type) {
        throw new CodecException(
            "cache '"
                + cacheName
                + "': "
                + type.getName()
                + " is outside "
                + allowlist
                + ", so it could not be read back; add its package to stowage.allowed-packages");
      }
      throw refused(
          root,
          "it holds a "
              + component.getName()
              + ", outside "
              + allowlist
              + " (add its package to stowage.allowed-packages)",
          null);
    }
    return type;
  }

  /**
   * The container class a collection is written as, or null for one that is neither a list nor a
   * set.
   */
  private static @Nullable Class<?> containerOf(Collection<?> collection) {
    Class<?> type = collection.getClass();
    if (OWN_CLASS_CONTAINERS.contains(type)) {
      return type;
    }
    if (collection instanceof List) {
      return List.class;
    }
    if (collection instanceof Set) {
      return collection instanceof SortedSet ? SortedSet.class : Set.class;
    }
    return null;
  }

  /** The type every non-null element of {@code elements} has; {@code Object} when there is none. */
  private Type shared(Object root, Collection<?> elements, int depth) {
    Type found = null;
    Class<?> firstClass = null;
    for (Object element : elements) {
      if (element == null) {
        continue;
      }
      Type type = typeOf(root, element, depth + 1);
      if (found == null) {
        found = type;
        firstClass = element.getClass();
      } else if (!found.equals(type)) {
        throw refused(
            root,
            "its elements are of different types ("
                + JavaTypeText.of(found)
                + ", "
                + JavaTypeText.of(type)
                + ")",
            commonSuperclass(firstClass, element.getClass()));
      }
    }
    return found == null ? Object.class : found;
  }

  private static @Nullable Class<?> commonSuperclass(@Nullable Class<?> one, Class<?> other) {
    for (Class<?> type = one; type != null; type = type.getSuperclass()) {
      if (type.isAssignableFrom(other)) {
        return type == Object.class || type == Record.class || type == Enum.class ? null : type;
      }
    }
    return null;
  }

  /**
   * The refusal of {@code root}, whose type cannot be told from it, naming the {@code type} setting
   * to add: the root's container with {@code element} (or a placeholder) as its element type.
   */
  private CodecException refused(Object root, String why, @Nullable Class<?> element) {
    String elementText = element == null ? "<element type>" : element.getName();
    String suggestion;
    if (root instanceof Map<?, ?> map) {
      Object key = map.keySet().stream().filter(k -> k != null).findFirst().orElse(null);
      suggestion =
          "java.util.Map<"
              + (key == null ? "java.lang.String" : key.getClass().getName())
              + ", "
              + elementText
              + ">";
    } else if (root instanceof Set) {
      suggestion = "java.util.Set<" + elementText + ">";
    } else if (root instanceof Collection) {
      suggestion = "java.util.List<" + elementText + ">";
    } else {
      suggestion = root.getClass().getName();
    }
    return new CodecException(
        "cache '"
            + cacheName
            + "': a "
            + root.getClass().getName()
            + " cannot be cached"
            + " without a type, as "
            + why
            + "; set the type of the cache's values: stowage.caches."
            + cacheName
            + ".type="
            + suggestion);
  }
}
