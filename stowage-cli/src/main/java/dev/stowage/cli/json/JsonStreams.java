package dev.stowage.cli.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import java.io.CharConversionException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePackException;
import org.msgpack.jackson.dataformat.MessagePackExtensionType;
import org.msgpack.jackson.dataformat.MessagePackFactory;

/**
 * Copies one JSON or MessagePack value from a stream to a generator token by token, never holding
 * more than the current token: memory stays flat whatever the input's size. The copy is iterative,
 * so nesting costs a few bytes per level and no stack; it stops at a configured depth with an error
 * naming the limit.
 *
 * <p>JSON numbers with a fraction or exponent are written as they were spelled when the output is
 * JSON, so formatting never rounds. MessagePack binary becomes base64 text in JSON, and a
 * MessagePack extension becomes {@code {"extType": n, "data": base64}}.
 */
public final class JsonStreams {
  /** The deepest nesting accepted unless told otherwise: Jackson's own default. */
  public static final int DEFAULT_MAX_DEPTH = 1000;

  /** The deepest nesting that can be asked for. */
  public static final int MAX_MAX_DEPTH = 10_000_000;

  private static final int EXCERPT_WIDTH = 100;
  private static final Pattern UNEXPECTED =
      Pattern.compile("Unexpected character \\('(.+?)' \\(code \\d+\\)\\)(.*)", Pattern.DOTALL);
  private static final Pattern UNRECOGNIZED =
      Pattern.compile("Unrecognized token '(.+?)'", Pattern.DOTALL);
  private static final Pattern START_MARKER =
      Pattern.compile("\\[Source: [^\\]]*?; line: (\\d+), column: (\\d+)\\]", Pattern.DOTALL);

  /** The two formats. */
  public enum Format {
    JSON,
    MSGPACK
  }

  /** What a copy saw: bytes read, tokens, and the deepest nesting. */
  public record Summary(long bytes, long tokens, int depth) {}

  private JsonStreams() {}

  /**
   * A JSON factory whose parsers and generators allow {@code maxDepth} levels and strings of any
   * length.
   */
  public static JsonFactory jsonFactory(int maxDepth) {
    return new JsonFactoryBuilder()
        .streamReadConstraints(readConstraints(maxDepth))
        .streamWriteConstraints(writeConstraints(maxDepth))
        .build();
  }

  private static JsonFactory msgpackFactory(int maxDepth) {
    MessagePackFactory factory = new MessagePackFactory();
    factory.setStreamReadConstraints(readConstraints(maxDepth));
    factory.setStreamWriteConstraints(writeConstraints(maxDepth));
    return factory;
  }

  private static StreamReadConstraints readConstraints(int maxDepth) {
    return StreamReadConstraints.builder()
        .maxNestingDepth(maxDepth + 1)
        .maxStringLength(Integer.MAX_VALUE)
        .build();
  }

  private static StreamWriteConstraints writeConstraints(int maxDepth) {
    return StreamWriteConstraints.builder().maxNestingDepth(maxDepth + 1).build();
  }

  /** A generator for {@code format} writing to {@code out}, allowing {@code maxDepth} levels. */
  public static JsonGenerator generator(Format format, OutputStream out, int maxDepth)
      throws IOException {
    return (format == Format.JSON ? jsonFactory(maxDepth) : msgpackFactory(maxDepth))
        .createGenerator(out);
  }

