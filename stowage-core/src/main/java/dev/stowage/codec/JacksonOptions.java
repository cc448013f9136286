package dev.stowage.codec;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonAutoDetect;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.TypeRef;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * How the Jackson-based codecs ({@link Codecs#json(TypeRef, JacksonOptions)}, {@link
 * Codecs#msgpack(TypeRef, JacksonOptions)}, {@link Codecs#msgpackCompact(TypeRef, JacksonOptions)})
 * map a class to properties, without naming a Jackson mapper type: property naming, which members
 * are visible, and the Jackson modules found on the class path. Immutable: each {@code with...}
 * method returns a copy. Thread-safe.
 *
 * <pre>{@code
 * Codecs.json(TypeRef.of(Order.class), JacksonOptions.defaults().withPropertyNaming(PropertyNaming.SNAKE_CASE));
 * }</pre>
 *
 * <p>The codecs run on Jackson 2 ({@code com.fasterxml.jackson.databind}) whatever Jackson an
 * application uses itself. Jackson's annotations ({@code com.fasterxml.jackson.annotation}, such as
 * {@code @JsonProperty}, {@code @JsonIgnore}, {@code @JsonAlias}, {@code @JsonAutoDetect}) are the
 * same for Jackson 2 and Jackson 3, and the codecs honour them on the value's classes: an
 * application on Jackson 3 configures naming and visibility with these options or with annotations,
 * and needs no Jackson 2 type. {@link #withJackson2Mapper} is the escape hatch for anything else,
 * and ties the caller to Jackson 2.
 */
public final class JacksonOptions {
  private static final JacksonOptions DEFAULTS =
      new JacksonOptions(
          PropertyNaming.AS_DECLARED, new EnumMap<>(PropertyAccessor.class), false, null);

  /** How property names are written, from the Java names. */
  public enum PropertyNaming {
    /** As declared in the class (or as {@code @JsonProperty} names them): the default. */
    AS_DECLARED,
    /** {@code itemId}. */
    LOWER_CAMEL_CASE,
    /** {@code ItemId}. */
    UPPER_CAMEL_CASE,
    /** {@code item_id}. */
    SNAKE_CASE,
    /** {@code ITEM_ID}. */
    UPPER_SNAKE_CASE,
    /** {@code itemid}. */
    LOWER_CASE,
    /** {@code item-id}. */
    KEBAB_CASE,
    /** {@code item.id}. */
    LOWER_DOT_CASE
  }

  private final PropertyNaming naming;
  private final Map<PropertyAccessor, JsonAutoDetect.Visibility> visibility;
  private final boolean discoverModules;
  private final @Nullable Consumer<? super ObjectMapper> jackson2Mapper;

  private JacksonOptions(
      PropertyNaming naming,
      Map<PropertyAccessor, JsonAutoDetect.Visibility> visibility,
      boolean discoverModules,
      @Nullable Consumer<? super ObjectMapper> jackson2Mapper) {
    this.naming = naming;
    this.visibility = visibility;
    this.discoverModules = discoverModules;
    this.jackson2Mapper = jackson2Mapper;
  }

  /**
   * The options the codecs use when none are given: names as declared, Jackson's default
   * visibility, no modules but those the codecs register themselves ({@code java.time}, and {@code
   * Optional} when {@code jackson-datatype-jdk8} is present).
   */
  public static JacksonOptions defaults() {
    return DEFAULTS;
  }

  /**
   * Writes and reads property names in this naming; {@link PropertyNaming#AS_DECLARED} by default.
   */
  public JacksonOptions withPropertyNaming(PropertyNaming naming) {
    return new JacksonOptions(
        requireNonNull(naming, "naming"), visibility, discoverModules, jackson2Mapper);
  }

  /**
   * Which members of this kind Jackson sees, as {@code @JsonAutoDetect} says for one class: for
   * example {@code withVisibility(PropertyAccessor.FIELD, Visibility.ANY)} maps private fields of
   * classes without getters. Both types are Jackson's annotation types, shared by Jackson 2 and 3.
   * A later call for the same accessor replaces an earlier one.
   */
  public JacksonOptions withVisibility(
      PropertyAccessor accessor, JsonAutoDetect.Visibility visibility) {
    requireNonNull(accessor, "accessor");
    requireNonNull(visibility, "visibility");
    Map<PropertyAccessor, JsonAutoDetect.Visibility> copy = new EnumMap<>(PropertyAccessor.class);
    copy.putAll(this.visibility);
    copy.put(accessor, visibility);
    return new JacksonOptions(naming, copy, discoverModules, jackson2Mapper);
  }

  /**
   * Registers every Jackson 2 module on the class path that declares itself to Java's {@link
   * java.util.ServiceLoader} (as {@code jackson-module-kotlin}, {@code
   * jackson-module-parameter-names} and the {@code jackson-datatype-*} modules do), once, when the
   * codec is made. Off by default.
   */
  public JacksonOptions withDiscoveredModules() {
    return new JacksonOptions(naming, visibility, true, jackson2Mapper);
  }

  /**
   * <b>Jackson 2 only.</b> Adjusts each mapper the codec makes, after the other options, once, when
   * the codec is made: for what the options do not offer (a module instance, a feature). Ties the
   * caller to Jackson 2's {@code ObjectMapper}. A configuration that enables default typing is
   * refused when the codec is made ({@link IllegalArgumentException}), as it would let the bytes
   * choose the class created.
   */
  public JacksonOptions withJackson2Mapper(Consumer<? super ObjectMapper> configuration) {
    return new JacksonOptions(
        naming, visibility, discoverModules, requireNonNull(configuration, "configuration"));
  }

  /** The property naming. */
  public PropertyNaming propertyNaming() {
    return naming;
  }

  /** The visibility set per accessor; empty by default. Unmodifiable. */
  public Map<PropertyAccessor, JsonAutoDetect.Visibility> visibility() {
    return Collections.unmodifiableMap(visibility);
  }

  /** Whether modules on the class path are registered. */
  public boolean discoversModules() {
    return discoverModules;
  }

  /** The Jackson 2 mapper configuration, or {@code null} if none was given. */
  public @Nullable Consumer<? super ObjectMapper> jackson2Mapper() {
    return jackson2Mapper;
  }

  @Override
  public String toString() {
    return "JacksonOptions[naming "
        + naming
        + ", visibility "
        + visibility
        + ", discoverModules "
        + discoverModules
        + (jackson2Mapper == null ? "" : ", with a Jackson 2 mapper configuration")
        + "]";
  }
}
