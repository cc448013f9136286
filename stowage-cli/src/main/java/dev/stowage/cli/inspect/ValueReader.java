package dev.stowage.cli.inspect;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stowage.Codec;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.Encoding;
import dev.stowage.EnvelopeException;
import dev.stowage.Inspector;
import dev.stowage.StowageException;
import dev.stowage.codec.Codecs;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.msgpack.jackson.dataformat.MessagePackMapper;

/**
 * Describes one Redis value as a JSON object: its envelope (or the legacy format it was written
 * in), its sizes, and the value itself as a JSON tree whenever that can be shown. A value that
 * cannot be decoded is described, not thrown: {@code missing} says what the reader needs, {@code
 * error} why decoding failed (whatever the codec's library threw), and {@code hex} and {@code
 * strings} show the bytes. Untyped MessagePack is checked by {@link Inspector#messagePackProblem}
 * before it is parsed, so a value declaring gigabytes is reported, not allocated.
 *
 * <p>Field names of the description: {@code format} ({@code envelope} or {@code legacy}), {@code
 * header}, {@code codec}, {@code codecId}, {@code compression}, {@code dictionaryId}, {@code
 * schemaVersion}, {@code legacy} ({@code json}, {@code text}, {@code jdk} or {@code binary} when
 * guessed; the codec's name when {@code --legacy} names one), {@code writer}, {@code storedSize},
 * {@code decodedSize}, {@code class}, {@code fields}, {@code value}, {@code springNull}, {@code
 * missing}, {@code error}, {@code hex}, {@code strings}; and for an element of a collection that is
 * a feed entry ({@link #describeElement}), the entry's score.
 *
 * <p>Spring's cached null ({@code org.springframework.cache.support.NullValue}, JDK-serialized as
 * Spring's {@code RedisCache} stores it, or as {@code {"@class":"…NullValue"}}) is described with
 * {@code springNull: true} and a null {@code value}. Values of the Spring starter's caches without
 * a type (codec id {@value #SPRING_CLASS_NAMED}) are described by the class they name and their
 * value read as MessagePack or JSON, without loading the class.
 */
final class ValueReader {
  private static final int HEX_BYTES = 256;
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper MSGPACK = new MessagePackMapper();

  /**
   * The codec id of the Spring starter's caches without a type (stowage-spring's class-naming
   * codec, from the range left to applications): a tag byte, {@code 0} for a cached null, {@code 1}
   * for a class name (two bytes of length, big-endian, then UTF-8) and the value in the per-class
   * codec, MessagePack by default.
   */
  static final int SPRING_CLASS_NAMED = 200;

  /** Spring's cached null, as Spring's caches and serializers store it. */
  static final String SPRING_NULL = "org.springframework.cache.support.NullValue";

  /** Made on first use: only a compressed value needs Redis (its dictionary) to be read. */
  private final Supplier<Inspector> inspector;

  private final ClassOptions classes;
  private final LegacyFormat legacy;
  private final Map<String, Codec<?>> typedCodecs = new HashMap<>();

  ValueReader(Supplier<Inspector> inspector, ClassOptions classes, LegacyFormat legacy) {
    this.inspector = inspector;
    this.classes = classes;
    this.legacy = legacy;
  }

  ObjectNode describe(byte[] value) {
    ObjectNode out = NODES.objectNode();
    if (Encoding.Serializer.isEnvelope(value)) {
      describeEnvelope(value, out);
    } else {
      describeLegacy(value, out);
    }
    return out;
  }

  /**
   * Describes an element of a hash, list, set or sorted set as {@link #describe} does, except that
   * an element that is a feed entry (a score varint, then an envelope; see {@link FeedLayout}) is
   * described by its envelope, after the score under {@code scoreField}. Its {@code storedSize} is
   * then the envelope's, without the score's 1 to 8 bytes.
   */
  ObjectNode describeElement(byte[] element, String scoreField) {
    byte[] envelope = FeedLayout.envelope(element);
    if (envelope == null) {
      return describe(element);
    }
    ObjectNode out = NODES.objectNode().put(scoreField, FeedLayout.score(element));
    out.setAll(describe(envelope));
    return out;
  }

