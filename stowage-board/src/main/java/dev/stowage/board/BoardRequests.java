package dev.stowage.board;

import java.util.Optional;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.server.ServerRequest;
import reactor.core.publisher.Mono;

/**
 * Reading what every mode reads alike: bodies within a limit, their media types, and page
 * parameters.
 */
final class BoardRequests {
  private BoardRequests() {}

  /** The body's bytes; 413 beyond {@code maxBytes}. Empty body gives an empty array. */
  static Mono<byte[]> body(ServerRequest request, int maxBytes) {
    long declared = request.headers().contentLength().orElse(-1);
    if (declared > maxBytes) {
      return Mono.error(tooLarge(maxBytes));
    }
    return DataBufferUtils.join(request.body(BodyExtractors.toDataBuffers()), maxBytes)
        .map(
            buffer -> {
              byte[] bytes = new byte[buffer.readableByteCount()];
              buffer.read(bytes);
              DataBufferUtils.release(buffer);
              return bytes;
            })
        .defaultIfEmpty(new byte[0])
        .onErrorMap(DataBufferLimitException.class, e -> tooLarge(maxBytes));
  }

  /**
   * Whether the request's body is MessagePack (else JSON, also when no {@code Content-Type} is
   * given).
   *
   * @throws BoardRequestException 415 when {@code Content-Type} is not a media type, or neither
   *     JSON nor MessagePack
   */
  static boolean isMsgpackBody(ServerRequest request) {
    String contentType = request.headers().firstHeader(HttpHeaders.CONTENT_TYPE);
    if (contentType == null) {
      return false;
    }
    MediaType type;
    try {
      type = MediaType.parseMediaType(contentType);
    } catch (InvalidMediaTypeException e) {
      throw new BoardRequestException(
          415,
          "Content-Type '"
              + contentType
              + "' is not a media"
              + " type ("
              + e.getMessage()
              + "); send application/json or application/msgpack");
    }
    return BoardFormats.isMsgpackBody(type);
  }

  /**
   * Whether the response should be MessagePack, by the request's {@code Accept} (see {@link
   * BoardFormats#wantsMsgpack}).
   *
   * @throws BoardRequestException 400 when {@code Accept} is not a list of media types
   */
  static boolean wantsMsgpack(ServerRequest request) {
    try {
      return BoardFormats.wantsMsgpack(request.headers().accept());
    } catch (InvalidMediaTypeException e) {
      throw new BoardRequestException(
          400,
          "Accept '"
              + String.join(", ", request.headers().header(HttpHeaders.ACCEPT))
              + "' is not a list of media types ("
              + e.getMessage()
              + "); ask for application/json or application/msgpack");
    }
  }

  private static BoardRequestException tooLarge(int maxBytes) {
    return new BoardRequestException(
        413, "the request body exceeds the limit of " + maxBytes + " bytes");
  }

  /**
   * The page that {@code page} and {@code size} ask for ({@link BoardLimits#DEFAULT_PAGE_SIZE}
   * posts of page 1 when absent), checked by {@link PageRequest}.
   *
   * @throws BoardRequestException 400 for a parameter that is no whole number or out of range
   */
  static PageRequest page(ServerRequest request) {
    long page = longParam(request.queryParam("page"), "page", 1, BoardLimits.MAX_PAGE);
    long size =
        longParam(
            request.queryParam("size"),
            "size",
            BoardLimits.DEFAULT_PAGE_SIZE,
            BoardLimits.MAX_PAGE_SIZE);
    return PageRequest.of(page, size);
  }

  private static long longParam(Optional<String> raw, String name, int fallback, int max) {
    if (raw.isEmpty()) {
      return fallback;
    }
    try {
      return Long.parseLong(raw.get().trim());
    } catch (NumberFormatException e) {
      throw new BoardRequestException(
          400, name + " must be a whole number from 1 to " + max + ", got '" + raw.get() + "'");
    }
  }
}
