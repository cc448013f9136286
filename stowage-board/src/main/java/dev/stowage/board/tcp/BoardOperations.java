package dev.stowage.board.tcp;

import dev.stowage.board.BoardFormats;
import dev.stowage.board.BoardRequestException;
import dev.stowage.board.PageRequest;
import dev.stowage.board.StowageBoardService;
import dev.stowage.board.protocol.BoardProtocol;
import dev.stowage.board.protocol.NewBoard;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

/**
 * The protocol's operations over the same service layer as the HTTP API: parses an enveloped
 * request body, calls {@link StowageBoardService}, and builds the reply frame from the JSON
 * fragments it returns (spliced for JSON, transcoded token by token for MessagePack). Parsing runs
 * on the caller's thread, the reply is built on the thread that completes the service's call.
 * Thread-safe.
 */
final class BoardOperations {
  private static final int ENVELOPE_HEADER_BYTES = 4;
  private static final int MAX_MESSAGE_CHARS = 1000;

  private final StowageBoardService service;
  private final BoardFormats formats;

  BoardOperations(StowageBoardService service, BoardFormats formats) {
    this.service = service;
    this.formats = formats;
  }

  /** Whether {@code type} is an operation this server knows. */
  static boolean isOperation(int type) {
    return type >= BoardProtocol.OP_CREATE && type <= BoardProtocol.OP_PING;
  }

  /**
   * The posts a request asks for, as {@link TcpOptions#maxPostsInFlight()} counts them: a page
   * request's size; 0 for the other operations and for a page request that does not parse (it is
   * answered with an ERROR frame at once). Parses on the caller's thread.
   */
  int postsAsked(int type, byte[] body) {
    if (type != BoardProtocol.OP_PAGE) {
      return 0;
    }
    try {
      int codec = codecOf(body);
      return readPage(
              Arrays.copyOfRange(body, ENVELOPE_HEADER_BYTES, body.length),
              codec == BoardProtocol.CODEC_MSGPACK)
          .size();
    } catch (BoardRequestException e) {
      return 0;
    }
  }

  /**
   * Runs one request. The returned Mono emits the reply frame (OK or ERROR), never fails, and emits
   * a buffer the subscriber must write or release.
   */
  Mono<ByteBuf> run(int type, int requestId, byte[] body, ByteBufAllocator alloc) {
    Mono<ByteBuf> reply;
    try {
      reply = dispatch(type, requestId, body, alloc);
    } catch (RuntimeException e) {
      reply = Mono.error(e);
    }
    return reply.onErrorResume(e -> Mono.just(errorFrame(alloc, requestId, e)));
  }

  private Mono<ByteBuf> dispatch(int type, int id, byte[] body, ByteBufAllocator alloc) {
    if (type == BoardProtocol.OP_PING) {
      return Mono.just(header(alloc.buffer(9), BoardProtocol.REPLY_OK, id).setInt(0, 5));
    }
    int codec = codecOf(body);
    boolean msgpack = codec == BoardProtocol.CODEC_MSGPACK;
    byte[] payload = Arrays.copyOfRange(body, ENVELOPE_HEADER_BYTES, body.length);
    switch (type) {
      case BoardProtocol.OP_CREATE -> {
        NewBoard input = formats.parseOne(payload, msgpack);
        return service
            .create(List.of(input))
            .map(
                boards -> okFrame(alloc, id, codec, List.of(formats.toJson(boards.get(0))), false));
      }
      case BoardProtocol.OP_CREATE_ALL -> {
        List<NewBoard> inputs = formats.parseMany(payload, msgpack);
        return service
            .create(inputs)
            .map(boards -> okFrame(alloc, id, codec, formats.toJson(boards), true));
      }
      case BoardProtocol.OP_PAGE -> {
        return service
            .page(readPage(payload, msgpack))
            .map(
                found ->
                    okFrame(
                        alloc,
                        id,
                        codec,
                        codec == BoardProtocol.CODEC_JSON
                            ? found.dataJson()
                            : found.dataMsgpack(formats)));
      }
      case BoardProtocol.OP_GET -> {
        String postId = readString(payload, msgpack, "a post id");
        return service
            .byId(postId)
            .switchIfEmpty(
                Mono.error(
                    () -> new BoardRequestException(404, "no board with id '" + postId + "'")))
            .map(fragment -> okFrame(alloc, id, codec, List.of(fragment), false));
      }
      default -> throw new IllegalArgumentException("not an operation: " + type);
    }
  }