  /**
   * A sealed feed bucket's value as read: its envelope described, and its members, or null when
   * they cannot be read.
   */
  record Sealed(ObjectNode description, @Nullable List<byte[]> members) {}

  /**
   * Reads the value of a sealed feed bucket ({@link Inspector#sealedBucketEntries}): describes its
   * envelope (header and sizes, as {@link #describe} does), decompresses it and splits its payload
   * into members. A value that cannot be read (not an envelope, a missing dictionary, a truncated
   * frame, a payload that is not a sequence of members) is described with an {@code error} and its
   * bytes, and has no members.
   */
  Sealed readSealed(byte[] value) {
    ObjectNode out = NODES.objectNode();
    if (!Encoding.Serializer.isEnvelope(value)) {
      out.put("format", "legacy");
      out.put("storedSize", value.length);
      out.put("error", "a sealed bucket is an envelope, but this value has none");
      showBytes(value, out);
      return new Sealed(out, null);
    }
    byte[] payload = envelopePayload(value, out);
    if (payload == null) {
      return new Sealed(out, null);
    }
    try {
      return new Sealed(out, Inspector.sealedBucketEntries(payload));
    } catch (EnvelopeException e) {
      out.put("error", "the payload is not a sealed bucket's members: " + e.getMessage());
      showBytes(payload, out);
      return new Sealed(out, null);
    }
  }

  private void describeEnvelope(byte[] value, ObjectNode out) {
    byte[] payload = envelopePayload(value, out);
    if (payload == null) {
      return;
    }
    describePayload(Inspector.header(value).orElseThrow(), payload, out);
  }

  /**
   * Describes an envelope's header and sizes into {@code out} and returns its payload,
   * decompressed; null, with {@code error} and the bytes described, when it cannot be read.
   */
  private byte @Nullable [] envelopePayload(byte[] value, ObjectNode out) {
    out.put("format", "envelope");
    Inspector.Header header;
    try {
      header = Inspector.header(value).orElseThrow();
    } catch (StowageException e) {
      out.put("storedSize", value.length);
      out.put("error", "malformed envelope: " + e.getMessage());
      showBytes(value, out);
      return null;
    }
    out.put("header", header.describe());
    out.put("codec", header.codecName());
    out.put("codecId", header.codecId());
    out.put("compression", header.compressionName());
    header.dictionaryId().ifPresent(id -> out.put("dictionaryId", Inspector.hexId(id)));
    header.schemaVersion().ifPresent(version -> out.put("schemaVersion", version));
    out.put("storedSize", value.length);
    byte[] payload;
    try {
      payload =
          header.isCompressed() ? inspector.get().payload(value) : uncompressed(value, header);
    } catch (DictionaryNotFoundException e) {
      out.put(
          "error",
          "zstd dictionary "
              + Inspector.hexId(e.dictionaryId())
              + " is missing: no key "
              + Inspector.Keys.dictionary(e.dictionaryId())
              + " in Redis, or its bytes do not match the id ("
              + e.getMessage()
              + ")");
      showBytes(Arrays.copyOfRange(value, header.headerSize(), value.length), out);
      return null;
    } catch (StowageException e) {
      out.put("error", "cannot decompress: " + e.getMessage());
      showBytes(value, out);
      return null;
    }
    out.put("decodedSize", payload.length);
    return payload;
  }

  /**
   * The payload of an uncompressed envelope: the bytes after its header, already in memory, so no
   * Redis (for a dictionary) and no decompression budget are needed.
   */
  private static byte[] uncompressed(byte[] value, Inspector.Header header) {
    return Arrays.copyOfRange(value, header.headerSize(), value.length);
  }

