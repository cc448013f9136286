package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.testkit.PostgresDatabase;
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

/** The database of record on PostgreSQL and on the default H2: same SQL, same guarantees. */
@WithPostgres
class BoardRepositoryIntegrationTests {
  private static final Duration WAIT = Duration.ofSeconds(30);

  private static BoardRepository repository(String kind, PostgresDatabase db) {
    String url = kind.equals("postgresql") ? db.r2dbcUrl()
        : "r2dbc:h2:mem:///repo-" + UUID.randomUUID() + "?options=DB_CLOSE_DELAY=-1";
    ConnectionFactory factory = ConnectionFactories.get(url);
    BoardRepository repository = new BoardRepository(DatabaseClient.create(factory));
    repository.createSchema().block(WAIT);
    repository.createSchema().block(WAIT); // idempotent
    return repository;
  }

  private static Board board(long score) {
    NewBoard input = new ObjectMapper().convertValue(BoardPosts.post((int) score), NewBoard.class);
    return Board.create(input, score, 1_701_134_160_000L + score);
  }

  @ParameterizedTest
  @ValueSource(strings = {"postgresql", "h2"})
  void storesReadsPagesAndKeepsABulkAllOrNothing(String kind, PostgresDatabase db) {
    BoardRepository repository = repository(kind, db);
    long base = repository.maxScore().block(WAIT) + 1;
    List<Board> boards = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      boards.add(board(base + i));
    }
    repository.insertAll(boards).block(WAIT);
    assertThat(repository.findById(boards.get(7).id()).block(WAIT)).isEqualTo(boards.get(7));
    assertThat(repository.page(0, 5).collectList().block(WAIT))
        .containsExactly(boards.get(29), boards.get(28), boards.get(27), boards.get(26),
            boards.get(25));
    assertThat(repository.maxScore().block(WAIT)).isEqualTo(base + 29);
    long count = repository.count().block(WAIT);

    // The last row's score is taken: the statement fails and none of the new rows is stored.
    List<Board> clash = List.of(board(base + 100), board(base + 101), board(base + 3));
    assertThatThrownBy(() -> repository.insertAll(clash).block(WAIT))
        .isInstanceOfAny(DataIntegrityViolationException.class,
            R2dbcDataIntegrityViolationException.class)
        .satisfies(e -> assertThat(StowageBoardService.isTakenScore(e)).isTrue());
    assertThat(repository.count().block(WAIT)).isEqualTo(count);
    assertThat(repository.findById(board(base + 100).id()).block(WAIT)).isNull();
  }
}
