package dev.stowage.board.client;

import dev.stowage.StowageException;
import org.jspecify.annotations.Nullable;

/**
 * A request of {@link StowageBoardClient} failed: the server answered with an error ({@link
 * #code()} is then the protocol's error code, such as 400), the connection failed or was closed
 * ({@link #code()} is the server's closing code, such as 1001, or 0 when the server sent none), or
 * the request timed out ({@link #isTimeout()}).
 */
public class BoardClientException extends StowageException {
  private static final long serialVersionUID = 1L;
  private final int code;
  private final boolean timeout;

  BoardClientException(int code, String message, boolean timeout, @Nullable Throwable cause) {
    super(message, cause);
    this.code = code;
    this.timeout = timeout;
  }

  /** The error or closing code the server sent, or 0 when it sent none. */
  public int code() {
    return code;
  }

  /** Whether the request got no reply within its timeout (the connection stays open). */
  public boolean isTimeout() {
    return timeout;
  }

  /** Whether the server answered this request with an error and kept the connection open. */
  public boolean isErrorReply() {
    return code > 0 && code < 1000;
  }
}
