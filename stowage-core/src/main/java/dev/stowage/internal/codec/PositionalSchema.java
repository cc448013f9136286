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
import org.jspecify.annotations.Nullable;

/**
 * The shape of a type as the positional (compact) MessagePack mapper writes it: every bean or
 * record an array of its properties in order, with each property's name, kind and aliases. Two
 * schemas of one type, the writer's and the reader's, let a reader turn a positional value written
 * before the type changed into a value keyed by names, which Jackson then reads by name: added
 * properties take their defaults, removed ones are skipped, reordered ones find their place.
 *
 * <p>The text form is canonical JSON, so equal shapes give equal text and equal fingerprints:
 * {@code {"root":T,"records":[{"fields":[{"name":"id","type":"int"},...]},...]}}, where a type
 * {@code T} is one of the scalar kinds {@code "bool"}, {@code "int"}, {@code "float"},
 * {@code "text"}, {@code "bytes"} and {@code "any"}, or {@code {"list":T}}, {@code {"map":T}} or
 * {@code {"record":N}} (an index into {@code records}, so recursive types end). Class names are
 * left out: moving a class to another package changes nothing.
 */
final class PositionalSchema {
  private static final Set<String> SCALARS = Set.of("bool", "int", "float", "text", "bytes", "any");

  /** A property's type: a scalar kind, a list or map of a type, or a record by index. */
  sealed interface Kind permits Scalar, ListOf, MapOf, RecordRef {}

  record Scalar(String name) implements Kind {}

  record ListOf(Kind element) implements Kind {}

  record MapOf(Kind value) implements Kind {}

  record RecordRef(int index) implements Kind {}

  record Field(String name, Kind type, List<String> aliases) {}

  record Rec(List<Field> fields) {}

  private final Kind root;
  private final List<Rec> records;
  private final String text;

