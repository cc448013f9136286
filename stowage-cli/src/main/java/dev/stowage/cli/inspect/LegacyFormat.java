package dev.stowage.cli.inspect;

import dev.stowage.codec.Codecs;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --legacy}: how values without an envelope are read. {@code auto} guesses (JDK
 * serialization, then JSON, then UTF-8 text, else bytes); any built-in codec's name reads every
 * such value with that codec. Kryo, Fory, Protobuf, Avro and Thrift bytes do not say what class
 * they hold, so those names need {@code --type}; MessagePack without {@code --type} is shown as the
 * tree it holds, and {@code jdk} without it as the class and fields its stream declares.
 *
 * @param name the name as the user spells it, lower case: {@code auto}, or a name {@link
 *     Codecs#forName} accepts
 * @param codecName the name of the codec whose id the values would carry ({@code msgpack-compact}
 *     is {@code msgpack}), or null for {@code auto}
 */
record LegacyFormat(String name, @Nullable String codecName) {
  static final LegacyFormat AUTO = new LegacyFormat("auto", null);
  private static final Set<String> NEED_TYPE = Set.of("kryo", "fory", "protobuf", "avro", "thrift");

  /** The names {@code --legacy} accepts. */
  static List<String> names() {
    List<String> names = new ArrayList<>();
    names.add("auto");
    names.addAll(Codecs.names());
    return names;
  }

  /**
   * The format named {@code name}, ignoring case and surrounding spaces.
   *
   * @throws IllegalArgumentException for another name; the message lists the valid ones
   */
  static LegacyFormat parse(String name) {
    String chosen = name.strip().toLowerCase(Locale.ROOT);
    if (chosen.equals("auto")) {
      return AUTO;
    }
    if (!Codecs.names().contains(chosen)) {
      throw new IllegalArgumentException(
          "'" + name + "' is not a legacy format; choose from " + String.join(", ", names()));
    }
    return new LegacyFormat(chosen, chosen.equals("msgpack-compact") ? "msgpack" : chosen);
  }

  /** Whether reading needs {@code --type}: the codec's bytes do not name their class. */
  boolean needsType() {
    return codecName != null && NEED_TYPE.contains(codecName);
  }

  /** The usage error when {@link #needsType()} and no {@code --type} was given. */
  String needsTypeMessage() {
    return "--legacy "
        + name
        + " needs --type: "
        + name
        + " bytes do not say what class they hold"
        + " (pass --type CLASS, with --classpath for the cache's classes"
        + ("kryo".equals(codecName) || "fory".equals(codecName)
            ? " and --register for the classes it registers"
            : "")
        + ")";
  }

  /** picocli's converter for the option. */
  static final class Converter implements ITypeConverter<LegacyFormat> {
    @Override
    public LegacyFormat convert(String value) {
      try {
        return parse(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }
}
