package dev.stowage.board;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.BoardMappers;
import dev.stowage.board.protocol.NewBoard;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import org.msgpack.core.MessagePackException;
import org.msgpack.jackson.dataformat.MessagePackFactory;
import org.springframework.http.MediaType;

/**
 * The wire formats: JSON and MessagePack mappers, request parsing with validation, and the fast
 * path's response assembly from cached JSON fragments (splicing for JSON, streaming transcoding for
 * MessagePack). Thread-safe.
 */
public final class BoardFormats {
  /** {@code application/msgpack}. */
  public static final MediaType MSGPACK = MediaType.parseMediaType("application/msgpack");

  private static final MediaType X_MSGPACK = MediaType.parseMediaType("application/x-msgpack");

  private static final byte[] PAGE_PREFIX =
      "{\"code\":200,\"message\":\"success\",\"data\":[".getBytes(StandardCharsets.UTF_8);
  private static final byte[] PAGE_SUFFIX = "]}".getBytes(StandardCharsets.UTF_8);
  private static final byte[] ONE_PREFIX =
      "{\"code\":200,\"message\":\"success\",\"data\":".getBytes(StandardCharsets.UTF_8);
  private static final byte[] ONE_SUFFIX = "}".getBytes(StandardCharsets.UTF_8);

  private final ObjectMapper json;
  private final ObjectMapper msgpack;
  private final JsonFactory jsonFactory;
  private final MessagePackFactory msgpackFactory;
  private final JavaType bulkType;

  /** JSON's nesting limit (Jackson's {@code StreamReadConstraints}), applied to MessagePack too. */
  private final int maxNestingDepth;

  public BoardFormats() {
    this.json = BoardMappers.json();
    this.msgpack = BoardMappers.msgpack();
    this.jsonFactory = json.getFactory();
    this.msgpackFactory = (MessagePackFactory) msgpack.getFactory();
    this.bulkType = json.getTypeFactory().constructCollectionType(List.class, NewBoard.class);
    this.maxNestingDepth = jsonFactory.streamReadConstraints().getMaxNestingDepth();
  }

  /** The JSON mapper (seed names and date formats: {@link BoardMappers#json()}). */
  public ObjectMapper json() {
    return json;
  }

  /** The MessagePack mapper, configured like {@link #json()}. */
  public ObjectMapper msgpack() {
    return msgpack;
  }

  /**
   * Whether a response for {@code accept} should be MessagePack (else JSON, the default): the
   * MessagePack types named explicitly with a higher quality than anything that admits JSON, or
   * with the same quality and listed first.
   */
  public static boolean wantsMsgpack(List<MediaType> accept) {
    double msgpackQuality = 0;
    double jsonQuality = 0;
    int msgpackFirst = Integer.MAX_VALUE;
    int jsonFirst = Integer.MAX_VALUE;
    for (int i = 0; i < accept.size(); i++) {
      MediaType type = accept.get(i);
      double quality = type.getQualityValue();
      boolean msgpackType =
          !type.isWildcardType()
              && !type.isWildcardSubtype()
              && (type.isCompatibleWith(MSGPACK) || type.isCompatibleWith(X_MSGPACK));
      if (msgpackType && quality > 0) {
        msgpackQuality = Math.max(msgpackQuality, quality);
        msgpackFirst = Math.min(msgpackFirst, i);
      } else if (type.isCompatibleWith(MediaType.APPLICATION_JSON) && quality > 0) {
        jsonQuality = Math.max(jsonQuality, quality);
        jsonFirst = Math.min(jsonFirst, i);
      }
    }
    return msgpackQuality > jsonQuality
        || (msgpackQuality > 0 && msgpackQuality == jsonQuality && msgpackFirst < jsonFirst);
  }

