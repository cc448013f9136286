package dev.stowage;

import org.jspecify.annotations.Nullable;

/**
 * A codec could not encode or decode a value: the bytes are not valid for the format, or they name
 * a class the codec is not allowed to create.
 */
public class CodecException extends StowageException {
  private static final long serialVersionUID = 1L;

  public CodecException(String message) {
    super(message);
  }

  public CodecException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
