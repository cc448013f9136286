package dev.stowage.bench.load;

import java.util.Objects;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * What one request did: succeeded or failed, and how many bytes it moved (request and response
 * bodies, as the issuer counts them).
 *
 * @param success whether the request counts as served
 * @param bytes bytes moved; not negative
 * @param failure a short, stable cause such as {@code "HTTP 500"} or {@code "connection closed"},
 *     used to group errors; {@code null} exactly when {@code success}
 */
public record Outcome(boolean success, long bytes, @Nullable String failure) {

  /**
   * Checks the invariants.
   *
   * @throws IllegalArgumentException if {@code bytes} is negative, or {@code failure} is given for
   *     a success or missing for a failure
   */
  public Outcome {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must not be negative, not " + bytes);
    }
    if (success != (failure == null)) {
      throw new IllegalArgumentException(
          success
              ? "a successful outcome has no failure cause, not '" + failure + "'"
              : "a failed outcome needs a cause");
    }
  }

  /** A served request that moved {@code bytes}. */
  public static Outcome success(long bytes) {
    return new Outcome(true, bytes, null);
  }

  /** A failed request, grouped under {@code cause}. */
  public static Outcome failure(String cause) {
    return new Outcome(false, 0, Objects.requireNonNull(cause, "cause"));
  }

  /**
   * A failed request for an exception: its simple class name, then its message when it has one, cut
   * at 120 characters so that causes group well.
   */
  public static Outcome failure(Throwable error) {
    Objects.requireNonNull(error, "error");
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String message = cause.getMessage();
    String text =
        cause.getClass().getSimpleName()
            + (message == null || message.isBlank() ? "" : ": " + message.strip());
    return failure(text.length() > 120 ? text.substring(0, 120) : text);
  }
}
