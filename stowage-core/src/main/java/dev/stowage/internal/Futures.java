package dev.stowage.internal;

import java.lang.System.Logger.Level;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/** Failures of asynchronous operations, as the parts of Stowage pass them on. */
public final class Futures {
  private static final System.Logger LOG = System.getLogger("dev.stowage");

  private Futures() {}

  /**
   * Runs {@code action} when {@code stage} completes, with its value or failure, as {@link
   * CompletionStage#whenComplete} does. The action handles the stage's outcome; an exception the
   * action itself throws, which {@code whenComplete} would keep in a stage no one reads, is logged
   * instead.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the stage whenComplete returns holds only the
  // outcome the action handles, or the action's own exception, which is logged here
  public static <T> void whenDone(
      CompletionStage<T> stage, BiConsumer<? super T, ? super Throwable> action) {
    stage.whenComplete(
        (value, failure) -> {
          try {
            action.accept(value, failure);
          } catch (RuntimeException | Error e) {
            LOG.log(Level.WARNING, "a callback on a completed operation failed", e);
          }
        });
  }

  /**
   * {@code stage} handled by {@code then}, which returns the next stage, and that stage flattened:
   * {@code stage.handle(then).thenCompose(next -> next)}.
   */
  @SuppressWarnings("FutureReturnValueIgnored") // the nested future handle returns is flattened
  // at once by thenCompose; nothing is ignored
  public static <T, U> CompletableFuture<U> handleCompose(
      CompletableFuture<T> stage,
      BiFunction<? super T, Throwable, ? extends CompletionStage<U>> then) {
    return stage.handle(then).thenCompose(Function.identity());
  }

  /** As {@link #handleCompose}, with {@code then} run on {@code executor}. */
  @SuppressWarnings("FutureReturnValueIgnored") // as in handleCompose
  public static <T, U> CompletableFuture<U> handleComposeAsync(
      CompletableFuture<T> stage,
      BiFunction<? super T, Throwable, ? extends CompletionStage<U>> then,
      Executor executor) {
    return stage.handleAsync(then, executor).thenCompose(Function.identity());
  }

  /** Closes what {@code closing} closes without waiting; a failure to close is logged. */
  public static void closingInBackground(CompletionStage<?> closing, String what) {
    whenDone(
        closing,
        (done, failure) -> {
          if (failure != null) {
            LOG.log(Level.DEBUG, "closing " + what + " failed", failure);
          }
        });
  }

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
