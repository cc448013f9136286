package dev.stowage.cli.inspect;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Reads what a JDK serialization stream says about its first object without creating anything: the
 * class name, its serialVersionUID and its declared fields (name and type), superclasses included.
 * Nothing is loaded or instantiated, so this is safe on any bytes; decoding the field values is
 * left to the JDK codec and its allowlist, which needs the class.
 */
final class JavaSerializationHeader {
  static final int STREAM_MAGIC = 0xACED;
  private static final int TC_NULL = 0x70;
  private static final int TC_REFERENCE = 0x71;
  private static final int TC_CLASSDESC = 0x72;
  private static final int TC_OBJECT = 0x73;
  private static final int TC_STRING = 0x74;
  private static final int TC_ARRAY = 0x75;
  private static final int TC_ENDBLOCKDATA = 0x78;
  private static final int TC_LONGSTRING = 0x7C;
  private static final int TC_ENUM = 0x7E;
  private static final int MAX_CLASSES = 64;

  /** One field declaration. */
  record Field(String declaringClass, String name, String type) {}

  /**
   * What the stream starts with.
   *
   * @param kind {@code object}, {@code enum}, {@code array} or {@code string}
   * @param className the class of the first object (for a string, {@code java.lang.String})
   * @param serialVersionUid the class's serialVersionUID, or 0 for a string
   * @param fields the serializable fields, superclasses' first
   * @param text the value of a string, or the constant of an enum; null otherwise
   */
  record Description(
      String kind,
      String className,
      long serialVersionUid,
      List<Field> fields,
      @Nullable String text) {}

  private final DataInputStream in;
  private final List<String> handles = new ArrayList<>();

  private JavaSerializationHeader(byte[] data) {
    this.in = new DataInputStream(new ByteArrayInputStream(data));
  }

  /** Whether the bytes start with the JDK serialization magic and version 5. */
  static boolean isJavaSerialization(byte[] data) {
    return data.length >= 4
        && (data[0] & 0xFF) == 0xAC
        && (data[1] & 0xFF) == 0xED
        && data[2] == 0
        && data[3] == 5;
  }

  /**
   * Describes the first object of the stream.
   *
   * @throws IllegalArgumentException naming what could not be read
   */
  static Description describe(byte[] data) {
    if (!isJavaSerialization(data)) {
      throw new IllegalArgumentException("not a JDK serialization stream (no ac ed 00 05)");
    }
    try {
      return new JavaSerializationHeader(data).readFirst();
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated JDK serialization stream: " + e);
    }
  }

  private Description readFirst() throws IOException {
    in.skipBytes(4);
    int tc = in.readUnsignedByte();
    switch (tc) {
      case TC_STRING -> {
        return new Description("string", "java.lang.String", 0, List.of(), in.readUTF());
      }
      case TC_LONGSTRING -> {
        return new Description("string", "java.lang.String", 0, List.of(), null);
      }
      case TC_OBJECT -> {
        List<ClassDescription> chain = readClassChain();
        return describeChain("object", chain, null);
      }
      case TC_ENUM -> {
        List<ClassDescription> chain = readClassChain();
        handles.add("enum");
        String constant = readStringObject();
        return describeChain("enum", chain, constant);
      }
      case TC_ARRAY -> {
        List<ClassDescription> chain = readClassChain();
        return describeChain("array", chain, null);
      }
      default ->
          throw new IllegalArgumentException(
              String.format(
                  "the stream starts with type code 0x%02x, not an object, enum, array or string",
                  tc));
    }
  }

  private static Description describeChain(
      String kind, List<ClassDescription> chain, @Nullable String text) {
    if (chain.isEmpty()) {
      throw new IllegalArgumentException("the stream's first object has no class descriptor");
    }
    List<Field> fields = new ArrayList<>();
    for (int i = chain.size() - 1; i >= 0; i--) {
      fields.addAll(chain.get(i).fields);
    }
    ClassDescription first = chain.get(0);
    return new Description(
        kind, javaName(first.name), first.serialVersionUid, List.copyOf(fields), text);
  }

  private record ClassDescription(String name, long serialVersionUid, List<Field> fields) {}

  /** Reads a class descriptor and its superclasses', the class first. */
  private List<ClassDescription> readClassChain() throws IOException {
    List<ClassDescription> chain = new ArrayList<>();
    int tc = in.readUnsignedByte();
    while (tc == TC_CLASSDESC) {
      if (chain.size() == MAX_CLASSES) {
        throw new IllegalArgumentException("more than " + MAX_CLASSES + " superclasses");
      }
      String name = in.readUTF();
      long uid = in.readLong();
      handles.add(name);
      in.readUnsignedByte(); // flags
      int count = in.readUnsignedShort();
      List<Field> fields = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        char code = (char) in.readUnsignedByte();
        String fieldName = in.readUTF();
        String type =
            code == 'L' || code == '[' ? signatureName(readStringObject()) : primitive(code);
        fields.add(new Field(javaName(name), fieldName, type));
      }
      int annotationEnd = in.readUnsignedByte();
      if (annotationEnd != TC_ENDBLOCKDATA) {
        throw new IllegalArgumentException(
            "class "
                + javaName(name)
                + " writes class annotations, which this reader does not follow");
      }
      chain.add(new ClassDescription(name, uid, fields));
      tc = in.readUnsignedByte();
    }
    if (tc == TC_REFERENCE && chain.isEmpty()) {
      throw new IllegalArgumentException("the stream's first class descriptor is a back reference");
    }
    if (tc != TC_NULL && tc != TC_REFERENCE) {
      throw new IllegalArgumentException(
          String.format("unexpected type code 0x%02x in a class descriptor", tc));
    }
    return chain;
  }

  private String readStringObject() throws IOException {
    int tc = in.readUnsignedByte();
    if (tc == TC_STRING) {
      String text = in.readUTF();
      handles.add(text);
      return text;
    }
    if (tc == TC_REFERENCE) {
      int handle = in.readInt() - 0x7E0000;
      return handle >= 0 && handle < handles.size() ? handles.get(handle) : "?";
    }
    throw new IllegalArgumentException(
        String.format("expected a string, found type code 0x%02x", tc));
  }

  private static String primitive(char code) {
    return switch (code) {
      case 'B' -> "byte";
      case 'C' -> "char";
      case 'D' -> "double";
      case 'F' -> "float";
      case 'I' -> "int";
      case 'J' -> "long";
      case 'S' -> "short";
      case 'Z' -> "boolean";
      default -> throw new IllegalArgumentException("unknown field type code '" + code + "'");
    };
  }

  /** {@code Ljava/lang/String;} to {@code java.lang.String}, {@code [I} to {@code int[]}. */
  static String signatureName(String signature) {
    int dimensions = 0;
    while (dimensions < signature.length() && signature.charAt(dimensions) == '[') {
      dimensions++;
    }
    String element = signature.substring(dimensions);
    String base;
    if (element.startsWith("L") && element.endsWith(";")) {
      base = element.substring(1, element.length() - 1).replace('/', '.');
    } else if (element.length() == 1) {
      base = primitive(element.charAt(0));
    } else {
      base = element;
    }
    return base + "[]".repeat(dimensions);
  }

  private static String javaName(String descriptorName) {
    return descriptorName.startsWith("[") ? signatureName(descriptorName) : descriptorName;
  }
}
