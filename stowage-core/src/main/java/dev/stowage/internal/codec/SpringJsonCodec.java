package dev.stowage.internal.codec;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.TreeNode;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.cfg.MapperConfig;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.jsontype.PolymorphicTypeValidator;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.stowage.Codec;
import dev.stowage.internal.format.CodecIds;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * JSON as Spring Data Redis's {@code GenericJackson2JsonRedisSerializer} writes it by default: each
 * value typed the way that serializer's default typing types it ({@code "@class"} in objects,
 * {@code ["java.util.ArrayList",[...]]} around collections, {@code ["java.lang.Long",5]} and {@code
 * ["java.util.Date",...]} where the declared type is {@code Object}), and Jackson's defaults
 * otherwise (dates as timestamps), with {@code java.time} support.
 *
 * <p>Every class name in the bytes is checked by name before Jackson loads it: allowed are the
 * value class, the classes its fields and type arguments declare, the JDK data classes of the JDK
 * codec and {@code java.time}, and the patterns given. Any other name fails the decode, and its
 * class is never loaded, so its static initializer never runs. The root is read as its raw class,
 * as the serializer writes it, so the elements of a root collection are not checked against its
 * type arguments, only against the allowlist. Thread-safe: Jackson's readers and mappers are.
 */
final class SpringJsonCodec<T> implements Codec<T> {
  private static final String NAME = "spring-json";

  /** The property Spring's serializer names the class of an object in. */
  private static final String CLASS_PROPERTY = "@class";

  private final Type type;
  private final ObjectMapper mapper;
  private final ObjectReader reader;

  SpringJsonCodec(Type type, List<String> allowedClassPatterns) {
    this.type = Objects.requireNonNull(type, "type");
    Set<String> allowed = new HashSet<>(JdkClassFilter.JDK_BASICS);
    for (Class<?> reachable : FieldTypes.reachableFrom(rawClasses(type))) {
      for (Class<?> c = reachable;
          c != null && c != Object.class && !FieldTypes.isJdk(c);
          c = c.getSuperclass()) {
        allowed.add(c.getName());
      }
    }
    ClassNameAllowlist allowlist = new ClassNameAllowlist(NAME, allowed, allowedClassPatterns);
    JsonMapper.Builder builder =
        JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(MapperFeature.USE_BASE_TYPE_AS_DEFAULT_IMPL)
            .addModule(new JavaTimeModule());
    if (CodecLibraries.JACKSON_JDK8.isPresent()) {
      builder.addModule(Jdk8Support.module());
    }
    this.mapper = builder.build();
    mapper.setDefaultTyping(
        new SpringTyping(new ByName(allowlist))
            .init(JsonTypeInfo.Id.CLASS, null)
            .inclusion(JsonTypeInfo.As.PROPERTY)
            .typeProperty(CLASS_PROPERTY));
    JavaType javaType = mapper.constructType(type);
    this.reader = mapper.readerFor(javaType.getRawClass());
  }

  private static List<Class<?>> rawClasses(Type type) {
    List<Class<?>> classes = new ArrayList<>();
    if (type instanceof Class<?> c) {
      classes.add(c);
    } else if (type instanceof ParameterizedType parameterized) {
      classes.addAll(rawClasses(parameterized.getRawType()));
      for (Type argument : parameterized.getActualTypeArguments()) {
        classes.addAll(rawClasses(argument));
      }
    }
    return classes;
  }

  @Override
  public int id() {
    return CodecIds.JSON;
  }

  @Override
  public String name() {
    return NAME;
  }

  /** Writes what the serializer writes for {@code value}: its runtime class is the root's type. */
  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    try {
      return mapper.writeValueAsBytes(value);
    } catch (IOException | RuntimeException e) {
      throw CodecFailures.encode(NAME, type, e);
    }
  }

  @Override
  public T decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    Object value;
    try (JsonParser parser =
        new BoundedJsonParser(reader.createParser(data, offset, length), DecodeLimits.scope())) {
      value = reader.readValue(parser);
      if (value != null
          && reader.isEnabled(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          && parser.nextToken() != null) {
        throw new IOException(
            "trailing token found after the value"); // as readValue(byte[]) says it
      }
    } catch (IOException | RuntimeException e) {
      throw BoundedJsonParser.failure(NAME, type, length, e);
    }
    if (value == null) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    Class<?> raw = reader.getValueType().getRawClass();
    if (!raw.isInstance(value)) {
      throw CodecFailures.wrongType(NAME, raw, value);
    }
    @SuppressWarnings("unchecked")
    T typed = (T) value;
    return typed;
  }

  @Override
  public String toString() {
    return "spring-json codec for " + CodecFailures.name(type);
  }

  /**
   * Which values carry a type, as in Spring's serializer: {@code Object}, and every type but enums,
   * primitives and their wrappers, final classes of {@code java.*} packages and JSON trees; arrays
   * and references ({@code Optional}) by their content.
   */
  private static final class SpringTyping extends ObjectMapper.DefaultTypeResolverBuilder {
    private static final long serialVersionUID = 1L;

    SpringTyping(PolymorphicTypeValidator validator) {
      super(ObjectMapper.DefaultTyping.EVERYTHING, validator);
    }

    @Override
    public boolean useForType(JavaType type) {
      if (type.isJavaLangObject()) {
        return true;
      }
      JavaType content = type;
      while (content.isArrayType() || content.isReferenceType()) {
        content = content.isArrayType() ? content.getContentType() : content.getReferencedType();
      }
      Class<?> raw = content.getRawClass();
      if (content.isEnumType() || raw.isPrimitive() || isWrapper(raw)) {
        return false;
      }
      if (content.isFinal() && raw.getPackageName().startsWith("java")) {
        return false;
      }
      return !TreeNode.class.isAssignableFrom(raw);
    }

    private static boolean isWrapper(Class<?> raw) {
      return raw == Boolean.class
          || raw == Character.class
          || raw == Byte.class
          || raw == Short.class
          || raw == Integer.class
          || raw == Long.class
          || raw == Float.class
          || raw == Double.class
          || raw == Void.class;
    }
  }

  /** Allows a class named in the bytes by its name alone, before Jackson loads it. */
  private static final class ByName extends PolymorphicTypeValidator.Base {
    private static final long serialVersionUID = 1L;
    private final transient ClassNameAllowlist allowlist;

    ByName(ClassNameAllowlist allowlist) {
      this.allowlist = allowlist;
    }

    @Override
    public Validity validateSubClassName(
        MapperConfig<?> config, JavaType baseType, String subClassName) {
      String element = subClassName;
      while (element.startsWith("[")) {
        element = element.substring(1);
      }
      if (element.length() == 1) {
        return Validity.ALLOWED; // an array of primitives, such as "[I"
      }
      if (element.startsWith("L") && element.endsWith(";")) {
        element = element.substring(1, element.length() - 1);
      }
      return allowlist.allows(element) ? Validity.ALLOWED : Validity.DENIED;
    }

    @Override
    public Validity validateSubType(MapperConfig<?> config, JavaType baseType, JavaType subType) {
      return Validity.DENIED;
    }
  }
}
