package dev.stowage.board;

/**
 * A request the API rejects, with the HTTP status to answer and a message that says what is wrong.
 * Rendered as {@code {"code":status,"message":message}}.
 */
public final class BoardRequestException extends RuntimeException {
  private final int status;

  public BoardRequestException(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  /** The HTTP status, 4xx. */
  public int status() {
    return status;
  }
}
