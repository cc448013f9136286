package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.events.EventOutbox;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.testkit.MongoTestServer;
import dev.stowage.testkit.PostgresDatabase;
import dev.stowage.testkit.WithMongo;
import dev.stowage.testkit.WithPostgres;
import io.r2dbc.spi.ConnectionFactories;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.R2dbcDataIntegrityViolationException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.r2dbc.core.DatabaseClient;

/**
 * Every {@link BoardStore} keeps one contract: on PostgreSQL, on the default H2, and on MongoDB
 * (the server here is mongo-java-server, a wire-compatible test server, not MongoDB). Each test
 * gets a store of its own: a fresh H2, a collection emptied first on the class's PostgreSQL
 * database and MongoDB server.
 */
@WithPostgres
@WithMongo
class BoardRepositoryIntegrationTests {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static BoardStore store(
      String kind, boolean events, PostgresDatabase db, MongoTestServer mongo) {
    BoardStore store;
    if (kind.equals("mongodb")) {
      store =
          MongoBoardStore.connect(
              mongo
                  .url()
                  .replace(
                      mongo.database(),
                      mongo.database() + "_" + UUID.randomUUID().toString().substring(0, 8)),
              events);
    } else {
      String url =
          kind.equals("postgresql")
              ? db.r2dbcUrl()
              : "r2dbc:h2:mem:///repo-" + UUID.randomUUID() + "?options=DB_CLOSE_DELAY=-1";
      ConnectionFactory factory = ConnectionFactories.get(url);
      if (kind.equals("postgresql")) {
        DatabaseClient client = DatabaseClient.create(factory);
        client.sql("DROP TABLE IF EXISTS board").then().block(WAIT);
        client.sql("DROP TABLE IF EXISTS board_outbox").then().block(WAIT);
      }
      store =
          events
              ? BoardRepository.withOutbox(factory)
              : new BoardRepository(DatabaseClient.create(factory));
    }
    store.createSchema().block(WAIT);
    store.createSchema().block(WAIT); // idempotent
    return store;
  }

  private static Board board(long score) {
    NewBoard input = new ObjectMapper().convertValue(BoardPosts.post((int) score), NewBoard.class);
    return Board.create(input, score, 1_701_134_160_000L + score);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"postgresql", "h2", "mongodb"})
  void storesReadsPagesAndKeepsABulkAllOrNothing(
      String kind, PostgresDatabase db, MongoTestServer mongo) {
    BoardStore store = store(kind, false, db, mongo);
    assertThat(store.maxScore().block(WAIT)).isZero();
    long base = 1;
    List<Board> boards = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      boards.add(board(base + i));
    }
    store.insertAll(boards).block(WAIT);
    assertThat(store.findById(boards.get(7).id()).block(WAIT)).isEqualTo(boards.get(7));
    assertThat(store.findById("0123456789abcdef01234567").block(WAIT)).isNull();
    assertThat(store.page(0, 5).collectList().block(WAIT))
        .containsExactly(
            boards.get(29), boards.get(28), boards.get(27), boards.get(26), boards.get(25));
    assertThat(store.page(28, 5).collectList().block(WAIT))
        .containsExactly(boards.get(1), boards.get(0));
    assertThat(store.all().collectList().block(WAIT)).containsExactlyElementsOf(boards);
    assertThat(store.maxScore().block(WAIT)).isEqualTo(base + 29);
    assertThat(store.count().block(WAIT)).isEqualTo(30);

    // The last row's score is taken: the insert fails and none of the new rows is stored.
    List<Board> clash = List.of(board(base + 100), board(base + 101), board(base + 3));
    assertRejected(() -> store.insertAll(clash).block(WAIT));
    assertThat(store.count().block(WAIT)).isEqualTo(30);
    assertThat(store.findById(board(base + 100).id()).block(WAIT)).isNull();

    // A taken id with a free score: rejected the same way, alone and as the first of a bulk.
    Board taken = boards.get(5);
    Board sameId =
        new Board(
            taken.id(),
            base + 200,
            1,
            "t",
            "b",
            "a",
            "c",
            "j",
            "cr",
            "s",
            "co",
            "p",
            taken.modifiedAt(),
            taken.createdAt(),
            taken.createdTs());
    assertRejected(() -> store.insert(sameId).block(WAIT));
    assertRejected(() -> store.insertAll(List.of(sameId, board(base + 201))).block(WAIT));
    assertThat(store.count().block(WAIT)).isEqualTo(30);
    assertThat(store.findById(taken.id()).block(WAIT)).isEqualTo(taken);
    closeIfMongo(store);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"postgresql", "h2", "mongodb"})
  void keepsEachPostsEventPendingUntilItIsSentAndNoneForARejectedInsert(
      String kind, PostgresDatabase db, MongoTestServer mongo) {
    BoardStore store = store(kind, true, db, mongo);
    assertThat(store.events()).isTrue();
    assertThat(store.backlog().block(WAIT)).isEqualTo(new EventOutbox.Backlog(0, 0));
    List<Board> boards = List.of(board(3), board(1), board(2), board(4));
    store.insertAll(boards.subList(0, 2)).block(WAIT);
    store.insertAll(boards.subList(2, 4)).block(WAIT);
    assertRejected(() -> store.insertAll(List.of(board(5), board(4))).block(WAIT));

    assertThat(store.pending(Long.MAX_VALUE, 10).collectList().block(WAIT))
        .containsExactly(board(1), board(2), board(3), board(4));
    assertThat(store.pending(3, 10).collectList().block(WAIT)).containsExactly(board(1), board(2));
    assertThat(store.pending(Long.MAX_VALUE, 1).collectList().block(WAIT))
        .containsExactly(board(1));
    assertThat(store.backlog().block(WAIT))
        .isEqualTo(new EventOutbox.Backlog(4, board(1).createdTs()));

    store.sent(List.of(board(1), board(2))).block(WAIT);
    assertThat(store.pending(Long.MAX_VALUE, 10).collectList().block(WAIT))
        .containsExactly(board(3), board(4));
    assertThat(store.backlog().block(WAIT))
        .isEqualTo(new EventOutbox.Backlog(2, board(3).createdTs()));
    store.sent(List.of(board(3), board(4))).block(WAIT);
    assertThat(store.pending(Long.MAX_VALUE, 10).collectList().block(WAIT)).isEmpty();
    // Sending marks the event, never the post: all four are still stored.
    assertThat(store.count().block(WAIT)).isEqualTo(4);
    assertThat(store.findById(board(5).id()).block(WAIT)).isNull();
    closeIfMongo(store);
  }

  /** The rejection the service takes for a taken score (StowageBoardService.isTakenScore). */
  private static void assertRejected(Runnable insert) {
    assertThatThrownBy(insert::run)
        .isInstanceOfAny(
            DataIntegrityViolationException.class, R2dbcDataIntegrityViolationException.class)
        .satisfies(e -> assertThat(StowageBoardService.isTakenScore(e)).isTrue());
  }

  private static void closeIfMongo(BoardStore store) {
    if (store instanceof MongoBoardStore mongo) {
      mongo.close();
    }
  }
}
