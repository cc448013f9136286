package dev.stowage.internal.codec;

import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;

/**
 * The shape of a type as the positional (compact) MessagePack mapper writes it: every bean or
 * record an array of its properties in order, with each property's name, kind and aliases. Two
 * schemas of one type, the writer's and the reader's, let a reader turn a positional value written
 * before the type changed into a value keyed by names, which Jackson then reads by name: added
 * properties take their defaults, removed ones are skipped, reordered ones find their place.
 *
 * <p>The text form is canonical JSON, so equal shapes give equal text and equal fingerprints:
 * {@code {"format":2,"root":T,"records":[{"fields":[{"name":"id","type":"i64"},...]},...]}}, where
 * a type {@code T} is a scalar kind ({@code "bool"}, {@code "i8"}, {@code "i16"}, {@code "i32"},
 * {@code "i64"}, {@code "f32"}, {@code "f64"}, {@code "char"}, {@code "text"}, {@code "bytes"},
 * {@code "bigint"}, {@code "decimal"}, {@code "uuid"}, {@code "any"} for {@code Object}, interfaces
 * and abstract classes, or the name of any other JDK class, such as {@code "java.time.Instant"}),
 * {@code {"enum":[constants]}}, {@code {"list":T}}, {@code {"map":T,"key":T}} or {@code
 * {"record":N}} (an index into {@code records}, so recursive types end). Class names of the
 * application's own types are left out: moving a class to another package changes nothing.
 *
 * <p>A reader reads a writer's value when every property it shares with the writer has the same
 * kind or one it widens to exactly ({@link SchemaCompatibility#widens}); any other change is
 * refused, naming the property. Schemas written before the format marker (Stowage before 0.1, with
 * the kinds {@code "int"}, {@code "float"}, {@code "text"} for every integer, floating-point and
 * text-like type and {@code "any"} for every JDK value type) still parse, and resolve by stricter
 * rules: an integer is read as a {@code long}, or as a narrower integer or a {@code double} when
 * the value fits exactly (checked value by value); a floating-point number only as a {@code
 * double}; text as text, or as a {@code char}, enum, {@code UUID}, {@code BigInteger} or {@code
 * BigDecimal} when the text is one exactly; {@code "any"} only as {@code Object} or an interface.
 *
 * <p>The schema is the model; {@link PositionalSchemaDescriber} makes one from a type, {@link
 * PositionalSchemaText} writes and parses its text, {@link SchemaCompatibility} decides whether a
 * reader reads a writer's values, and {@link PositionalResolution} converts them.
 */
final class PositionalSchema {
  /** The format marker of schemas with exact kinds; schemas without one are pre-0.1. */
  static final int FORMAT = 2;

  static final String LEGACY_INT = "int";
  static final String LEGACY_FLOAT = "float";
  static final String LEGACY_TEXT = "pre-0.1 text";

  /** Object, interfaces and abstract classes: whatever the value held. */
  static final Scalar ANY = new Scalar("any");

  /** A property's type: a scalar kind, an enum, a list or map of a type, or a record by index. */
  sealed interface Kind permits Scalar, EnumOf, ListOf, MapOf, RecordRef {}

  record Scalar(String name) implements Kind {}

  /** An enum, by the constants as the mapper writes them, in declaration order. */
  record EnumOf(List<String> constants) implements Kind {}

  record ListOf(Kind element) implements Kind {}

  record MapOf(Kind key, Kind value) implements Kind {}

  record RecordRef(int index) implements Kind {}

  record Field(String name, Kind type, List<String> aliases) {}

  record Rec(List<Field> fields) {}

  private final Kind root;
  private final List<Rec> records;
  private final boolean legacy;
  private final String text;

  PositionalSchema(Kind root, List<Rec> records, boolean legacy) {
    this.root = root;
    this.records = List.copyOf(records);
    this.legacy = legacy;
    this.text = PositionalSchemaText.write(root, this.records, legacy);
  }

  /** The canonical text. */
  String text() {
    return text;
  }

  Kind root() {
    return root;
  }

  List<Rec> records() {
    return records;
  }

  /** Whether this schema was written before the format marker (by Stowage before 0.1). */
  boolean legacy() {
    return legacy;
  }

  /**
   * The schema of {@code type} as {@code positional} writes it; aliases come from {@code named}'s
   * view of the same classes.
   */
  static PositionalSchema of(ObjectMapper positional, ObjectMapper named, JavaType type) {
    PositionalSchemaDescriber describer = new PositionalSchemaDescriber(positional, named);
    Kind root = describer.kindOf(type);
    return new PositionalSchema(root, describer.records(), false);
  }

  /**
   * Parses a schema's text, as another process wrote it: this format, or a pre-0.1 schema (one
   * without a format marker).
   *
   * @throws dev.stowage.CodecException if the text is not a schema, or one of a later format
   */
  static PositionalSchema parse(String text, ObjectMapper json) {
    return PositionalSchemaText.parse(text, json);
  }

  /**
   * How values written with {@code writer} are read with {@code reader}'s type: a plan made once
   * per writer schema, or the reason they cannot be read correctly ({@link SchemaCompatibility}).
   */
  static PositionalResolution resolve(PositionalSchema writer, PositionalSchema reader) {
    return new PositionalResolution(writer, reader, SchemaCompatibility.failure(writer, reader));
  }
}
