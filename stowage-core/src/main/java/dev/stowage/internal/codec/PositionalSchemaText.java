package dev.stowage.internal.codec;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.CodecException;
import dev.stowage.internal.codec.PositionalSchema.EnumOf;
import dev.stowage.internal.codec.PositionalSchema.Field;
import dev.stowage.internal.codec.PositionalSchema.Kind;
import dev.stowage.internal.codec.PositionalSchema.ListOf;
import dev.stowage.internal.codec.PositionalSchema.MapOf;
import dev.stowage.internal.codec.PositionalSchema.Rec;
import dev.stowage.internal.codec.PositionalSchema.RecordRef;
import dev.stowage.internal.codec.PositionalSchema.Scalar;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The canonical text of a {@link PositionalSchema}, written and parsed: the format its class
 * Javadoc describes, and pre-0.1 schemas (without a format marker), which parse into the legacy
 * kinds.
 */
final class PositionalSchemaText {
  private static final Set<String> SCALARS =
      Set.of(
          "bool", "i8", "i16", "i32", "i64", "f32", "f64", "char", "text", "bytes", "bigint",
          "decimal", "uuid", "any");

  /**
   * Pre-0.1 kinds; their text kind is renamed on parsing, since it meant more than text does now.
   */
  private static final Set<String> LEGACY_SCALARS =
      Set.of("bool", "int", "float", "text", "bytes", "any");

  private static final Pattern JDK_CLASS = Pattern.compile("(java|javax|jdk|sun)\\.[\\w.$]+");

  private PositionalSchemaText() {}

  /** The canonical text of a schema of these parts. */
  static String write(Kind root, List<Rec> records, boolean legacy) {
    StringBuilder out = new StringBuilder(256).append('{');
    if (!legacy) {
      out.append("\"format\":").append(PositionalSchema.FORMAT).append(',');
    }
    out.append("\"root\":");
    writeKind(out, root, legacy);
    out.append(",\"records\":[");
    for (int r = 0; r < records.size(); r++) {
      out.append(r == 0 ? "" : ",").append("{\"fields\":[");
      List<Field> fields = records.get(r).fields();
      for (int f = 0; f < fields.size(); f++) {
        Field field = fields.get(f);
        out.append(f == 0 ? "" : ",").append("{\"name\":");
        quote(out, field.name());
        out.append(",\"type\":");
        writeKind(out, field.type(), legacy);
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

  private static void writeKind(StringBuilder out, Kind kind, boolean legacy) {
    if (kind instanceof Scalar scalar) {
      quote(out, scalar.name().equals(PositionalSchema.LEGACY_TEXT) ? "text" : scalar.name());
    } else if (kind instanceof EnumOf constants) {
      out.append("{\"enum\":");
      writeStrings(out, constants.constants());
      out.append('}');
    } else if (kind instanceof ListOf list) {
      out.append("{\"list\":");
      writeKind(out, list.element(), legacy);
      out.append('}');
    } else if (kind instanceof MapOf map) {
      out.append("{\"map\":");
      writeKind(out, map.value(), legacy);
      if (!legacy) {
        out.append(",\"key\":");
        writeKind(out, map.key(), legacy);
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
      if (!legacy && format.asInt(-1) != PositionalSchema.FORMAT) {
        throw new IllegalArgumentException(
            "schema format "
                + format
                + " is not known to this version; it reads "
                + PositionalSchema.FORMAT
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
        return new Scalar(name.equals("text") ? PositionalSchema.LEGACY_TEXT : name);
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
          legacy
              ? new Scalar(PositionalSchema.LEGACY_TEXT)
              : parseKind(node.required("key"), recordCount, false);
      return new MapOf(key, parseKind(node.get("map"), recordCount, legacy));
    }
    int index = node.required("record").asInt(-1);
    if (index < 0 || index >= recordCount) {
      throw new IllegalArgumentException("record index " + node.get("record") + " out of range");
    }
    return new RecordRef(index);
  }
}
