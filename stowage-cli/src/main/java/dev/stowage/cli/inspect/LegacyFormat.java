package dev.stowage.cli.inspect;

import dev.stowage.CodecIds;
import dev.stowage.codec.Codecs;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
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
 * @param codecId the codec's id ({@code msgpack-compact} reads as {@link CodecIds#MSGPACK}), or -1
 *     for {@code auto}
 */
record LegacyFormat(String name, int codecId) {
  static final LegacyFormat AUTO = new LegacyFormat("auto", -1);
  private static final Set<Integer> NEED_TYPE =
      Set.of(CodecIds.KRYO, CodecIds.FORY, CodecIds.PROTOBUF, CodecIds.AVRO, CodecIds.THRIFT);

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
    int id = chosen.equals("msgpack-compact") ? CodecIds.MSGPACK : CodecIds.forName(chosen);
    return new LegacyFormat(chosen, id);
  }

  /** Whether reading needs {@code --type}: the codec's bytes do not name their class. */
  boolean needsType() {
    return NEED_TYPE.contains(codecId);
  }

  /** The usage error when {@link #needsType()} and no {@code --type} was given. */
  String needsTypeMessage() {
    return "--legacy "
        + name
        + " needs --type: "
        + name
        + " bytes do not say what class they hold"
        + " (pass --type CLASS, with --classpath for the cache's classes"
        + (codecId == CodecIds.KRYO || codecId == CodecIds.FORY
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
