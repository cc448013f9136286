package dev.stowage.cli.inspect;

import dev.stowage.StowageException;

/**
 * A command of this package cannot go on; the message is printed as it is, and the exit code is 1.
 */
public class InspectException extends StowageException {
  private static final long serialVersionUID = 1L;

  public InspectException(String message) {
    super(message);
  }

  public InspectException(String message, Throwable cause) {
    super(message, cause);
  }
}
