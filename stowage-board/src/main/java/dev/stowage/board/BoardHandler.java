package dev.stowage.board;

import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.core.publisher.Mono;

/** The four endpoints, implemented once per {@link BoardMode}. */
public interface BoardHandler {
  /** {@code POST /boards}. */
  Mono<ServerResponse> create(ServerRequest request);

  /** {@code POST /boards/bulk}. */
  Mono<ServerResponse> createAll(ServerRequest request);

  /** {@code GET /boards?page=&size=}. */
  Mono<ServerResponse> page(ServerRequest request);

  /** {@code GET /boards/{id}}. */
  Mono<ServerResponse> get(ServerRequest request);
}