  /** Checks the 4-byte envelope header a request body must start with and returns its codec. */
  private static int codecOf(byte[] body) {
    if (body.length > 0 && (body[0] & 0xFF) != 0xC1) {
      throw new BoardRequestException(
          400,
          String.format(
              "the body starts with %02x, not the" + " envelope's magic byte c1", body[0] & 0xFF));
    }
    if (body.length < ENVELOPE_HEADER_BYTES) {
      throw new BoardRequestException(
          400,
          "the body has "
              + body.length
              + " bytes; it must start with a 4-byte Stowage envelope header (c1 10 02 00 for"
              + " MessagePack, c1 10 01 00 for JSON)");
    }
    if ((body[1] & 0xFF) != 0x10) {
      throw new BoardRequestException(
          400,
          String.format(
              "envelope byte 1 is %02x; the protocol" + " takes version 1 without flags (10)",
              body[1] & 0xFF));
    }
    int codec = body[2] & 0xFF;
    if (codec != BoardProtocol.CODEC_JSON && codec != BoardProtocol.CODEC_MSGPACK) {
      throw new BoardRequestException(
          400, "envelope codec id " + codec + " is not accepted; send JSON (1) or MessagePack (2)");
    }
    if (body[3] != 0) {
      throw new BoardRequestException(
          400,
          "envelope compression id "
              + (body[3] & 0xFF)
              + " is not accepted; request bodies are uncompressed (0)");
    }
    return codec;
  }

  private PageRequest readPage(byte[] payload, boolean msgpack) {
    long[] page;
    try {
      page = formats.readValue(payload, msgpack, long[].class);
    } catch (BoardRequestException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new BoardRequestException(
          400,
          "a page request's body is an array [page, size] of two"
              + " whole numbers: "
              + firstLine(e.getMessage()));
    }
    if (page == null || page.length != 2) {
      throw new BoardRequestException(
          400,
          "a page request's body is an array [page, size]; got "
              + (page == null ? "null" : page.length + " elements"));
    }
    return PageRequest.of(page[0], page[1]);
  }

  private String readString(byte[] payload, boolean msgpack, String what) {
    String value;
    try {
      value = formats.readValue(payload, msgpack, String.class);
    } catch (BoardRequestException e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw new BoardRequestException(
          400, "the body must be " + what + " (a string): " + firstLine(e.getMessage()));
    }
    if (value == null) {
      throw new BoardRequestException(400, "the body must be " + what + ", not null");
    }
    return value;
  }

  /** An OK frame whose envelope holds {@code body}, already in the request's codec. */
  private static ByteBuf okFrame(ByteBufAllocator alloc, int id, int codec, byte[] body) {
    ByteBuf frame = header(alloc.buffer(13 + body.length), BoardProtocol.REPLY_OK, id);
    frame.writeByte(0xC1).writeByte(0x10).writeByte(codec).writeByte(0).writeBytes(body);
    return frame.setInt(0, frame.readableBytes() - BoardProtocol.LENGTH_BYTES);
  }

  /** An OK frame whose envelope holds the fragments as one array, or the only fragment. */
  private ByteBuf okFrame(
      ByteBufAllocator alloc, int id, int codec, List<byte[]> fragments, boolean asArray) {
    int estimate = 16 + fragments.size();
    for (byte[] fragment : fragments) {
      estimate += fragment.length;
    }
    ByteBuf frame = header(alloc.buffer(estimate), BoardProtocol.REPLY_OK, id);
    frame.writeByte(0xC1).writeByte(0x10).writeByte(codec).writeByte(0);
    try {
      if (codec == BoardProtocol.CODEC_JSON) {
        spliceJson(fragments, asArray, frame);
      } else {
        formats.transcodeData(fragments, asArray, new ByteBufOutputStream(frame));
      }
    } catch (RuntimeException e) {
      frame.release();
      throw e;
    }
    return frame.setInt(0, frame.readableBytes() - BoardProtocol.LENGTH_BYTES);
  }

  private static void spliceJson(List<byte[]> fragments, boolean asArray, ByteBuf out) {
    if (asArray) {
      out.writeByte('[');
    }
    for (int i = 0; i < fragments.size(); i++) {
      if (i > 0) {
        out.writeByte(',');
      }
      out.writeBytes(fragments.get(i));
    }
    if (asArray) {
      out.writeByte(']');
    }
  }

  private static ByteBuf header(ByteBuf frame, int type, int id) {
    return frame.writeInt(0).writeByte(type).writeInt(id);
  }

  /** The ERROR frame for a failed request. */
  private static ByteBuf errorFrame(ByteBufAllocator alloc, int id, Throwable failure) {
    if (failure instanceof BoardRequestException e) {
      return codeFrame(
          alloc, BoardProtocol.REPLY_ERROR, id, e.status(), String.valueOf(e.getMessage()));
    }
    LoggerFactory.getLogger(BoardOperations.class).error("request {} failed", id, failure);
    return codeFrame(
        alloc,
        BoardProtocol.REPLY_ERROR,
        id,
        BoardProtocol.ERROR_INTERNAL,
        "internal error: " + failure.getClass().getSimpleName());
  }

  /** An ERROR or CLOSING frame: u16 code and a UTF-8 message. */
  static ByteBuf codeFrame(ByteBufAllocator alloc, int type, int id, int code, String message) {
    String text =
        message.length() > MAX_MESSAGE_CHARS
            ? message.substring(0, MAX_MESSAGE_CHARS) + "…"
            : message;
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    ByteBuf frame = alloc.buffer(11 + utf8.length);
    frame
        .writeInt(BoardProtocol.FRAME_HEADER_BYTES + 2 + utf8.length)
        .writeByte(type)
        .writeInt(id)
        .writeShort(code)
        .writeBytes(utf8);
    return frame;
  }

  private static String firstLine(@Nullable String message) {
    if (message == null) {
      return "unreadable";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