  private void describePayload(Inspector.Header header, byte[] payload, ObjectNode out) {
    String codecName = header.codecId() == SPRING_CLASS_NAMED ? "" : header.codecName();
    try {
      switch (codecName) {
        case "json", "fastjson2" -> out.set("value", parseJson(payload));
        case "msgpack" -> {
          byte[] value = payload;
          if (isSpringTyped(payload)) {
            // A Spring cache with a type writes a tag byte (1) before the codec's bytes: the
            // integer 1
            // alone is one byte, so a payload that starts with it and goes on is no plain value.
            out.put("springTyped", true);
            value = Arrays.copyOfRange(payload, 1, payload.length);
          }
          out.set(
              "value",
              classes.hasType()
                  ? ObjectTrees.toTree(typedCodec(codecName).decode(value))
                  : msgpackTree(value));
        }
        case "string" -> out.put("value", strictUtf8(payload));
        case "kryo", "fory", "protobuf", "avro", "thrift" -> {
          if (classes.hasType()) {
            out.set("value", ObjectTrees.toTree(typedCodec(codecName).decode(payload)));
            out.put("class", classes.type().getName());
          } else {
            out.put(
                "missing",
                header.codecName()
                    + " value: pass --type and --classpath with the cache's classes"
                    + (codecName.equals("kryo") || codecName.equals("fory")
                        ? " (and --register with the classes it registers, in order)"
                        : ""));
            showBytes(payload, out);
          }
        }
        case "jdk" -> describeJavaSerialization(payload, out, true);
        case "" -> {
          out.put("header", header.describe().replace(header.codecName(), "spring class-named"));
          describeClassNamed(payload, out);
        }
        default -> {
          out.put(
              "missing",
              "codec "
                  + header.codecName()
                  + " is not a built-in codec; only its bytes can be shown");
          showBytes(payload, out);
        }
      }
    } catch (IOException | RuntimeException e) {
      out.put("error", header.codecName() + " payload could not be decoded: " + message(e));
      showBytes(payload, out);
    }
  }

  /**
   * A value of the Spring starter's class-naming codec ({@link #SPRING_CLASS_NAMED}): the class it
   * names and the value as a tree, read as MessagePack (the default per-class codec) or JSON
   * without loading the class; a cached null as Spring's null.
   */
  private static void describeClassNamed(byte[] payload, ObjectNode out) throws IOException {
    out.put("codec", "spring class-named");
    if (payload.length == 1 && payload[0] == 0) {
      springNull(out);
      return;
    }
    int tag = payload.length == 0 ? -1 : payload[0] & 0xff;
    if (tag != 1 && tag != 2) {
      out.put(
          "missing",
          "a value of a Spring cache without a type, but with tag "
              + (tag < 0 ? "none" : Integer.toString(tag))
              + ", which this inspector does not know (it reads 0, a cached null; 1, a class name then the value; and"
              + " 2, a type name then the value in an envelope of its own); only its bytes are shown");
      showBytes(payload, out);
      return;
    }
    int nameLength = payload.length < 3 ? -1 : (payload[1] & 0xff) << 8 | (payload[2] & 0xff);
    if (nameLength < 1 || 3 + nameLength > payload.length) {
      throw new IOException(
          "a class name of " + nameLength + " bytes in a payload of " + payload.length);
    }
    out.put("class", new String(payload, 3, nameLength, StandardCharsets.UTF_8));
    byte[] value = Arrays.copyOfRange(payload, 3 + nameLength, payload.length);
    if (tag == 2) {
      // The value in an envelope of its own, uncompressed, which records the type's shape.
      Inspector.Header inner =
          Inspector.header(value)
              .orElseThrow(() -> new IOException("the value of a type name has no envelope"));
      out.put("innerCodec", inner.codecName());
      inner
          .schemaVersion()
          .ifPresent(version -> out.put("innerSchema", Inspector.hexFingerprint(version)));
      if (inner.isCompressed()) {
        out.put(
            "missing",
            "the value of "
                + out.get("class").asText()
                + " is compressed inside its envelope ("
                + inner.describe()
                + "), which the starter never writes; only its bytes are shown");
        showBytes(value, out);
        return;
      }
      value = Arrays.copyOfRange(value, inner.headerSize(), value.length);
    }
    JsonNode json = tryParseJson(value);
    if (Inspector.messagePackProblem(value, 0, value.length).isEmpty()) {
      out.set("value", MSGPACK.readTree(value));
    } else if (json != null) {
      out.set("value", json);
    } else {
      out.put(
          "missing",
          "the value of "
              + out.get("class").asText()
              + " is neither MessagePack nor JSON (a"
              + " cache whose stowage...codec names another codec); only its bytes are shown");
      showBytes(value, out);
    }
  }

