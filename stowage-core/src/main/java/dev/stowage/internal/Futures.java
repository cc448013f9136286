package dev.stowage.internal;

import java.util.concurrent.CompletionException;

/** Failures of asynchronous operations, as the parts of Stowage pass them on. */
public final class Futures {
  private Futures() {}

  /** The failure itself, out of the {@link CompletionException}s around it. */
  public static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** {@code failure}, thrown from a stage so that the stage fails with it. */
  public static CompletionException asCompletion(Throwable failure) {
    return failure instanceof CompletionException completion
        ? completion
        : new CompletionException(failure);
  }
}
