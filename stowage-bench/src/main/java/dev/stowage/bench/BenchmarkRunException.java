package dev.stowage.bench;

import org.jspecify.annotations.Nullable;

/**
 * A benchmark could not run to the end: a configuration failed, or the harness could not start. The
 * message says which, and includes the last lines of the harness's output when there are any.
 */
public class BenchmarkRunException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** An exception with a message and the failure that caused it, which may be {@code null}. */
  public BenchmarkRunException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