  /** Describes Spring's cached null: no value, the class that stands for it. */
  private static void springNull(ObjectNode out) {
    out.put("class", SPRING_NULL);
    out.put("springNull", true);
    out.putNull("value");
  }

  /** Whether JDK serialization holds Spring's cached null. */
  private static boolean isJdkSpringNull(byte[] data) {
    try {
      return JavaSerializationHeader.isJavaSerialization(data)
          && SPRING_NULL.equals(JavaSerializationHeader.describe(data).className());
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private void describeLegacy(byte[] value, ObjectNode out) {
    out.put("format", "legacy");
    out.put("storedSize", value.length);
    try {
      String codecName = legacy.codecName();
      if (codecName == null) {
        guessLegacy(value, out);
        return;
      }
      switch (codecName) {
        case "json", "fastjson2" -> legacyJson(parseJson(value), out);
        case "string" -> {
          out.put("legacy", "text");
          out.put("value", strictUtf8(value));
        }
        case "jdk" -> describeJavaSerialization(value, out, false);
        case "msgpack" -> {
          out.put("legacy", legacy.name());
          out.set(
              "value",
              classes.hasType()
                  ? ObjectTrees.toTree(typedCodec("msgpack").decode(value))
                  : msgpackTree(value));
        }
        default -> {
          out.put("legacy", legacy.name());
          if (!classes.hasType()) {
            throw new InspectException(legacy.needsTypeMessage());
          }
          out.set("value", ObjectTrees.toTree(typedCodec(codecName).decode(value)));
          out.put("class", classes.type().getName());
        }
      }
    } catch (IOException | RuntimeException e) {
      out.put("error", "legacy " + legacy.name() + " value could not be read: " + message(e));
      showBytes(value, out);
    }
  }

  /** {@code --legacy auto}: JDK serialization, then JSON, then UTF-8 text, else the bytes. */
  private void guessLegacy(byte[] value, ObjectNode out) {
    if (JavaSerializationHeader.isJavaSerialization(value)) {
      describeJavaSerialization(value, out, false);
      return;
    }
    JsonNode tree = tryParseJson(value);
    if (tree != null) {
      legacyJson(tree, out);
      return;
    }
    String text = tryUtf8(value);
    if (text != null) {
      out.put("legacy", "text");
      out.put("value", text);
      return;
    }
    out.put("legacy", "binary");
    out.put(
        "missing", "no envelope, and the bytes are neither JSON, UTF-8 text nor JDK serialization");
    showBytes(value, out);
  }

  private static void legacyJson(JsonNode tree, ObjectNode out) {
    out.put("legacy", "json");
    JsonNode type = tree.isObject() ? tree.get("@class") : null;
    if (type != null && type.isTextual()) {
      out.put("class", type.asText());
      out.put("writer", "GenericJackson2JsonRedisSerializer, type in \"@class\"");
    }
    if (type != null && SPRING_NULL.equals(type.asText()) && tree.size() == 1) {
      springNull(out);
      return;
    }
    out.set("value", tree);
  }

  private void describeJavaSerialization(byte[] data, ObjectNode out, boolean enveloped) {
    if (!enveloped) {
      out.put("legacy", "jdk");
    }
    if (isJdkSpringNull(data)) {
      springNull(out);
      return;
    }
    if (classes.hasType()) {
      Codec<?> codec =
          enveloped
              ? typedCodec("jdk")
              : typedCodecs.computeIfAbsent("legacy jdk", name -> jdkCodec());
      Object decoded = codec.decode(data);
      out.put("class", decoded.getClass().getName());
      out.set("value", ObjectTrees.toTree(decoded));
      return;
    }
    JavaSerializationHeader.Description description = JavaSerializationHeader.describe(data);
    out.put("class", description.className());
    if ("string".equals(description.kind()) && description.text() != null) {
      out.put("value", description.text());
      return;
    }
    out.put("serialVersionUID", description.serialVersionUid());
    ArrayNode fields = out.putArray("fields");
    for (JavaSerializationHeader.Field field : description.fields()) {
      fields
          .addObject()
          .put("name", field.name())
          .put("type", field.type())
          .put("declaredBy", field.declaringClass());
    }
    if (description.text() != null) {
      out.put("constant", description.text());
    }
    out.put(
        "missing",
        "java serialization of class "
            + description.className()
            + ": pass --type and --classpath to decode its fields (through the jdk codec's allowlist)");
    showBytes(data, out);
  }

  private Codec<?> typedCodec(String codecName) {
    return typedCodecs.computeIfAbsent(
        codecName,
        name ->
            name.equals("jdk")
                ? jdkCodec()
                : Codecs.forName(name, classes.type(), classes.registered()));
  }

  private Codec<?> jdkCodec() {
    return Codecs.jdk(
        classes.type(), classes.register.stream().map(String::strip).toArray(String[]::new));
  }

  private static JsonNode parseJson(byte[] data) throws IOException {
    try (JsonParser parser = JSON.getFactory().createParser(data)) {
      JsonNode tree = JSON.readTree(parser);
      if (tree == null) {
        throw new IOException("no JSON value");
      }
      JsonToken trailing = parser.nextToken();
      if (trailing != null) {
        throw new IOException(
            "trailing content after the JSON value at byte "
                + parser.currentTokenLocation().getByteOffset());
      }
      return tree;
    }
  }

  private static @Nullable JsonNode tryParseJson(byte[] data) {
    try {
      return parseJson(data);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static String strictUtf8(byte[] data) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(data))
        .toString();
  }

  private static @Nullable String tryUtf8(byte[] data) {
    try {
      return strictUtf8(data);
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  /**
   * Whether a MessagePack payload is a Spring typed cache's: the tag byte 1, then a whole
   * MessagePack value.
   */
  private static boolean isSpringTyped(byte[] payload) {
    return payload.length > 1
        && payload[0] == 1
        && Inspector.messagePackProblem(payload, 1, payload.length - 1).isEmpty();
  }

  /** MessagePack as a tree, once its lengths, counts and depth are known to fit the bytes. */
  private static JsonNode msgpackTree(byte[] data) throws IOException {
    Optional<String> problem = Inspector.messagePackProblem(data, 0, data.length);
    if (problem.isPresent()) {
      throw new IOException(problem.get());
    }
    return MSGPACK.readTree(data);
  }

  /**
   * Why reading failed, in one line: Stowage's own messages as they are, a library's with its
   * exception's name.
   */
  private static String message(Exception e) {
    if (e instanceof CharacterCodingException) {
      return "not valid UTF-8";
    }
    String text = e.getMessage();
    if (e instanceof StowageException || e instanceof IOException) {
      return String.valueOf(text);
    }
    String line = text == null || text.isBlank() ? "" : ": " + text.lines().findFirst().orElse("");
    return e.getClass().getSimpleName() + line;
  }

  /** A hex dump of the first bytes and the printable ASCII runs of four or more characters. */
  static void showBytes(byte[] data, ObjectNode out) {
    out.put("hex", hexDump(data, HEX_BYTES));
    ArrayNode strings = out.putArray("strings");
    StringBuilder run = new StringBuilder();
    for (int i = 0; i <= data.length && strings.size() < 32; i++) {
      int b = i < data.length ? data[i] & 0xFF : -1;
      if (b >= 0x20 && b < 0x7F) {
        run.append((char) b);
      } else {
        if (run.length() >= 4) {
          strings.add(run.toString());
        }
        run.setLength(0);
      }
    }
  }

  static String hexDump(byte[] data, int limit) {
    StringBuilder text = new StringBuilder();
    int shown = Math.min(limit, data.length);
    for (int line = 0; line < shown; line += 16) {
      text.append(String.format("%08x ", line));
      StringBuilder ascii = new StringBuilder();
      for (int i = line; i < line + 16; i++) {
        if (i < shown) {
          int b = data[i] & 0xFF;
          text.append(String.format(" %02x", b));
          ascii.append(b >= 0x20 && b < 0x7F ? (char) b : '.');
        } else {
          text.append("   ");
        }
      }
      text.append("  |").append(ascii).append("|\n");
    }
    if (data.length > shown) {
      text.append("… ").append(data.length - shown).append(" more bytes\n");
    }
    return text.toString();
  }
}
