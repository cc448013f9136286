package dev.stowage;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The root of every exception Stowage throws. It is unchecked. Subclasses name the cases a caller
 * can act on. As an exception travels up, layers add context (a key, a codec) with {@link
 * #addContext(String)}; the message lists it after the cause.
 */
public class StowageException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final List<String> context = new ArrayList<>(2);

  public StowageException(String message) {
    super(message);
  }

  public StowageException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }

  /** Adds a line of context, such as {@code "key users:42"}, and returns this exception. */
  public StowageException addContext(String line) {
    synchronized (context) {
      context.add(line);
    }
    return this;
  }

  /** The context lines added so far, innermost first. */
  public List<String> context() {
    synchronized (context) {
      return List.copyOf(context);
    }
  }

  @Override
  public @Nullable String getMessage() {
    String message = super.getMessage();
    synchronized (context) {
      if (context.isEmpty()) {
        return message;
      }
      return message + " (" + String.join(", ", context) + ")";
    }
  }
}
