package dev.stowage.board;

import dev.stowage.board.events.EventOutbox;
import dev.stowage.board.events.ScoreGate;
import dev.stowage.board.protocol.Board;
import java.util.List;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The database of record: what the service needs of it, whichever database it is. Two stores
 * implement it: {@link BoardRepository} on R2DBC (H2, PostgreSQL) and {@link MongoBoardStore} on
 * MongoDB. Both key a post by its score and keep its id unique, and both reject an insert that
 * takes a stored score or id with a {@link org.springframework.dao.DataIntegrityViolationException}
 * (or R2DBC's own {@code R2dbcDataIntegrityViolationException}), which the service takes as "the
 * score counter is behind the database".
 *
 * <p>With events, a store is also the {@link EventOutbox}: every insert writes its posts' pending
 * events atomically with them, and an insert the database rejects writes neither. Every write goes
 * through {@link #writing} so that the {@link ScoreGate} keeps the events in score order.
 *
 * <p>Implementations are thread-safe.
 */
public interface BoardStore extends EventOutbox {

  /** Creates what the store needs (tables or indexes) when it does not exist; idempotent. */
  Mono<Void> createSchema();

  /** Whether inserts write events. */
  boolean events();

  /** The gate every write goes through when there are events. */
  ScoreGate gate();

  /**
   * Runs a write that reserves scores and then inserts through the {@link ScoreGate} that keeps
   * events in score order (see there); without events, runs it as it is.
   */
  default <T> Mono<T> writing(Function<ScoreGate.@Nullable Ticket, Mono<T>> write) {
    return events() ? gate().writing(write) : write.apply(null);
  }

  /**
   * Inserts one post. Fails with a {@code DataIntegrityViolationException} on a taken score or id.
   */
  default Mono<Void> insert(Board board) {
    return insertAll(List.of(board));
  }

  /**
   * Inserts posts, all of them or (when one is rejected) none, with their pending events when the
   * store has events. Fails with a {@code DataIntegrityViolationException} on a taken score or id.
   */
  Mono<Void> insertAll(List<Board> boards);

  /** A page, newest (highest score) first. */
  Flux<Board> page(long offset, int limit);

  /** Every post, oldest (lowest score) first; used to refill the cache. */
  Flux<Board> all();

  /** The post with {@code id}, or empty. */
  Mono<Board> findById(String id);

  /** The highest score stored, or 0 when there is none. */
  Mono<Long> maxScore();

  /** How many posts are stored. */
  Mono<Long> count();
}