  /**
   * Reads exactly one value in {@code from} format and writes it to {@code target}, or only checks
   * it when {@code target} is null. The input is not closed; the generator is flushed, not closed.
   *
   * @param source the input's name for messages: a file name, or {@code -}
   * @throws JsonInputException if the input is empty, malformed, not valid UTF-8, nested deeper
   *     than {@code maxDepth}, or holds more than one value
   * @throws IOException if reading or writing fails
   */
  public static Summary copy(
      InputStream input, String source, Format from, @Nullable JsonGenerator target, int maxDepth)
      throws IOException {
    if (maxDepth < 1 || maxDepth > MAX_MAX_DEPTH) {
      throw new IllegalArgumentException(
          "--max-depth must be 1 to " + MAX_MAX_DEPTH + ", got " + maxDepth);
    }
    RecentBytesInputStream tracked = new RecentBytesInputStream(input);
    JsonFactory factory = from == Format.JSON ? jsonFactory(maxDepth) : msgpackFactory(maxDepth);
    factory.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
    boolean jsonToJson = from == Format.JSON && target != null && !isMsgpack(target);
    long tokens = 0;
    int depth = 0;
    int deepest = 0;
    try (JsonParser parser = factory.createParser(tracked)) {
      JsonToken token = parser.nextToken();
      if (token == null) {
        throw error(tracked, from, source, null, 0, "no value: the input is empty");
      }
      while (token != null) {
        tokens++;
        if (token.isStructStart()) {
          depth++;
          if (depth > maxDepth) {
            throw error(
                tracked,
                from,
                source,
                parser.currentTokenLocation(),
                parser.currentTokenLocation().getByteOffset(),
                "nesting deeper than "
                    + maxDepth
                    + " levels (the limit; raise it with --max-depth)");
          }
          deepest = Math.max(deepest, depth);
        } else if (token.isStructEnd()) {
          depth--;
        }
        if (target == null) {
          if (token == JsonToken.VALUE_STRING || token == JsonToken.FIELD_NAME) {
            parser.getTextLength(); // decodes the text, so invalid UTF-8 is found
          }
        } else {
          write(parser, token, target, jsonToJson);
        }
        if (depth == 0) {
          JsonToken next = nextAfterRoot(parser, from);
          if (next != null) {
            JsonLocation at = parser.currentTokenLocation();
            throw error(
                tracked,
                from,
                source,
                at,
                at.getByteOffset(),
                "more than one value: another one starts here after the first ended");
          }
          break;
        }
        token = parser.nextToken();
      }
    } catch (JsonInputException e) {
      throw e;
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String reason = e.getOriginalMessage();
      long offset = at != null && at.getByteOffset() >= 0 ? at.getByteOffset() : tracked.total();
      if (from == Format.JSON) {
        Matcher unexpected = UNEXPECTED.matcher(reason);
        if (unexpected.matches()) {
          reason = "unexpected character '" + unexpected.group(1) + "'" + unexpected.group(2);
        }
        Matcher token = UNRECOGNIZED.matcher(reason);
        if (token.lookingAt()) {
          offset = tokenStart(tracked, offset, token.group(1).getBytes(StandardCharsets.UTF_8));
        }
      }
      if (reason.startsWith("Invalid UTF-8")) {
        offset =
            reason.contains("start byte")
                ? Math.max(0, offset - 1)
                : utf8SequenceStart(tracked, offset);
        int lead = tracked.byteAt(offset);
        if (lead >= 0) {
          reason = reason + String.format(" (in the sequence starting with byte 0x%02x)", lead);
        }
      }
      if (from == Format.MSGPACK && reason.toLowerCase(Locale.ROOT).contains("unexpected eof")) {
        reason = "unexpected end of input inside a MessagePack value";
      }
      throw error(tracked, from, source, at, offset, clean(reason));
    } catch (MessageInsufficientBufferException e) {
      throw error(
          tracked,
          from,
          source,
          null,
          tracked.total(),
          "unexpected end of input inside a MessagePack value");
    } catch (MessagePackException e) {
      throw error(
          tracked, from, source, null, tracked.total(), "malformed MessagePack: " + e.getMessage());
    } catch (CharConversionException e) {
      throw error(
          tracked, from, source, null, tracked.total(), clean(String.valueOf(e.getMessage())));
    }
    if (target != null) {
      target.flush();
    }
    return new Summary(tracked.total(), tokens, deepest);
  }

  /**
   * Where an unrecognized token starts: Jackson reports the spot after it, and after the character
   * that ended it.
   */
  private static long tokenStart(RecentBytesInputStream tracked, long offset, byte[] token) {
    for (long start = offset - token.length;
        start >= Math.max(0, offset - token.length - 2);
        start--) {
      boolean matches = true;
      for (int i = 0; i < token.length && matches; i++) {
        matches = tracked.byteAt(start + i) == (token[i] & 0xFF);
      }
      if (matches) {
        return start;
      }
    }
    return offset;
  }

