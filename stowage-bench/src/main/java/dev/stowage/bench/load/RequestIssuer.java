package dev.stowage.bench.load;

import java.util.concurrent.CompletionStage;

/**
 * Sends one request for a virtual user and tells how it went. The load generator calls it again for
 * the same user only once the previous stage has completed (closed loop), and from whatever thread
 * completed that stage, so an implementation must be thread-safe and should not block.
 *
 * <p>A stage that completes exceptionally, or an exception thrown by {@link #issue}, counts as a
 * failure grouped by {@link Outcome#failure(Throwable)}.
 */
@FunctionalInterface
public interface RequestIssuer {

  /**
   * Starts one request.
   *
   * @param user the virtual user, from 0 to the number of users minus one
   * @return the outcome, once the response has been read in full
   */
  CompletionStage<Outcome> issue(int user);
}
