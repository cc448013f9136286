package dev.stowage.bench.http;

import dev.stowage.bench.load.Outcome;
import dev.stowage.board.client.SocketByteCounter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * {@link HttpLoadClient} on Reactor Netty: a fixed pool of keep-alive connections (one per virtual
 * user, so no request waits for a connection) on event-loop threads of its own. Response buffers
 * are counted as they arrive and released, never copied.
 */
public final class ReactorHttpLoadClient implements HttpLoadClient {
  private static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(60);

  private final ConnectionProvider connections;
  private final LoopResources loops;
  private final HttpClient client;
  private final SocketByteCounter wire = new SocketByteCounter();

  /**
   * A client for {@code baseUrl} with at most {@code maxConnections} connections and {@code
   * ioThreads} event-loop threads.
   *
   * @throws IllegalArgumentException if {@code maxConnections} or {@code ioThreads} is below 1
   */
  public ReactorHttpLoadClient(String baseUrl, int maxConnections, int ioThreads) {
    Objects.requireNonNull(baseUrl, "baseUrl");
    if (maxConnections < 1 || ioThreads < 1) {
      throw new IllegalArgumentException(
          "connections and I/O threads must be at least 1, not "
              + maxConnections
              + " and "
              + ioThreads);
    }
    this.connections =
        ConnectionProvider.builder("bench-http")
            .maxConnections(maxConnections)
            .pendingAcquireMaxCount(-1)
            .pendingAcquireTimeout(RESPONSE_TIMEOUT)
            .build();
    this.loops = LoopResources.create("bench-http", ioThreads, true);
    this.client =
        HttpClient.create(connections)
            .runOn(loops)
            .baseUrl(baseUrl)
            .keepAlive(true)
            // Every attempt is a request the server saw: a retried one would be counted once but
            // served twice.
            .disableRetry(true)
            .responseTimeout(RESPONSE_TIMEOUT)
            .doOnChannelInit((observer, channel, address) -> channel.pipeline().addFirst(wire));
  }

  @Override
  public CompletionStage<Outcome> get(String path, @Nullable String accept) {
    return exchange(accepting(client, accept).get().uri(path), 0);
  }

  @Override
  public CompletionStage<Outcome> post(
      String path, String contentType, @Nullable String accept, byte[] body) {
    HttpClient.ResponseReceiver<?> request =
        accepting(client, accept)
            .headers(h -> h.set(HttpHeaderNames.CONTENT_TYPE, contentType))
            .post()
            .uri(path)
            .send(Mono.fromSupplier(() -> (ByteBuf) Unpooled.wrappedBuffer(body)));
    return exchange(request, body.length);
  }

  private static HttpClient accepting(HttpClient client, @Nullable String accept) {
    return accept == null ? client : client.headers(h -> h.set(HttpHeaderNames.ACCEPT, accept));
  }

  /** Bytes written to the sockets so far: request lines, headers and bodies. */
  public long wireBytesSent() {
    return wire.sent();
  }

  /** Bytes read from the sockets so far: status lines, headers and bodies. */
  public long wireBytesReceived() {
    return wire.received();
  }

  private static CompletionStage<Outcome> exchange(
      HttpClient.ResponseReceiver<?> request, long sent) {
    return request
        .response(
            (response, body) ->
                body.map(ByteBuf::readableBytes)
                    .reduce(0L, (total, size) -> total + size)
                    .map(
                        received -> {
                          int status = response.status().code();
                          return status / 100 == 2
                              ? Outcome.success(sent + received)
                              : Outcome.failure(HttpLoadClient.statusFailure(status));
                        }))
        .single()
        .onErrorResume(error -> Mono.just(Outcome.failure(error)))
        .toFuture();
  }

  @Override
  public void close() {
    connections.disposeLater().block(Duration.ofSeconds(10));
    loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10));
  }
}
