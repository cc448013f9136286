package dev.stowage;

/**
 * A stored value's envelope cannot be read: it is truncated or corrupt, it names a codec or a
 * compression this reader does not know, its payload does not decompress, or it would decompress
 * past the configured limit.
 */
public class EnvelopeException extends StowageException {
  private static final long serialVersionUID = 1L;

  public EnvelopeException(String message) {
    super(message);
  }

  public EnvelopeException(String message, Throwable cause) {
    super(message, cause);
  }
}
