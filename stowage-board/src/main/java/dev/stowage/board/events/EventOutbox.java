package dev.stowage.board.events;

import dev.stowage.board.protocol.Board;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The store's side of the outbox: the events written with their posts and not yet sent, which
 * {@link BoardEvents} reads, publishes and then marks sent. A store keeps a pending event wherever
 * it can write it atomically with its post: the relational stores in a table written in the same
 * transaction as the post ({@code board_outbox}); a document store can keep it inside the post's
 * own document, since a single-document write is atomic. A post's event is the post itself (its id,
 * score and fields, which never change), so the outbox needs to remember only which posts are
 * pending.
 *
 * <p>Implementations are thread-safe.
 */
public interface EventOutbox {

  /**
   * The posts whose events are pending with a score below {@code below}, lowest score first, at
   * most {@code limit} of them.
   */
  Flux<Board> pending(long below, int limit);

  /** Marks the events of {@code posts} sent, so that {@link #pending} no longer returns them. */
  Mono<Void> sent(List<Board> posts);

  /** How many events are pending, and when the oldest of them was written. */
  Mono<Backlog> backlog();

  /**
   * What the outbox holds.
   *
   * @param pending events not yet sent
   * @param oldestCreatedMillis the creation time (epoch milliseconds) of the oldest pending post,
   *     or 0 when none is pending
   */
  record Backlog(long pending, long oldestCreatedMillis) {}
}