  /**
   * Whether a request body of {@code contentType} is MessagePack; JSON when absent.
   *
   * @throws BoardRequestException 415 for any other type
   */
  public static boolean isMsgpackBody(MediaType contentType) {
    if (contentType == null) {
      return false;
    }
    if (contentType.isCompatibleWith(MediaType.APPLICATION_JSON)) {
      String charset = contentType.getParameter("charset");
      if (charset != null && !"utf-8".equalsIgnoreCase(unquote(charset))) {
        throw new BoardRequestException(
            415,
            "JSON bodies are UTF-8; Content-Type names the"
                + " charset "
                + unquote(charset)
                + ": send UTF-8, with charset=utf-8 or no charset");
      }
      return false;
    }
    if (contentType.isCompatibleWith(MSGPACK) || contentType.isCompatibleWith(X_MSGPACK)) {
      return true;
    }
    throw new BoardRequestException(
        415,
        "unsupported Content-Type "
            + contentType
            + "; send application/json or application/msgpack");
  }

  private static String unquote(String value) {
    return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
        ? value.substring(1, value.length() - 1)
        : value;
  }

  /** Parses and validates one post. @throws BoardRequestException 400 saying what is wrong */
  public NewBoard parseOne(byte[] body, boolean msgpackBody) {
    NewBoard board = read(body, msgpackBody, json.constructType(NewBoard.class));
    validate(board, "");
    return board;
  }

  /** Parses and validates a bulk request: an array of 1..1000 posts. */
  public List<NewBoard> parseMany(byte[] body, boolean msgpackBody) {
    List<NewBoard> boards = read(body, msgpackBody, bulkType);
    if (boards.isEmpty()) {
      throw new BoardRequestException(400, "a bulk request needs at least one post");
    }
    if (boards.size() > BoardLimits.MAX_BULK_POSTS) {
      throw new BoardRequestException(
          400,
          "a bulk request takes at most "
              + BoardLimits.MAX_BULK_POSTS
              + " posts, got "
              + boards.size());
    }
    for (int i = 0; i < boards.size(); i++) {
      validate(boards.get(i), "post [" + i + "]: ");
    }
    return boards;
  }

  /**
   * Reads a request body of either format as {@code type}: every request body of the HTTP API and
   * of the TCP protocol is read here. The bytes are checked first ({@link StrictInput}): JSON must
   * be well-formed UTF-8, and MessagePack's strings too, its nesting no deeper than JSON's limit.
   *
   * @throws BoardRequestException 400 for bytes that fail those checks
   * @throws IOException as Jackson reads the value
   */
  @SuppressWarnings(
      "TypeParameterUnusedInFormals") // T is the type the JavaType describes, as in Jackson's
  // readValue
  public <T> T readValue(byte[] body, boolean msgpackBody, JavaType type) throws IOException {
    if (msgpackBody) {
      StrictInput.checkMsgpack(body, maxNestingDepth);
    } else {
      StrictInput.checkJson(body);
    }
    return (msgpackBody ? msgpack : json).readValue(body, type);
  }

  /** {@link #readValue(byte[], boolean, JavaType)} for a class. */
  public <T> T readValue(byte[] body, boolean msgpackBody, Class<T> type) throws IOException {
    return readValue(body, msgpackBody, json.constructType(type));
  }

  @SuppressWarnings(
      "TypeParameterUnusedInFormals") // T is the type the JavaType describes, as in Jackson's
  // readValue
  private <T> T read(byte[] body, boolean msgpackBody, JavaType type) {
    String format = msgpackBody ? "MessagePack" : "JSON";
    if (body.length == 0) {
      throw new BoardRequestException(
          400,
          "the request body is empty; send a "
              + format
              + (type.isCollectionLikeType() ? " array of posts" : " object"));
    }
    try {
      T value = readValue(body, msgpackBody, type);
      if (value == null) {
        throw new BoardRequestException(400, "the request body is null");
      }
      return value;
    } catch (MismatchedInputException e) {
      String path = e.getPath().isEmpty() ? "" : " at " + pathOf(e);
      throw new BoardRequestException(
          400,
          "wrong shape of "
              + format
              + path
              + ": expected "
              + (e.getTargetType() == null ? "another type" : simpleName(e.getTargetType()))
              + (type.isCollectionLikeType() && e.getPath().isEmpty()
                  ? " (an array of posts)"
                  : ""));
    } catch (InvalidDefinitionException e) {
      // A post's fields are a record's: the one way to reach here is a field given again after
      // all ten were read ("no fallback setter"), so the post was already built.
      String path = e.getPath().isEmpty() ? "" : pathOf(e);
      throw new BoardRequestException(
          400,
          "wrong shape of "
              + format
              + (path.isEmpty()
                  ? ": a field is given more than once"
                  : ": the field " + path + " is given more than once"));
    } catch (JsonProcessingException e) {
      if (msgpackBody && !(e instanceof JsonParseException)) {
        throw new BoardRequestException(400, "malformed MessagePack: a value does not fit a post");
      }
      throw new BoardRequestException(
          400,
          "malformed "
              + format
              + ": "
              + (msgpackBody ? "the bytes are not MessagePack" : e.getOriginalMessage()));
    } catch (IOException | MessagePackException e) {
      // msgpack-core reports some malformed input with its own exceptions, whose messages name
      // its internals (or are null): StrictInput has read the whole body, so this is rare.
      throw new BoardRequestException(400, "malformed " + format + ": the bytes are not " + format);
    }
  }