  private PositionalSchema(Kind root, List<Rec> records) {
    this.root = root;
    this.records = List.copyOf(records);
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

  // ---------------------------------------------------------------- from a type

  /**
   * The schema of {@code type} as {@code positional} writes it; aliases come from {@code named}'s
   * view of the same classes.
   */
  static PositionalSchema of(ObjectMapper positional, ObjectMapper named, JavaType type) {
    Describer describer = new Describer(positional, named);
    Kind root = describer.kindOf(type);
    return new PositionalSchema(root, describer.records);
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
      if (raw == boolean.class || raw == Boolean.class) {
        return new Scalar("bool");
      }
      if (raw == int.class || raw == long.class || raw == short.class || raw == byte.class
          || raw == Integer.class || raw == Long.class || raw == Short.class || raw == Byte.class) {
        return new Scalar("int");
      }
      if (raw == float.class || raw == double.class || raw == Float.class || raw == Double.class) {
        return new Scalar("float");
      }
      if (raw == byte[].class) {
        return new Scalar("bytes");
      }
      if (raw == char.class || raw == Character.class || CharSequence.class.isAssignableFrom(raw) || raw.isEnum()
          || raw == UUID.class || raw == BigDecimal.class || raw == BigInteger.class) {
        return new Scalar("text");
      }
      if (type.isArrayType() || type.isCollectionLikeType()) {
        return new ListOf(kindOf(type.getContentType()));
      }
      if (type.isMapLikeType()) {
        return new MapOf(kindOf(type.getContentType()));
      }
      if (type.isReferenceType()) {
        return kindOf(type.getContentType());
      }
      if (raw == Object.class || raw.isInterface() || Modifier.isAbstract(raw.getModifiers())
          || FieldTypes.isJdk(raw)) {
        return new Scalar("any");
      }
      Integer known = indices.get(type);
      if (known != null) {
        return new RecordRef(known);
      }
      JsonSerializer<Object> serializer;
      try {
        serializer = positional.getSerializerProviderInstance().findValueSerializer(type);
      } catch (JsonMappingException e) {
        return new Scalar("any");
      }
      if (!(serializer instanceof BeanSerializerBase bean)) {
        return new Scalar("any");
      }
      int index = records.size();
      indices.put(type, index);
      records.add(null);
      Map<String, List<String>> aliases = aliases(type);
      List<Field> fields = new ArrayList<>();
      for (Iterator<PropertyWriter> it = bean.properties(); it.hasNext(); ) {
        PropertyWriter property = it.next();
        JavaType propertyType = property instanceof BeanPropertyWriter writer ? writer.getType() : property.getType();
        fields.add(new Field(property.getName(), kindOf(propertyType),
            aliases.getOrDefault(property.getName(), List.of())));
      }
      records.set(index, new Rec(fields));
      return new RecordRef(index);
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
    StringBuilder out = new StringBuilder(256).append("{\"root\":");
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
          out.append(",\"aliases\":[");
          for (int a = 0; a < field.aliases().size(); a++) {
            out.append(a == 0 ? "" : ",");
            quote(out, field.aliases().get(a));
          }
          out.append(']');
        }
        out.append('}');
      }
      out.append("]}");
    }
    return out.append("]}").toString();
  }

  private static void writeKind(StringBuilder out, Kind kind) {
    if (kind instanceof Scalar scalar) {
      quote(out, scalar.name());
    } else if (kind instanceof ListOf list) {
      out.append("{\"list\":");
      writeKind(out, list.element());
      out.append('}');
    } else if (kind instanceof MapOf map) {
      out.append("{\"map\":");
      writeKind(out, map.value());
      out.append('}');
    } else {
      out.append("{\"record\":").append(((RecordRef) kind).index()).append('}');
    }
  }

  private static void quote(StringBuilder out, String text) {
    out.append('"');
    JsonStringEncoder.getInstance().quoteAsString(text, out);
    out.append('"');
  }

  /**
   * Parses a schema's text, as another process wrote it.
   *
   * @throws CodecException if the text is not a schema
   */
  static PositionalSchema parse(String text, ObjectMapper json) {
    try {
      JsonNode tree = json.readTree(text);
      List<Rec> records = new ArrayList<>();
      JsonNode recordNodes = tree.required("records");
      for (JsonNode recordNode : recordNodes) {
        List<Field> fields = new ArrayList<>();
        for (JsonNode fieldNode : recordNode.required("fields")) {
          List<String> aliases = new ArrayList<>();
          for (JsonNode alias : fieldNode.path("aliases")) {
            aliases.add(alias.asText());
          }
          fields.add(new Field(fieldNode.required("name").asText(), parseKind(fieldNode.required("type"),
              recordNodes.size()), List.copyOf(aliases)));
        }
        records.add(new Rec(List.copyOf(fields)));
      }
      return new PositionalSchema(parseKind(tree.required("root"), records.size()), records);
    } catch (IOException | IllegalArgumentException e) {
      throw new CodecException("not a MessagePack schema: " + e.getMessage(), e);
    }
  }

  private static Kind parseKind(JsonNode node, int recordCount) {
    if (node.isTextual()) {
      if (!SCALARS.contains(node.asText())) {
        throw new IllegalArgumentException("unknown kind '" + node.asText() + "'");
      }
      return new Scalar(node.asText());
    }
    if (node.has("list")) {
      return new ListOf(parseKind(node.get("list"), recordCount));
    }
    if (node.has("map")) {
      return new MapOf(parseKind(node.get("map"), recordCount));
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
      if (r instanceof Scalar rs && rs.name().equals("any") || w instanceof Scalar ws && ws.name().equals("any")) {
        return;
      }
      if (w instanceof Scalar ws && r instanceof Scalar rs) {
        if (!ws.name().equals(rs.name()) && !(ws.name().equals("int") && rs.name().equals("float"))) {
          throw new IllegalStateException(path + " was written as " + ws.name() + " and is read as " + rs.name());
        }
      } else if (w instanceof ListOf wl && r instanceof ListOf rl) {
        check(wl.element(), rl.element(), path + "[]");
      } else if (w instanceof MapOf wm && r instanceof MapOf rm) {
        check(wm.value(), rm.value(), path + "{}");
      } else if (w instanceof RecordRef wr && r instanceof RecordRef rr) {
        if (seen.add(List.of(wr.index(), rr.index()))) {
          checkRecord(writer.records.get(wr.index()), reader.records.get(rr.index()), path);
        }
      } else {
        throw new IllegalStateException(path + " was written as " + describe(w) + " and is read as " + describe(r));
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
            throw new IllegalStateException(path + "." + wf.name() + " is gone and " + path + "." + rf.name()
                + " is new, with a compatible type: a rename cannot be told from a removal and an addition"
                + " (declare @JsonAlias(\"" + wf.name() + "\") on " + rf.name() + " if it is one)");
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
      return scalar.name();
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
     * Turns a positional value (as a tree) into the same value keyed by the reader's property
     * names, ready for a mapper that reads beans by name.
     *
     * @throws IllegalArgumentException if the value does not have the shape its schema says
     */
    JsonNode toNamed(JsonNode value) {
      return convert(value, writer.root, reader.root);
    }

    private JsonNode convert(JsonNode node, Kind w, Kind r) {
      if (node == null || node.isNull()) {
        return NullNode.instance;
      }
      if (w instanceof RecordRef wr) {
        if (!node.isArray()) {
          throw new IllegalArgumentException("a record written as " + node.getNodeType() + ", not an array");
        }
        Rec writerRecord = writer.records.get(wr.index());
        Rec readerRecord = r instanceof RecordRef rr ? reader.records.get(rr.index()) : null;
        ObjectNode named = JsonNodeFactory.instance.objectNode();
        List<Field> fields = writerRecord.fields();
        for (int i = 0; i < fields.size() && i < node.size(); i++) {
          Field wf = fields.get(i);
          if (readerRecord == null) {
            named.set(wf.name(), convert(node.get(i), wf.type(), new Scalar("any")));
            continue;
          }
          Field rf = match(wf.name(), readerRecord);
          if (rf != null) {
            named.set(rf.name(), convert(node.get(i), wf.type(), rf.type()));
          }
        }
        return named;
      }
      if (w instanceof ListOf wl) {
        if (!node.isArray()) {
          throw new IllegalArgumentException("a list written as " + node.getNodeType());
        }
        Kind element = r instanceof ListOf rl ? rl.element() : new Scalar("any");
        ArrayNode list = JsonNodeFactory.instance.arrayNode(node.size());
        for (JsonNode item : node) {
          list.add(convert(item, wl.element(), element));
        }
        return list;
      }
      if (w instanceof MapOf wm) {
        if (!node.isObject()) {
          throw new IllegalArgumentException("a map written as " + node.getNodeType());
        }
        Kind value = r instanceof MapOf rm ? rm.value() : new Scalar("any");
        ObjectNode map = JsonNodeFactory.instance.objectNode();
        Map<String, JsonNode> entries = new LinkedHashMap<>();
        node.fields().forEachRemaining(entry -> entries.put(entry.getKey(), entry.getValue()));
        entries.forEach((key, item) -> map.set(key, convert(item, wm.value(), value)));
        return map;
      }
      return node;
    }
  }
}
