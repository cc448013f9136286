package dev.stowage.internal.codec;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyName;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.PropertyWriter;
import com.fasterxml.jackson.databind.ser.std.BeanSerializerBase;
import dev.stowage.internal.codec.PositionalSchema.EnumOf;
import dev.stowage.internal.codec.PositionalSchema.Field;
import dev.stowage.internal.codec.PositionalSchema.Kind;
import dev.stowage.internal.codec.PositionalSchema.ListOf;
import dev.stowage.internal.codec.PositionalSchema.MapOf;
import dev.stowage.internal.codec.PositionalSchema.Rec;
import dev.stowage.internal.codec.PositionalSchema.RecordRef;
import dev.stowage.internal.codec.PositionalSchema.Scalar;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * Describes a type as the positional (compact) MessagePack mapper writes it, for {@link
 * PositionalSchema#of}: scalar kinds, enums by their written constants, lists, maps, and every bean
 * or record once, by index, with its properties' aliases from the named mapper's view. Used once
 * per schema; not thread-safe.
 */
final class PositionalSchemaDescriber {
  private final ObjectMapper positional;
  private final ObjectMapper named;
  private final Map<JavaType, Integer> indices = new HashMap<>();
  private final List<Rec> records = new ArrayList<>();

  PositionalSchemaDescriber(ObjectMapper positional, ObjectMapper named) {
    this.positional = positional;
    this.named = named;
  }

  /** The records met so far, in index order. */
  List<Rec> records() {
    return records;
  }

  /** The kind of {@code type}, its records added to {@link #records()}. */
  Kind kindOf(JavaType type) {
    Class<?> raw = type.getRawClass();
    String scalar = scalarOf(raw);
    if (scalar != null) {
      return new Scalar(scalar);
    }
    if (raw.isEnum()) {
      return enumOf(raw);
    }
    if (type.isArrayType() || type.isCollectionLikeType()) {
      return new ListOf(kindOf(type.getContentType()));
    }
    if (type.isMapLikeType()) {
      return new MapOf(kindOf(type.getKeyType()), kindOf(type.getContentType()));
    }
    if (type.isReferenceType()) {
      return kindOf(type.getContentType());
    }
    if (raw == Object.class || raw.isInterface() || Modifier.isAbstract(raw.getModifiers())) {
      return PositionalSchema.ANY;
    }
    if (FieldTypes.isJdk(raw)) {
      return new Scalar(raw.getName());
    }
    Integer known = indices.get(type);
    if (known != null) {
      return new RecordRef(known);
    }
    JsonSerializer<Object> serializer;
    try {
      serializer = positional.getSerializerProviderInstance().findValueSerializer(type);
    } catch (JsonMappingException e) {
      return PositionalSchema.ANY;
    }
    if (!(serializer instanceof BeanSerializerBase bean)) {
      return PositionalSchema.ANY;
    }
    int index = records.size();
    indices.put(type, index);
    records.add(null);
    Map<String, List<String>> aliases = aliases(type);
    List<Field> fields = new ArrayList<>();
    for (Iterator<PropertyWriter> it = bean.properties(); it.hasNext(); ) {
      PropertyWriter property = it.next();
      JavaType propertyType =
          property instanceof BeanPropertyWriter writer ? writer.getType() : property.getType();
      fields.add(
          new Field(
              property.getName(),
              kindOf(propertyType),
              aliases.getOrDefault(property.getName(), List.of())));
    }
    records.set(index, new Rec(fields));
    return new RecordRef(index);
  }

  private static @Nullable String scalarOf(Class<?> raw) {
    if (raw == boolean.class || raw == Boolean.class) {
      return "bool";
    }
    if (raw == byte.class || raw == Byte.class) {
      return "i8";
    }
    if (raw == short.class || raw == Short.class) {
      return "i16";
    }
    if (raw == int.class || raw == Integer.class) {
      return "i32";
    }
    if (raw == long.class || raw == Long.class) {
      return "i64";
    }
    if (raw == float.class || raw == Float.class) {
      return "f32";
    }
    if (raw == double.class || raw == Double.class) {
      return "f64";
    }
    if (raw == char.class || raw == Character.class) {
      return "char";
    }
    if (raw == byte[].class) {
      return "bytes";
    }
    // Jackson writes a char[] as a string.
    if (raw == String.class || raw == CharSequence.class || raw == char[].class) {
      return "text";
    }
    if (raw == BigInteger.class) {
      return "bigint";
    }
    if (raw == BigDecimal.class) {
      return "decimal";
    }
    if (raw == UUID.class) {
      return "uuid";
    }
    return null;
  }

  /**
   * An enum by the constants as the mapper writes them: names, unless annotations say otherwise.
   */
  private Kind enumOf(Class<?> raw) {
    Object[] constants = raw.getEnumConstants();
    if (constants == null) {
      return PositionalSchema.ANY;
    }
    List<String> written = new ArrayList<>(constants.length);
    for (Object constant : constants) {
      String text;
      try {
        JsonNode node = positional.valueToTree(constant);
        text = node.isTextual() ? node.asText() : node.toString();
      } catch (IllegalArgumentException e) {
        text = ((Enum<?>) constant).name();
      }
      written.add(text);
    }
    return new EnumOf(List.copyOf(written));
  }

  private Map<String, List<String>> aliases(JavaType type) {
    Map<String, List<String>> byName = new HashMap<>();
    BeanDescription description = named.getDeserializationConfig().introspect(type);
    for (BeanPropertyDefinition property : description.findProperties()) {
      List<String> names = new ArrayList<>();
      for (PropertyName alias : property.findAliases()) {
        names.add(alias.getSimpleName());
      }
      if (!names.isEmpty()) {
        names.sort(null);
        byName.put(property.getName(), List.copyOf(names));
      }
    }
    return byName;
  }
}