  private static String simpleName(Class<?> type) {
    if (type == String.class) {
      return "a string";
    }
    if (type == Long.class || type == long.class) {
      return "an integer";
    }
    if (type == NewBoard.class) {
      return "an object";
    }
    if (List.class.isAssignableFrom(type)) {
      return "an array";
    }
    return type.getSimpleName();
  }

  private static String pathOf(JsonMappingException e) {
    StringBuilder path = new StringBuilder();
    for (var ref : e.getPath()) {
      if (ref.getFieldName() != null) {
        path.append(path.length() == 0 ? "" : ".").append(ref.getFieldName());
      } else {
        path.append('[').append(ref.getIndex()).append(']');
      }
    }
    return path.toString();
  }

  private static void validate(NewBoard board, String where) {
    StringJoiner missing = new StringJoiner(", ");
    if (board.memberId() == null) {
      missing.add("member_id");
    }
    String[][] texts = {
      {"title", board.title()},
      {"body", board.body()},
      {"address", board.address()},
      {"country", board.country()},
      {"job", board.job()},
      {"credit", board.credit()},
      {"ssn", board.ssn()},
      {"company", board.company()},
      {"phone_number", board.phoneNumber()}
    };
    for (String[] text : texts) {
      if (text[1] == null) {
        missing.add(text[0]);
      }
    }
    if (missing.length() > 0) {
      throw new BoardRequestException(400, where + "missing required fields: " + missing);
    }
    if (board.memberId() < 0) {
      throw new BoardRequestException(
          400, where + "member_id must not be negative, got " + board.memberId());
    }
    for (String[] text : texts) {
      // Characters are code points: an emoji is one, not its two UTF-16 units.
      if (text[1].length() > BoardLimits.MAX_TEXT_CHARS) {
        int characters = text[1].codePointCount(0, text[1].length());
        if (characters > BoardLimits.MAX_TEXT_CHARS) {
          throw new BoardRequestException(
              400,
              where
                  + text[0]
                  + " is "
                  + characters
                  + " characters; the limit is "
                  + BoardLimits.MAX_TEXT_CHARS);
        }
      }
      checkCharacters(text[1], where + text[0]);
    }
  }

