package dev.stowage.internal.codec;

import dev.stowage.internal.codec.PositionalSchema.EnumOf;
import dev.stowage.internal.codec.PositionalSchema.Field;
import dev.stowage.internal.codec.PositionalSchema.Kind;
import dev.stowage.internal.codec.PositionalSchema.ListOf;
import dev.stowage.internal.codec.PositionalSchema.MapOf;
import dev.stowage.internal.codec.PositionalSchema.Rec;
import dev.stowage.internal.codec.PositionalSchema.RecordRef;
import dev.stowage.internal.codec.PositionalSchema.Scalar;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Whether a reader's {@link PositionalSchema} reads a writer's values exactly: the rules of
 * widening, of enums, maps, records and renames, and of pre-0.1 kinds, which the class Javadoc of
 * {@link PositionalSchema} states.
 */
final class SchemaCompatibility {
  private static final List<String> INTEGERS = List.of("i8", "i16", "i32", "i64");

  private SchemaCompatibility() {}

  /**
   * Why values written with {@code writer} cannot be read correctly with {@code reader}'s type,
   * naming the property, or {@code null} when they can.
   */
  static @Nullable String failure(PositionalSchema writer, PositionalSchema reader) {
    try {
      new Checker(writer, reader).check(writer.root(), reader.root(), "value");
      return null;
    } catch (IllegalStateException e) {
      return e.getMessage();
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
      return !writer.equals(PositionalSchema.LEGACY_INT)
          && !writer.equals(PositionalSchema.LEGACY_FLOAT)
          && !writer.equals(PositionalSchema.LEGACY_TEXT);
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
      return writer.equals(PositionalSchema.LEGACY_TEXT);
    }
    if (!(reader instanceof Scalar scalar)) {
      return false;
    }
    String name = scalar.name();
    return switch (writer) {
      case PositionalSchema.LEGACY_INT -> INTEGERS.contains(name) || name.equals("f64");
      case PositionalSchema.LEGACY_FLOAT -> name.equals("f64");
      case PositionalSchema.LEGACY_TEXT ->
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

  static boolean isLegacy(Kind kind) {
    return kind instanceof Scalar scalar
        && (scalar.name().equals(PositionalSchema.LEGACY_INT)
            || scalar.name().equals(PositionalSchema.LEGACY_FLOAT)
            || scalar.name().equals(PositionalSchema.LEGACY_TEXT));
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
      if (r.equals(PositionalSchema.ANY)) {
        return;
      }
      if (w.equals(PositionalSchema.ANY)) {
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
          checkRecord(writer.records().get(wr.index()), reader.records().get(rr.index()), path);
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
      if (r.equals(PositionalSchema.ANY)) {
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
  static @Nullable Field match(String name, Rec reader) {
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

  static String describe(Kind kind) {
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
        case PositionalSchema.LEGACY_INT -> "an integer of a pre-0.1 schema";
        case PositionalSchema.LEGACY_FLOAT -> "a floating-point number of a pre-0.1 schema";
        case PositionalSchema.LEGACY_TEXT -> "text of a pre-0.1 schema";
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
}
