package dev.stowage.board;

import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/** Stowage mode's endpoints: responses assembled from JSON fragments, never from objects. */
final class StowageBoardHandler implements BoardHandler {
  private final StowageBoardService service;
  private final BoardFormats formats;

  StowageBoardHandler(StowageBoardService service, BoardFormats formats) {
    this.service = service;
    this.formats = formats;
  }

  @Override
  public Mono<ServerResponse> create(ServerRequest request) {
    return Mono.defer(
        () -> {
          boolean msgpackBody = BoardRequests.isMsgpackBody(request);
          return BoardRequests.body(request, BoardLimits.MAX_POST_BYTES)
              .map(body -> formats.parseOne(body, msgpackBody))
              .flatMap(input -> service.create(List.of(input)))
              .flatMap(boards -> one(request, formats.toJson(boards.get(0))));
        });
  }

  @Override
  public Mono<ServerResponse> createAll(ServerRequest request) {
    return Mono.defer(
        () -> {
          boolean msgpackBody = BoardRequests.isMsgpackBody(request);
          return BoardRequests.body(request, BoardLimits.MAX_BULK_BYTES)
              .map(body -> formats.parseMany(body, msgpackBody))
              .flatMap(service::create)
              .flatMap(boards -> page(request, new Page(formats.toJson(boards))));
        });
  }

  @Override
  public Mono<ServerResponse> page(ServerRequest request) {
    return Mono.defer(
        () -> {
          return service.page(BoardRequests.page(request)).flatMap(found -> page(request, found));
        });
  }

  @Override
  public Mono<ServerResponse> get(ServerRequest request) {
    String id = request.pathVariable("id");
    return service
        .byId(id)
        .switchIfEmpty(
            Mono.error(() -> new BoardRequestException(404, "no board with id '" + id + "'")))
        .flatMap(fragment -> one(request, fragment));
  }

  private Mono<ServerResponse> page(ServerRequest request, Page page) {
    if (BoardRequests.wantsMsgpack(request)) {
      return bytes(BoardFormats.MSGPACK, page.httpMsgpack(formats));
    }
    return bytes(MediaType.APPLICATION_JSON, page.httpJson());
  }

  private Mono<ServerResponse> one(ServerRequest request, byte[] fragment) {
    if (BoardRequests.wantsMsgpack(request)) {
      return bytes(BoardFormats.MSGPACK, formats.transcodeOne(fragment));
    }
    return bytes(MediaType.APPLICATION_JSON, BoardFormats.spliceOne(fragment));
  }

  /**
   * A 200 with {@code body} as it is: written as one wrapped buffer, without the lookup of a
   * message writer and encoder that {@code bodyValue} makes for every response.
   */
  static Mono<ServerResponse> bytes(MediaType type, byte[] body) {
    return ServerResponse.ok()
        .contentType(type)
        .contentLength(body.length)
        .body(
            (message, context) ->
                message.writeWith(Mono.fromSupplier(() -> message.bufferFactory().wrap(body))));
  }
}