  /**
   * The start of the UTF-8 sequence that Jackson found broken, at most 4 bytes before where it
   * stopped.
   */
  private static long utf8SequenceStart(RecentBytesInputStream tracked, long offset) {
    for (long p = offset - 1; p >= Math.max(0, offset - 4); p--) {
      int b = tracked.byteAt(p);
      if (b >= 0xC0) {
        return p;
      }
    }
    return Math.max(0, offset - 1);
  }

  /** The token after the root value; MessagePack's parser reports the end of input as an error. */
  private static @Nullable JsonToken nextAfterRoot(JsonParser parser, Format from)
      throws IOException {
    if (from == Format.JSON) {
      return parser.nextToken();
    }
    try {
      return parser.nextToken();
    } catch (IOException e) {
      if (String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("unexpected eof")) {
        return null;
      }
      throw e;
    }
  }

  private static boolean isMsgpack(JsonGenerator generator) {
    return generator.getClass().getName().startsWith("org.msgpack");
  }

  private static void write(
      JsonParser parser, JsonToken token, JsonGenerator target, boolean jsonToJson)
      throws IOException {
    if (token == JsonToken.VALUE_NUMBER_FLOAT && jsonToJson) {
      target.writeNumber(parser.getText());
    } else if (token == JsonToken.VALUE_EMBEDDED_OBJECT) {
      Object embedded = parser.getEmbeddedObject();
      if (embedded instanceof byte[] bytes) {
        target.writeBinary(bytes);
      } else if (embedded instanceof MessagePackExtensionType extension) {
        target.writeStartObject();
        target.writeNumberField("extType", extension.getType());
        target.writeBinaryField("data", extension.getData());
        target.writeEndObject();
      } else {
        target.writeString(String.valueOf(embedded));
      }
    } else {
      target.copyCurrentEvent(parser);
    }
  }

  private static String clean(String reason) {
    String text = START_MARKER.matcher(reason).replaceAll("line $1, column $2");
    int source = text.indexOf("\n at [Source");
    if (source >= 0) {
      text = text.substring(0, source);
    }
    return text.isEmpty() ? text : Character.toLowerCase(text.charAt(0)) + text.substring(1);
  }

  private static JsonInputException error(
      RecentBytesInputStream tracked,
      Format from,
      String source,
      @Nullable JsonLocation at,
      long offset,
      String reason) {
    if (from == Format.MSGPACK) {
      return new JsonInputException(source, 0, 0, offset, reason, null, 0);
    }
    RecentBytesInputStream.Line line = tracked.lineAround(offset, EXCERPT_WIDTH);
    String before =
        new String(
            line.bytes(), 0, Math.min(line.index(), line.bytes().length), StandardCharsets.UTF_8);
    String whole = new String(line.bytes(), StandardCharsets.UTF_8);
    int lineNumber = at != null && at.getLineNr() > 0 ? at.getLineNr() : 1;
    int column =
        line.truncatedStart() && at != null && at.getColumnNr() > 0
            ? at.getColumnNr()
            : before.codePointCount(0, before.length()) + 1;
    int caret = before.length();
    String shown = whole;
    int from0 = Math.max(0, caret - EXCERPT_WIDTH / 2);
    if (from0 > 0 || line.truncatedStart()) {
      shown = "…" + whole.substring(Math.min(from0, whole.length()));
      caret = caret - from0 + 1;
    }
    if (shown.length() > caret + EXCERPT_WIDTH / 2) {
      shown = shown.substring(0, caret + EXCERPT_WIDTH / 2) + "…";
    }
    shown = shown.replace('\t', ' ').replace('\r', ' ');
    StringBuilder visible = new StringBuilder();
    shown
        .codePoints()
        .forEach(
            cp -> visible.appendCodePoint(Character.isISOControl(cp) || cp == 0xFFFD ? '?' : cp));
    return new JsonInputException(
        source,
        lineNumber,
        column,
        offset,
        reason,
        visible.toString(),
        visible.toString().codePointCount(0, Math.min(caret, visible.length())));
  }
}
