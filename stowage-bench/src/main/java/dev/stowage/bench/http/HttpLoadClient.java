package dev.stowage.bench.http;

import dev.stowage.bench.load.Outcome;
import dev.stowage.bench.load.RequestIssuer;
import java.util.concurrent.CompletionStage;

/**
 * An HTTP/1.1 client for load: one base URL, keep-alive connections, each call one request whose
 * response body is read in full and counted, not kept. A response with a status other than 2xx is
 * a failure named {@code "HTTP <status>"}; a connection closed before the response ended fails
 * with the client's exception.
 *
 * <p>Implementations are thread-safe; calls may come from any thread, including the client's own
 * I/O threads, and never block.
 */
public interface HttpLoadClient extends AutoCloseable {

  /** {@code GET path}, such as {@code /boards?page=1&size=25}. */
  CompletionStage<Outcome> get(String path);

  /** {@code POST path} with a JSON body. The bytes moved count the request body too. */
  CompletionStage<Outcome> postJson(String path, byte[] json);

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
