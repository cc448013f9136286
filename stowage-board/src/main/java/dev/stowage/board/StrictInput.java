package dev.stowage.board;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import org.jspecify.annotations.Nullable;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessageInsufficientBufferException;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessagePackException;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.value.ValueType;

/**
 * Checks a request body's bytes before a parser reads them, for what the parsers let through: a
 * JSON body must be well-formed UTF-8 (Jackson decodes an overlong {@code c0 af} as {@code /} and
 * an encoded surrogate {@code ed a0 80} as a lone surrogate U+D800); in a MessagePack body every
 * string must be well-formed UTF-8 (msgpack-core replaces what it cannot decode) and containers may
 * nest no deeper than JSON's limit (the MessagePack parser has none, so an unknown field could nest
 * without end). Used by {@link BoardFormats} for every request body of both transports.
 */
final class StrictInput {
  private static final int CHUNK_CHARS = 4096;
  private static final int SHOWN_BYTES = 4;

  private StrictInput() {}

  /**
   * Checks that {@code body} is well-formed UTF-8.
   *
   * @throws BoardRequestException 400 naming the offset of the first malformed bytes
   */
  static void checkJson(byte[] body) {
    // JSON never holds a raw NUL byte (a NUL character is escaped), while UTF-16 and UTF-32
    // put one beside every ASCII character: they are valid UTF-8 byte by byte, so look for it.
    for (int i = 0; i < body.length; i++) {
      if (body[i] == 0) {
        throw new BoardRequestException(
            400,
            "malformed JSON: a NUL byte at offset "
                + i
                + "; JSON bodies are UTF-8 (UTF-16 and UTF-32 are not accepted)");
      }
    }
    ByteBuffer in = ByteBuffer.wrap(body);
    String problem = malformedUtf8(in);
    if (problem != null) {
      throw new BoardRequestException(
          400, "malformed JSON: the body is not valid UTF-8 " + problem);
    }
  }

  /**
   * Checks a MessagePack body's strings and nesting, without building anything.
   *
   * @param maxDepth the deepest nesting of arrays and maps allowed
   * @throws BoardRequestException 400 for a string that is not UTF-8, nesting deeper than {@code
   *     maxDepth}, or bytes that are not MessagePack
   */
  static void checkMsgpack(byte[] body, int maxDepth) {
    try (MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(body)) {
      long[] left = new long[maxDepth];
      int depth = 0;
      while (true) {
        while (depth > 0 && left[depth - 1] == 0) {
          depth--;
        }
        if (depth == 0 && !unpacker.hasNext()) {
          return;
        }
        if (depth > 0) {
          left[depth - 1]--;
        }
        MessageFormat format = unpacker.getNextFormat();
        if (format == MessageFormat.NEVER_USED) {
          throw new BoardRequestException(
              400,
              "malformed MessagePack: byte 0xc1 at offset "
                  + unpacker.getTotalReadBytes()
                  + ", which MessagePack never uses");
        }
        ValueType type = format.getValueType();
        if (type == ValueType.STRING) {
          checkString(unpacker, body);
        } else if (type == ValueType.ARRAY || type == ValueType.MAP) {
          long elements =
              type == ValueType.ARRAY
                  ? unpacker.unpackArrayHeader()
                  : 2L * unpacker.unpackMapHeader();
          if (depth == maxDepth) {
            throw new BoardRequestException(
                400,
                "malformed MessagePack: arrays and maps nest"
                    + " deeper than the limit of "
                    + maxDepth
                    + " levels (JSON's)");
          }
          left[depth++] = elements;
        } else {
          unpacker.skipValue();
        }
      }
    } catch (MessageInsufficientBufferException e) {
      throw new BoardRequestException(
          400,
          "malformed MessagePack: the body ends in the middle"
              + " of a value ("
              + body.length
              + " bytes)");
    } catch (MessagePackException | IOException e) {
      // msgpack-core's messages name its internals, or are null: say what is wrong instead.
      throw new BoardRequestException(
          400, "malformed MessagePack: the body is not a sequence of" + " MessagePack values");
    }
  }

  private static void checkString(MessageUnpacker unpacker, byte[] body) throws IOException {
    int length = unpacker.unpackRawStringHeader();
    long at = unpacker.getTotalReadBytes();
    if (length > body.length - at) {
      throw new BoardRequestException(
          400,
          "malformed MessagePack: a string of "
              + length
              + " bytes at offset "
              + at
              + " runs past the end of the body");
    }
    String problem = malformedUtf8(ByteBuffer.wrap(body, (int) at, length));
    if (problem != null) {
      throw new BoardRequestException(
          400, "malformed MessagePack: a string is not valid UTF-8 " + problem);
    }
    unpacker.readPayloadAsReference(length);
  }

  /**
   * Where the first malformed UTF-8 sequence in {@code in} starts, with the bytes from there (at
   * most four, within {@code in}'s limit), or null when there is none.
   */
  private static @Nullable String malformedUtf8(ByteBuffer in) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    CharBuffer out = CharBuffer.allocate(CHUNK_CHARS);
    while (true) {
      CoderResult result = decoder.decode(in, out, true);
      if (result.isOverflow()) {
        out.clear();
      } else if (result.isError()) {
        int at = in.position();
        byte[] shown = new byte[Math.min(SHOWN_BYTES, in.limit() - at)];
        in.get(at, shown);
        return "at offset "
            + at
            + " (bytes from there: "
            + HexFormat.ofDelimiter(" ").formatHex(shown)
            + ")";
      } else {
        return null;
      }
    }
  }
}
