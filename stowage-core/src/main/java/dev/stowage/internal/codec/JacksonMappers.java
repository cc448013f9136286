package dev.stowage.internal.codec;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.PropertyNamingStrategy;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.introspect.Annotated;
import com.fasterxml.jackson.databind.introspect.AnnotatedClass;
import com.fasterxml.jackson.databind.introspect.JacksonAnnotationIntrospector;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.stowage.codec.JacksonOptions;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The Jackson configuration shared by the JSON and MessagePack codecs. Default typing is never
 * enabled, so the bytes never choose the class that is created. Unknown properties are ignored, so
 * values written before a field was removed still read. {@code java.time} values are written as
 * ISO-8601 text.
 */
final class JacksonMappers {
  private JacksonMappers() {}

  /**
   * As {@link #named}, with {@code BigDecimal} and {@code BigInteger} written as text: MessagePack
   * has no decimal type, and msgpack-java would otherwise write a {@code BigDecimal} as a double,
   * losing digits and scale.
   */
  static ObjectMapper namedBinary(JsonFactory factory) {
    return withExactNumbers(named(factory));
  }

  /** As {@link #positional}, with the exact numbers of {@link #namedBinary}. */
  static ObjectMapper positionalBinary(JsonFactory factory) {
    return withExactNumbers(positional(factory));
  }

  private static ObjectMapper withExactNumbers(ObjectMapper mapper) {
    JsonFormat.Value asText = JsonFormat.Value.forShape(JsonFormat.Shape.STRING);
    mapper.configOverride(BigDecimal.class).setFormat(asText);
    mapper.configOverride(BigInteger.class).setFormat(asText);
    return mapper;
  }

  static ObjectMapper named(JsonFactory factory) {
    ObjectMapper mapper = new ObjectMapper(factory);
    mapper.registerModule(new JavaTimeModule());
    if (CodecLibraries.JACKSON_JDK8.isPresent()) {
      mapper.registerModule(Jdk8Support.module());
    }
    mapper.disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    mapper.disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);
    mapper.disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE);
    mapper.disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
    return mapper;
  }

  /**
   * A mapper that writes every bean (POJO or record) as an array of its property values, in
   * Jackson's property order (declaration order; record component order), instead of an object
   * keyed by names. Collections, maps, enums and JDK types keep their usual shapes, as do classes
   * that declare a {@code @JsonFormat} shape of their own.
   */
  static ObjectMapper positional(JsonFactory factory) {
    ObjectMapper mapper = named(factory);
    mapper.setAnnotationIntrospector(new BeansAsArrays());
    return mapper;
  }

  /**
   * The mapper configuration {@code options} stand for, or {@code null} for options that change
   * nothing (so that the defaults take the very path they took before options existed).
   */
  static @Nullable Consumer<ObjectMapper> configuration(JacksonOptions options) {
    if (options.propertyNaming() == JacksonOptions.PropertyNaming.AS_DECLARED
        && options.visibility().isEmpty()
        && !options.discoversModules()
        && options.jackson2Mapper() == null) {
      return null;
    }
    return mapper -> {
      PropertyNamingStrategy naming = naming(options.propertyNaming());
      if (naming != null) {
        mapper.setPropertyNamingStrategy(naming);
      }
      options.visibility().forEach(mapper::setVisibility);
      if (options.discoversModules()) {
        mapper.registerModules(ObjectMapper.findModules(JacksonMappers.class.getClassLoader()));
      }
      Consumer<? super ObjectMapper> custom = options.jackson2Mapper();
      if (custom != null) {
        custom.accept(mapper);
      }
    };
  }

  private static @Nullable PropertyNamingStrategy naming(JacksonOptions.PropertyNaming naming) {
    return switch (naming) {
      case AS_DECLARED -> null;
      case LOWER_CAMEL_CASE -> PropertyNamingStrategies.LOWER_CAMEL_CASE;
      case UPPER_CAMEL_CASE -> PropertyNamingStrategies.UPPER_CAMEL_CASE;
      case SNAKE_CASE -> PropertyNamingStrategies.SNAKE_CASE;
      case UPPER_SNAKE_CASE -> PropertyNamingStrategies.UPPER_SNAKE_CASE;
      case LOWER_CASE -> PropertyNamingStrategies.LOWER_CASE;
      case KEBAB_CASE -> PropertyNamingStrategies.KEBAB_CASE;
      case LOWER_DOT_CASE -> PropertyNamingStrategies.LOWER_DOT_CASE;
    };
  }

  /**
   * Applies an application's configuration to a mapper made here, then checks that it did not open
   * deserialization to classes the bytes name.
   *
   * @throws IllegalArgumentException if the configuration enabled default typing
   */
  static ObjectMapper configured(
      ObjectMapper mapper, @Nullable Consumer<? super ObjectMapper> configuration) {
    if (configuration == null) {
      return mapper;
    }
    configuration.accept(mapper);
    if (mapper.getDeserializationConfig().getDefaultTyper(mapper.constructType(Object.class))
        != null) {
      throw new IllegalArgumentException(
          "the mapper configuration enabled default typing, which lets the bytes"
              + " choose the class that is created; Stowage's Jackson codecs refuse it");
    }
    return mapper;
  }

  private static final class BeansAsArrays extends JacksonAnnotationIntrospector {
    private static final long serialVersionUID = 1L;
    private static final JsonFormat.Value ARRAY = JsonFormat.Value.forShape(JsonFormat.Shape.ARRAY);

    @Override
    public JsonFormat.Value findFormat(Annotated annotated) {
      JsonFormat.Value declared = super.findFormat(annotated);
      if (!(annotated instanceof AnnotatedClass)) {
        return declared;
      }
      if (declared != null && declared.getShape() != JsonFormat.Shape.ANY) {
        return declared;
      }
      Class<?> type = annotated.getRawType();
      if (type.isEnum()
          || type.isArray()
          || type.isPrimitive()
          || FieldTypes.isJdk(type)
          || Collection.class.isAssignableFrom(type)
          || Map.class.isAssignableFrom(type)) {
        return declared;
      }
      return declared == null ? ARRAY : declared.withShape(JsonFormat.Shape.ARRAY);
    }
  }
}
