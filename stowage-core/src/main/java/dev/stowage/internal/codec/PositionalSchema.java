package dev.stowage.internal.codec;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyName;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.ser.BeanPropertyWriter;
import com.fasterxml.jackson.databind.ser.PropertyWriter;
import com.fasterxml.jackson.databind.ser.std.BeanSerializerBase;
import dev.stowage.CodecException;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

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
 * kind or one it widens to exactly ({@link #widens}); any other change is refused, naming the
 * property. Schemas written before the format marker (Stowage before 0.1, with the kinds {@code
 * "int"}, {@code "float"}, {@code "text"} for every integer, floating-point and text-like type and
 * {@code "any"} for every JDK value type) still parse, and resolve by stricter rules: an integer is
 * read as a {@code long}, or as a narrower integer or a {@code double} when the value fits exactly
 * (checked value by value); a floating-point number only as a {@code double}; text as text, or as a
 * {@code char}, enum, {@code UUID}, {@code BigInteger} or {@code BigDecimal} when the text is one
 * exactly; {@code "any"} only as {@code Object} or an interface.
 */
final class PositionalSchema {
  /** The format marker of schemas with exact kinds; schemas without one are pre-0.1. */
  static final int FORMAT = 2;

  private static final Set<String> SCALARS =
      Set.of(
          "bool", "i8", "i16", "i32", "i64", "f32", "f64", "char", "text", "bytes", "bigint",
          "decimal", "uuid", "any");

  /**
   * Pre-0.1 kinds; their text kind is renamed on parsing, since it meant more than text does now.
   */
  private static final Set<String> LEGACY_SCALARS =
      Set.of("bool", "int", "float", "text", "bytes", "any");

  static final String LEGACY_INT = "int";
  static final String LEGACY_FLOAT = "float";
  static final String LEGACY_TEXT = "pre-0.1 text";
  private static final Pattern JDK_CLASS = Pattern.compile("(java|javax|jdk|sun)\\.[\\w.$]+");
  private static final List<String> INTEGERS = List.of("i8", "i16", "i32", "i64");
  private static final Scalar ANY = new Scalar("any");

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

  private PositionalSchema(Kind root, List<Rec> records, boolean legacy) {
    this.root = root;
    this.records = List.copyOf(records);
    this.legacy = legacy;
    this.text = write();
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

  // ---------------------------------------------------------------- from a type

  /**
   * The schema of {@code type} as {@code positional} writes it; aliases come from {@code named}'s
   * view of the same classes.
   */
  static PositionalSchema of(ObjectMapper positional, ObjectMapper named, JavaType type) {
    Describer describer = new Describer(positional, named);
    Kind root = describer.kindOf(type);
    return new PositionalSchema(root, describer.records, false);
  }

  private static final class Describer {
    private final ObjectMapper positional;
    private final ObjectMapper named;
    private final Map<JavaType, Integer> indices = new HashMap<>();
    private final List<Rec> records = new ArrayList<>();

    Describer(ObjectMapper positional, ObjectMapper named) {
      this.positional = positional;
      this.named = named;
    }

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
        return ANY;
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
        return ANY;
      }
      if (!(serializer instanceof BeanSerializerBase bean)) {
        return ANY;
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
        return ANY;
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

  // ---------------------------------------------------------------- text

  private String write() {
    StringBuilder out = new StringBuilder(256).append('{');
    if (!legacy) {
      out.append("\"format\":").append(FORMAT).append(',');
    }
    out.append("\"root\":");
    writeKind(out, root);
    out.append(",\"records\":[");
    for (int r = 0; r < records.size(); r++) {
      out.append(r == 0 ? "" : ",").append("{\"fields\":[");
      List<Field> fields = records.get(r).fields();
      for (int f = 0; f < fields.size(); f++) {
        Field field = fields.get(f);
        out.append(f == 0 ? "" : ",").append("{\"name\":");
        quote(out, field.name());
        out.append(",\"type\":");
        writeKind(out, field.type());
        if (!field.aliases().isEmpty()) {
          out.append(",\"aliases\":");
          writeStrings(out, field.aliases());
        }
        out.append('}');
      }
      out.append("]}");
    }
    return out.append("]}").toString();
  }

  private void writeKind(StringBuilder out, Kind kind) {
    if (kind instanceof Scalar scalar) {
      quote(out, scalar.name().equals(LEGACY_TEXT) ? "text" : scalar.name());
    } else if (kind instanceof EnumOf constants) {
      out.append("{\"enum\":");
      writeStrings(out, constants.constants());
      out.append('}');
    } else if (kind instanceof ListOf list) {
      out.append("{\"list\":");
      writeKind(out, list.element());
      out.append('}');
    } else if (kind instanceof MapOf map) {
      out.append("{\"map\":");
      writeKind(out, map.value());
      if (!legacy) {
        out.append(",\"key\":");
        writeKind(out, map.key());
      }
      out.append('}');
    } else {
      out.append("{\"record\":").append(((RecordRef) kind).index()).append('}');
    }
  }

  private static void writeStrings(StringBuilder out, List<String> strings) {
    out.append('[');
    for (int i = 0; i < strings.size(); i++) {
      out.append(i == 0 ? "" : ",");
      quote(out, strings.get(i));
    }
    out.append(']');
  }

  private static void quote(StringBuilder out, String text) {
    out.append('"');
    JsonStringEncoder.getInstance().quoteAsString(text, out);
    out.append('"');
  }

  /**
   * Parses a schema's text, as another process wrote it: this format, or a pre-0.1 schema (one
   * without a format marker).
   *
   * @throws CodecException if the text is not a schema, or one of a later format
   */
  static PositionalSchema parse(String text, ObjectMapper json) {
    try {
      JsonNode tree = json.readTree(text);
      JsonNode format = tree.path("format");
      boolean legacy = format.isMissingNode();
      if (!legacy && format.asInt(-1) != FORMAT) {
        throw new IllegalArgumentException(
            "schema format "
                + format
                + " is not known to this version; it reads "
                + FORMAT
                + " and pre-0.1 schemas");
      }
      List<Rec> records = new ArrayList<>();
      JsonNode recordNodes = tree.required("records");
      for (JsonNode recordNode : recordNodes) {
        List<Field> fields = new ArrayList<>();
        for (JsonNode fieldNode : recordNode.required("fields")) {
          List<String> aliases = new ArrayList<>();
          for (JsonNode alias : fieldNode.path("aliases")) {
            aliases.add(alias.asText());
          }
          fields.add(
              new Field(
                  fieldNode.required("name").asText(),
                  parseKind(fieldNode.required("type"), recordNodes.size(), legacy),
                  List.copyOf(aliases)));
        }
        records.add(new Rec(List.copyOf(fields)));
      }
      return new PositionalSchema(
          parseKind(tree.required("root"), records.size(), legacy), records, legacy);
    } catch (IOException | IllegalArgumentException e) {
      throw new CodecException("not a MessagePack schema: " + e.getMessage(), e);
    }
  }

  private static Kind parseKind(JsonNode node, int recordCount, boolean legacy) {
    if (node.isTextual()) {
      String name = node.asText();
      if (legacy) {
        if (!LEGACY_SCALARS.contains(name)) {
          throw new IllegalArgumentException("unknown pre-0.1 kind '" + name + "'");
        }
        return new Scalar(name.equals("text") ? LEGACY_TEXT : name);
      }
      if (!SCALARS.contains(name) && !JDK_CLASS.matcher(name).matches()) {
        throw new IllegalArgumentException("unknown kind '" + name + "'");
      }
      return new Scalar(name);
    }
    if (node.has("enum") && !legacy) {
      List<String> constants = new ArrayList<>();
      for (JsonNode constant : node.get("enum")) {
        constants.add(constant.asText());
      }
      return new EnumOf(List.copyOf(constants));
    }
    if (node.has("list")) {
      return new ListOf(parseKind(node.get("list"), recordCount, legacy));
    }
    if (node.has("map")) {
      // Keys are text in MessagePack and JSON; a pre-0.1 schema did not say what they were read as.
      Kind key =
          legacy ? new Scalar(LEGACY_TEXT) : parseKind(node.required("key"), recordCount, false);
      return new MapOf(key, parseKind(node.get("map"), recordCount, legacy));
    }
    int index = node.required("record").asInt(-1);
    if (index < 0 || index >= recordCount) {
      throw new IllegalArgumentException("record index " + node.get("record") + " out of range");
    }
    return new RecordRef(index);
  }

  // ---------------------------------------------------------------- resolution

  /**
   * How values written with {@code writer} are read with {@code reader}'s type: a plan made once
   * per writer schema, or the reason they cannot be read correctly.
   */
  static Resolution resolve(PositionalSchema writer, PositionalSchema reader) {
    try {
      new Checker(writer, reader).check(writer.root, reader.root, "value");
      return new Resolution(writer, reader, null);
    } catch (IllegalStateException e) {
      return new Resolution(writer, reader, e.getMessage());
    }
  }

  /**
   * Whether a value of scalar kind {@code writer} reads as exactly the same value into scalar kind
   * {@code reader}: the same kind; a wider integer; {@code float} to {@code double}; an integer to
   * a floating-point type whose mantissa holds every value of it ({@code byte}, {@code short},
   * {@code int} to {@code double}, {@code byte}, {@code short} to {@code float}); {@code char} to
   * text. Pre-0.1 kinds read as the kinds their values are checked against ({@link
   * #legacyReadable}).
   */
  static boolean widens(String writer, String reader) {
    if (writer.equals(reader)) {
      return !writer.equals(LEGACY_INT)
          && !writer.equals(LEGACY_FLOAT)
          && !writer.equals(LEGACY_TEXT);
    }
    int from = INTEGERS.indexOf(writer);
    if (from >= 0) {
      int to = INTEGERS.indexOf(reader);
      return to >= from
          || (reader.equals("f64") && from <= 2)
          || (reader.equals("f32") && from <= 1);
    }
    return (writer.equals("f32") && reader.equals("f64"))
        || (writer.equals("char") && reader.equals("text"));
  }

  /**
   * The kinds a pre-0.1 kind may be read as, each value checked to fit exactly ({@link
   * Resolution}).
   */
  private static boolean legacyReadable(String writer, Kind reader) {
    if (reader instanceof EnumOf) {
      return writer.equals(LEGACY_TEXT);
    }
    if (!(reader instanceof Scalar scalar)) {
      return false;
    }
    String name = scalar.name();
    return switch (writer) {
      case LEGACY_INT -> INTEGERS.contains(name) || name.equals("f64");
      case LEGACY_FLOAT -> name.equals("f64");
      case LEGACY_TEXT ->
          name.equals("text")
              || name.equals("char")
              || name.equals("uuid")
              || name.equals("bigint")
              || name.equals("decimal");
      default -> false;
    };
  }

  private static boolean isFloat(String kind) {
    return kind.equals("f32") || kind.equals("f64");
  }

  private static boolean isLegacy(Kind kind) {
    return kind instanceof Scalar scalar
        && (scalar.name().equals(LEGACY_INT)
            || scalar.name().equals(LEGACY_FLOAT)
            || scalar.name().equals(LEGACY_TEXT));
  }

  /** Checks every pair of writer and reader types once, recursive types included. */
  private static final class Checker {
    private final PositionalSchema writer;
    private final PositionalSchema reader;
    private final Set<List<Integer>> seen = new HashSet<>();

    Checker(PositionalSchema writer, PositionalSchema reader) {
      this.writer = writer;
      this.reader = reader;
    }

    void check(Kind w, Kind r, String path) {
      if (r.equals(ANY)) {
        return;
      }
      if (w.equals(ANY)) {
        throw new IllegalStateException(
            path
                + " was written as "
                + describe(w)
                + " and is read as "
                + describe(r)
                + ": what an Object or interface held can be read as "
                + describe(r)
                + " only by coercion");
      }
      if (isLegacy(w)) {
        if (!legacyReadable(((Scalar) w).name(), r)) {
          throw new IllegalStateException(
              path + " was written as " + describe(w) + " and is read as " + describe(r));
        }
      } else if (w instanceof Scalar ws && r instanceof Scalar rs) {
        if (!widens(ws.name(), rs.name())) {
          throw new IllegalStateException(
              path
                  + " was written as "
                  + describe(w)
                  + " and is read as "
                  + describe(r)
                  + ", which "
                  + (widens(rs.name(), ws.name()) ? "is narrower" : "is another type")
                  + "; only the same type or an exact widening reads");
        }
      } else if (w instanceof EnumOf we && r instanceof EnumOf re) {
        List<String> missing = new ArrayList<>(we.constants());
        missing.removeAll(re.constants());
        if (!missing.isEmpty()) {
          throw new IllegalStateException(
              path
                  + " was written as an enum with constants "
                  + missing
                  + " that the reader's enum "
                  + re.constants()
                  + " lacks");
        }
      } else if (w instanceof ListOf wl && r instanceof ListOf rl) {
        check(wl.element(), rl.element(), path + "[]");
      } else if (w instanceof MapOf wm && r instanceof MapOf rm) {
        checkKey(wm.key(), rm.key(), path + "{key}");
        check(wm.value(), rm.value(), path + "{}");
      } else if (w instanceof RecordRef wr && r instanceof RecordRef rr) {
        if (seen.add(List.of(wr.index(), rr.index()))) {
          checkRecord(writer.records.get(wr.index()), reader.records.get(rr.index()), path);
        }
      } else {
        throw new IllegalStateException(
            path + " was written as " + describe(w) + " and is read as " + describe(r));
      }
    }

    /**
     * Map keys are written as text, so only widenings that read the same text as the same value
     * hold: integers to wider integers, {@code char} to text (not to floating point: a {@code
     * float} key's text is not the {@code double} of the same value).
     */
    private void checkKey(Kind w, Kind r, String path) {
      if (r.equals(ANY)) {
        return;
      }
      if (w instanceof Scalar ws
          && r instanceof Scalar rs
          && !isLegacy(w)
          && (isFloat(ws.name()) || isFloat(rs.name()))
          && !ws.name().equals(rs.name())) {
        throw new IllegalStateException(
            path
                + " was written as "
                + describe(w)
                + " and is read as "
                + describe(r)
                + "; a map key's text reads exactly only as the same type, a wider integer or text from a char");
      }
      if (isLegacy(w)
          && !(r instanceof EnumOf)
          && !(r instanceof Scalar rs
              && (rs.name().equals("text")
                  || rs.name().equals("char")
                  || INTEGERS.contains(rs.name())))) {
        throw new IllegalStateException(
            path + " was written as " + describe(w) + " and is read as " + describe(r));
      }
      if (!isLegacy(w)) {
        check(w, r, path);
      }
    }

    private void checkRecord(Rec w, Rec r, String path) {
      List<Field> writerOnly = new ArrayList<>();
      Set<Field> matched = new HashSet<>();
      for (Field wf : w.fields()) {
        Field rf = match(wf.name(), r);
        if (rf == null) {
          writerOnly.add(wf);
        } else {
          matched.add(rf);
          check(wf.type(), rf.type(), path + "." + rf.name());
        }
      }
      for (Field rf : r.fields()) {
        if (matched.contains(rf)) {
          continue;
        }
        for (Field wf : writerOnly) {
          if (compatible(wf.type(), rf.type())) {
            throw new IllegalStateException(
                path
                    + "."
                    + wf.name()
                    + " is gone and "
                    + path
                    + "."
                    + rf.name()
                    + " is new, with a compatible type: a rename cannot be told from a removal and an addition"
                    + " (declare @JsonAlias(\""
                    + wf.name()
                    + "\") on "
                    + rf.name()
                    + " if it is one)");
          }
        }
      }
    }

    private boolean compatible(Kind w, Kind r) {
      try {
        new Checker(writer, reader).check(w, r, "");
        return true;
      } catch (IllegalStateException e) {
        return false;
      }
    }
  }

  /** The reader's field that takes the writer's property {@code name}: by name, then by alias. */
  private static @Nullable Field match(String name, Rec reader) {
    for (Field field : reader.fields()) {
      if (field.name().equals(name)) {
        return field;
      }
    }
    for (Field field : reader.fields()) {
      if (field.aliases().contains(name)) {
        return field;
      }
    }
    return null;
  }

  private static String describe(Kind kind) {
    if (kind instanceof Scalar scalar) {
      return switch (scalar.name()) {
        case "i8" -> "byte";
        case "i16" -> "short";
        case "i32" -> "int";
        case "i64" -> "long";
        case "f32" -> "float";
        case "f64" -> "double";
        case "bigint" -> "BigInteger";
        case "decimal" -> "BigDecimal";
        case "uuid" -> "UUID";
        case "bool" -> "boolean";
        case "bytes" -> "byte[]";
        case "any" -> "any (Object or an interface)";
        case LEGACY_INT -> "an integer of a pre-0.1 schema";
        case LEGACY_FLOAT -> "a floating-point number of a pre-0.1 schema";
        case LEGACY_TEXT -> "text of a pre-0.1 schema";
        default -> scalar.name();
      };
    }
    if (kind instanceof EnumOf constants) {
      return "an enum of " + constants.constants();
    }
    if (kind instanceof ListOf) {
      return "a list";
    }
    if (kind instanceof MapOf) {
      return "a map";
    }
    return "a record";
  }

  /** A writer schema resolved against the reader's. */
  static final class Resolution {
    private static final long DOUBLE_EXACT = 1L << 53;

    private final PositionalSchema writer;
    private final PositionalSchema reader;
    private final @Nullable String failure;

    private Resolution(PositionalSchema writer, PositionalSchema reader, @Nullable String failure) {
      this.writer = writer;
      this.reader = reader;
      this.failure = failure;
    }

    /** Why values of this writer schema cannot be read correctly, or null when they can. */
    @Nullable String failure() {
      return failure;
    }

    /**
     * Whether values must go through {@link #toNamed} whatever their shape: those of a pre-0.1
     * schema, whose kinds are checked value by value.
     */
    boolean checksValues() {
      return writer.legacy;
    }

    /**
     * Turns a value (as a tree), positional or keyed by the writer's names, into the same value
     * keyed by the reader's property names, ready for a mapper that reads beans by name.
     *
     * @throws IllegalArgumentException if the value does not have the shape its schema says, or a
     *     value of a pre-0.1 schema does not fit the reader's type exactly (naming the property)
     */
    JsonNode toNamed(JsonNode value) {
      return convert(value, writer.root, reader.root, "value");
    }

    private JsonNode convert(@Nullable JsonNode node, Kind w, Kind r, String path) {
      if (node == null || node.isNull()) {
        return NullNode.instance;
      }
      if (w instanceof RecordRef wr) {
        if (!node.isArray() && !node.isObject()) {
          throw new IllegalArgumentException(
              path + ": a record written as " + node.getNodeType() + ", not an array or a map");
        }
        Rec writerRecord = writer.records.get(wr.index());
        Rec readerRecord = r instanceof RecordRef rr ? reader.records.get(rr.index()) : null;
        ObjectNode named = JsonNodeFactory.instance.objectNode();
        List<Field> fields = writerRecord.fields();
        for (int i = 0; i < fields.size(); i++) {
          Field wf = fields.get(i);
          JsonNode item = node.isArray() ? node.get(i) : node.get(wf.name());
          if (item == null) {
            continue;
          }
          if (readerRecord == null) {
            named.set(wf.name(), convert(item, wf.type(), ANY, path + "." + wf.name()));
            continue;
          }
          Field rf = match(wf.name(), readerRecord);
          if (rf != null) {
            named.set(rf.name(), convert(item, wf.type(), rf.type(), path + "." + rf.name()));
          }
        }
        return named;
      }
      if (w instanceof ListOf wl) {
        if (!node.isArray()) {
          throw new IllegalArgumentException(path + ": a list written as " + node.getNodeType());
        }
        Kind element = r instanceof ListOf rl ? rl.element() : ANY;
        ArrayNode list = JsonNodeFactory.instance.arrayNode(node.size());
        for (JsonNode item : node) {
          list.add(convert(item, wl.element(), element, path + "[]"));
        }
        return list;
      }
      if (w instanceof MapOf wm) {
        if (!node.isObject()) {
          throw new IllegalArgumentException(path + ": a map written as " + node.getNodeType());
        }
        Kind key = r instanceof MapOf rm ? rm.key() : ANY;
        Kind value = r instanceof MapOf rm ? rm.value() : ANY;
        ObjectNode map = JsonNodeFactory.instance.objectNode();
        Map<String, JsonNode> entries = new LinkedHashMap<>();
        node.fields().forEachRemaining(entry -> entries.put(entry.getKey(), entry.getValue()));
        entries.forEach(
            (name, item) -> {
              if (isLegacy(wm.key())) {
                checkLegacy(
                    JsonNodeFactory.instance.textNode(name), LEGACY_TEXT, key, path + "{key}");
              }
              map.set(name, convert(item, wm.value(), value, path + "{}"));
            });
        return map;
      }
      if (isLegacy(w)) {
        checkLegacy(node, ((Scalar) w).name(), r, path);
      }
      return node;
    }

    /**
     * Checks that a value of a pre-0.1 kind is exactly a value of the reader's kind, which Jackson
     * would otherwise coerce (wrapping an integer into a byte, a string index into an enum).
     */
    private static void checkLegacy(JsonNode node, String writerKind, Kind r, String path) {
      if (r.equals(ANY)) {
        return;
      }
      boolean fits;
      if (r instanceof EnumOf constants) {
        fits = node.isTextual() && constants.constants().contains(node.asText());
      } else if (!(r instanceof Scalar scalar)) {
        fits = false;
      } else {
        String reader = scalar.name();
        fits =
            switch (writerKind) {
              case LEGACY_INT -> fitsInteger(node, reader);
              case LEGACY_FLOAT -> node.isNumber();
              default -> node.isTextual() && fitsText(node.asText(), reader);
            };
      }
      if (!fits) {
        throw new IllegalArgumentException(
            path
                + " holds "
                + abbreviated(node)
                + ", written with a pre-0.1 schema as "
                + describe(new Scalar(writerKind))
                + ", which is not exactly a value of "
                + describe(r));
      }
    }

    private static boolean fitsInteger(JsonNode node, String reader) {
      // Map keys of a pre-0.1 schema arrive here as text.
      long value;
      if (node.isTextual()) {
        try {
          value = Long.parseLong(node.asText());
        } catch (NumberFormatException e) {
          return false;
        }
        if (!Long.toString(value).equals(node.asText())) {
          return false;
        }
      } else if (node.isIntegralNumber() && node.canConvertToLong()) {
        value = node.longValue();
      } else {
        return false;
      }
      return switch (reader) {
        case "i8" -> value == (byte) value;
        case "i16" -> value == (short) value;
        case "i32" -> value == (int) value;
        case "i64" -> true;
        case "f64" -> Math.abs(value) <= DOUBLE_EXACT;
        default -> false;
      };
    }

    private static boolean fitsText(String text, String reader) {
      try {
        return switch (reader) {
          case "text" -> true;
          case "char" -> text.length() == 1;
          case "uuid" ->
              text.length() == 36 && UUID.fromString(text).toString().equalsIgnoreCase(text);
          case "bigint" -> new BigInteger(text).toString().equals(text);
          case "decimal" -> new BigDecimal(text).toString().equals(text);
          default -> fitsInteger(JsonNodeFactory.instance.textNode(text), reader);
        };
      } catch (NumberFormatException e) {
        return false;
      }
    }

    private static String abbreviated(JsonNode node) {
      String text = node.toString();
      return text.length() <= 40 ? text : text.substring(0, 40) + "...";
    }
  }
}
