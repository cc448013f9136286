package dev.stowage;

/**
 * Redis could not be reached, or did not answer within the command timeout. The message names the
 * Redis address and the command or cache involved. The connection keeps reconnecting in the
 * background, so the same call can succeed once Redis is back; nothing has to be rebuilt.
 */
public class CacheUnavailableException extends StowageException {
  private static final long serialVersionUID = 1L;

  public CacheUnavailableException(String message) {
    super(message);
  }

  public CacheUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
