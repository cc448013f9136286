package dev.stowage.board;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.Order;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;
import reactor.netty.channel.AbortedException;

/**
 * Answers every failure with {@code {"code":status,"message":…}}: a {@link BoardRequestException}'s
 * own status and message, Spring's statuses (unknown path, wrong method) with their reason, 400 for
 * a malformed media type, and 500 for anything else (logged).
 */
@Order(-2)
final class BoardErrorHandler implements WebExceptionHandler {
  private static final Logger log = LoggerFactory.getLogger(BoardErrorHandler.class);
  private final BoardFormats formats;

  BoardErrorHandler(BoardFormats formats) {
    this.formats = formats;
  }

  @Override
  public Mono<Void> handle(ServerWebExchange exchange, Throwable failure) {
    if (failure instanceof AbortedException) {
      // The client went away before the answer was written: nobody to answer.
      log.debug(
          "client closed the connection during {} {}",
          exchange.getRequest().getMethod(),
          exchange.getRequest().getPath());
      return Mono.empty();
    }
    int status;
    String message;
    if (failure instanceof BoardRequestException e) {
      status = e.status();
      message = String.valueOf(e.getMessage());
    } else if (failure instanceof ResponseStatusException e) {
      status = e.getStatusCode().value();
      message = e.getReason() != null ? e.getReason() : e.getStatusCode().toString();
      if (status == 404) {
        message =
            "no such endpoint: "
                + exchange.getRequest().getMethod()
                + " "
                + exchange.getRequest().getPath();
      } else if (status == 405) {
        message =
            exchange.getRequest().getMethod()
                + " is not allowed on "
                + exchange.getRequest().getPath();
      }
    } else if (failure instanceof InvalidMediaTypeException e) {
      // A media type header read by something other than BoardRequests, which names the header.
      status = 400;
      message = "a media type in the request's headers is malformed: " + e.getMessage();
    } else {
      status = 500;
      message = "internal error: " + failure.getClass().getSimpleName();
      log.error(
          "request {} {} failed",
          exchange.getRequest().getMethod(),
          exchange.getRequest().getPath(),
          failure);
    }
    if (exchange.getResponse().isCommitted()) {
      return Mono.error(failure);
    }
    byte[] body = formats.error(status, message);
    exchange.getResponse().setStatusCode(HttpStatusCode.valueOf(status));
    exchange.getResponse().getHeaders().setContentType(MediaType.APPLICATION_JSON);
    exchange.getResponse().getHeaders().setContentLength(body.length);
    DataBuffer buffer = exchange.getResponse().bufferFactory().wrap(body);
    return exchange.getResponse().writeWith(Mono.just(buffer));
  }
}
