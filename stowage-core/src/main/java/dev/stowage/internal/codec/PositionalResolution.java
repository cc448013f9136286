package dev.stowage.internal.codec;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stowage.internal.codec.PositionalSchema.EnumOf;
import dev.stowage.internal.codec.PositionalSchema.Field;
import dev.stowage.internal.codec.PositionalSchema.Kind;
import dev.stowage.internal.codec.PositionalSchema.ListOf;
import dev.stowage.internal.codec.PositionalSchema.MapOf;
import dev.stowage.internal.codec.PositionalSchema.Rec;
import dev.stowage.internal.codec.PositionalSchema.RecordRef;
import dev.stowage.internal.codec.PositionalSchema.Scalar;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * A writer schema resolved against the reader's: why its values cannot be read, or how each value
 * turns into a tree keyed by the reader's property names.
 */
final class PositionalResolution {
  private static final long DOUBLE_EXACT = 1L << 53;

  private final PositionalSchema writer;
  private final PositionalSchema reader;
  private final @Nullable String failure;

  PositionalResolution(PositionalSchema writer, PositionalSchema reader, @Nullable String failure) {
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
    return writer.legacy();
  }

  /**
   * Turns a value (as a tree), positional or keyed by the writer's names, into the same value keyed
   * by the reader's property names, ready for a mapper that reads beans by name.
   *
   * @throws IllegalArgumentException if the value does not have the shape its schema says, or a
   *     value of a pre-0.1 schema does not fit the reader's type exactly (naming the property)
   */
  JsonNode toNamed(JsonNode value) {
    return convert(value, writer.root(), reader.root(), "value");
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
      Rec writerRecord = writer.records().get(wr.index());
      Rec readerRecord = r instanceof RecordRef rr ? reader.records().get(rr.index()) : null;
      ObjectNode named = JsonNodeFactory.instance.objectNode();
      List<Field> fields = writerRecord.fields();
      for (int i = 0; i < fields.size(); i++) {
        Field wf = fields.get(i);
        JsonNode item = node.isArray() ? node.get(i) : node.get(wf.name());
        if (item == null) {
          continue;
        }
        if (readerRecord == null) {
          named.set(
              wf.name(), convert(item, wf.type(), PositionalSchema.ANY, path + "." + wf.name()));
          continue;
        }
        Field rf = SchemaCompatibility.match(wf.name(), readerRecord);
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
      Kind element = r instanceof ListOf rl ? rl.element() : PositionalSchema.ANY;
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
      Kind key = r instanceof MapOf rm ? rm.key() : PositionalSchema.ANY;
      Kind value = r instanceof MapOf rm ? rm.value() : PositionalSchema.ANY;
      ObjectNode map = JsonNodeFactory.instance.objectNode();
      Map<String, JsonNode> entries = new LinkedHashMap<>();
      node.fields().forEachRemaining(entry -> entries.put(entry.getKey(), entry.getValue()));
      entries.forEach(
          (name, item) -> {
            if (SchemaCompatibility.isLegacy(wm.key())) {
              checkLegacy(
                  JsonNodeFactory.instance.textNode(name),
                  PositionalSchema.LEGACY_TEXT,
                  key,
                  path + "{key}");
            }
            map.set(name, convert(item, wm.value(), value, path + "{}"));
          });
      return map;
    }
    if (SchemaCompatibility.isLegacy(w)) {
      checkLegacy(node, ((Scalar) w).name(), r, path);
    }
    return node;
  }

  /**
   * Checks that a value of a pre-0.1 kind is exactly a value of the reader's kind, which Jackson
   * would otherwise coerce (wrapping an integer into a byte, a string index into an enum).
   */
  private static void checkLegacy(JsonNode node, String writerKind, Kind r, String path) {
    if (r.equals(PositionalSchema.ANY)) {
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
            case PositionalSchema.LEGACY_INT -> fitsInteger(node, reader);
            case PositionalSchema.LEGACY_FLOAT -> node.isNumber();
            default -> node.isTextual() && fitsText(node.asText(), reader);
          };
    }
    if (!fits) {
      throw new IllegalArgumentException(
          path
              + " holds "
              + abbreviated(node)
              + ", written with a pre-0.1 schema as "
              + SchemaCompatibility.describe(new Scalar(writerKind))
              + ", which is not exactly a value of "
              + SchemaCompatibility.describe(r));
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