  /**
   * Rejects what a text field cannot hold: the NUL character (PostgreSQL refuses it in text, so it
   * is refused on every database) and a surrogate without its pair (not Unicode: stored, it would
   * become {@code ?}). Both come only from JSON escapes (backslash-u 0000, backslash-u d800) or,
   * for NUL, from a MessagePack string.
   */
  private static void checkCharacters(String text, String field) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == 0) {
        throw new BoardRequestException(
            400,
            field
                + " contains the NUL character (U+0000) at"
                + " character "
                + i
                + "; text fields cannot hold it");
      }
      if (Character.isSurrogate(c)) {
        if (Character.isHighSurrogate(c)
            && i + 1 < text.length()
            && Character.isLowSurrogate(text.charAt(i + 1))) {
          i++;
        } else {
          throw new BoardRequestException(
              400,
              String.format(
                  "%s contains an unpaired surrogate"
                      + " (U+%04X) at character %d; text must be valid Unicode",
                  field, (int) c, i));
        }
      }
    }
  }

  /** A post as the JSON fragment stored in the feed. */
  public byte[] toJson(Board board) {
    try {
      return json.writeValueAsBytes(board);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Posts as JSON fragments. */
  public List<byte[]> toJson(List<Board> boards) {
    List<byte[]> fragments = new ArrayList<>(boards.size());
    for (Board board : boards) {
      fragments.add(toJson(board));
    }
    return fragments;
  }

  /** {@code {"code":200,"message":"success","data":[f1,f2,…]}} spliced from JSON fragments. */
  public static byte[] splicePage(List<byte[]> fragments) {
    int length = PAGE_PREFIX.length + PAGE_SUFFIX.length + Math.max(0, fragments.size() - 1);
    for (byte[] fragment : fragments) {
      length += fragment.length;
    }
    byte[] out = new byte[length];
    int at = 0;
    System.arraycopy(PAGE_PREFIX, 0, out, at, PAGE_PREFIX.length);
    at += PAGE_PREFIX.length;
    for (int i = 0; i < fragments.size(); i++) {
      if (i > 0) {
        out[at++] = ',';
      }
      byte[] fragment = fragments.get(i);
      System.arraycopy(fragment, 0, out, at, fragment.length);
      at += fragment.length;
    }
    System.arraycopy(PAGE_SUFFIX, 0, out, at, PAGE_SUFFIX.length);
    return out;
  }

  /** {@code {"code":200,"message":"success","data":fragment}}. */
  public static byte[] spliceOne(byte[] fragment) {
    byte[] out = new byte[ONE_PREFIX.length + fragment.length + ONE_SUFFIX.length];
    System.arraycopy(ONE_PREFIX, 0, out, 0, ONE_PREFIX.length);
    System.arraycopy(fragment, 0, out, ONE_PREFIX.length, fragment.length);
    System.arraycopy(ONE_SUFFIX, 0, out, ONE_PREFIX.length + fragment.length, ONE_SUFFIX.length);
    return out;
  }

  /**
   * The MessagePack form of {@link #splicePage}: each JSON fragment is copied token by token into
   * the MessagePack output, without building an object.
   */
  public byte[] transcodePage(List<byte[]> fragments) {
    return transcode(fragments, true);
  }

  /** The MessagePack form of {@link #spliceOne}. */
  public byte[] transcodeOne(byte[] fragment) {
    return transcode(List.of(fragment), false);
  }

  /**
   * Writes the cached JSON fragments to {@code out} as one MessagePack array (or, when {@code
   * asArray} is false, the single fragment as one MessagePack value), copied token by token without
   * building objects: the data part of a page without the HTTP API's wrapper.
   *
   * @throws UncheckedIOException if a fragment is not JSON or {@code out} fails
   */
  public void transcodeData(List<byte[]> fragments, boolean asArray, OutputStream out) {
    try (JsonGenerator generator = msgpackFactory.createGenerator(out)) {
      if (asArray) {
        generator.writeStartArray();
      }
      copyFragments(fragments, generator);
      if (asArray) {
        generator.writeEndArray();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot transcode cached posts to MessagePack", e);
    }
  }

  private void copyFragments(List<byte[]> fragments, JsonGenerator generator) throws IOException {
    for (byte[] fragment : fragments) {
      try (JsonParser parser = jsonFactory.createParser(fragment)) {
        JsonToken first = parser.nextToken();
        if (first == null) {
          throw new IOException("empty cached fragment");
        }
        generator.copyCurrentStructure(parser);
      }
    }
  }

  private byte[] transcode(List<byte[]> fragments, boolean asArray) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(fragments.size() * 512 + 64);
    try (JsonGenerator generator = msgpackFactory.createGenerator(out)) {
      generator.writeStartObject();
      generator.writeNumberField("code", 200);
      generator.writeStringField("message", "success");
      generator.writeFieldName("data");
      if (asArray) {
        generator.writeStartArray();
      }
      copyFragments(fragments, generator);
      if (asArray) {
        generator.writeEndArray();
      }
      generator.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot transcode a cached page to MessagePack", e);
    }
    return out.toByteArray();
  }

  /** {@code {"code":status,"message":message}} in JSON. */
  public byte[] error(int status, String message) {
    try {
      var node = json.createObjectNode();
      node.put("code", status);
      node.put("message", message);
      return json.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }
}
