package dev.stowage.bench.http;

import dev.stowage.bench.load.Outcome;
import dev.stowage.bench.load.RequestIssuer;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * An HTTP/1.1 client for load: one base URL, keep-alive connections, each call one request whose
 * response body is read in full and counted, not kept. A response with a status other than 2xx is a
 * failure named {@code "HTTP <status>"}; a connection closed before the response ended fails with
 * the client's exception.
 *
 * <p>Implementations are thread-safe; calls may come from any thread, including the client's own
 * I/O threads, and never block.
 */
public interface HttpLoadClient extends AutoCloseable {

  /** {@code application/json}. */
  String JSON = "application/json";

  /** {@code application/msgpack}, the board's MessagePack media type. */
  String MSGPACK = "application/msgpack";

  /** {@code GET path}, such as {@code /boards?page=1&size=25}, with no {@code Accept} header. */
  default CompletionStage<Outcome> get(String path) {
    return get(path, null);
  }

  /** {@code GET path} with {@code Accept: accept}, or no {@code Accept} header when null. */
  CompletionStage<Outcome> get(String path, @Nullable String accept);

  /** {@code POST path} with a JSON body. The bytes moved count the request body too. */
  default CompletionStage<Outcome> postJson(String path, byte[] json) {
    return post(path, JSON, null, json);
  }

  /**
   * {@code POST path} with a body of {@code contentType}, and {@code Accept: accept} unless it is
   * null. The bytes moved count the request body too.
   */
  CompletionStage<Outcome> post(
      String path, String contentType, @Nullable String accept, byte[] body);

  /** An issuer sending {@code GET path} for every user. */
  default RequestIssuer getting(String path) {
    return user -> get(path);
  }

  /** Closes the connections and the client's threads. */
  @Override
  void close();

  /** The failure cause for a status that is not 2xx. */
  static String statusFailure(int status) {
    return "HTTP " + status;
  }
}
