package dev.stowage.board;

import dev.stowage.board.events.EventOutbox;
import dev.stowage.board.events.ScoreGate;
import dev.stowage.board.protocol.Board;
import io.r2dbc.spi.ConnectionFactory;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.time.LocalDateTime;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.r2dbc.connection.R2dbcTransactionManager;
import org.springframework.r2dbc.core.DatabaseClient;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The relational {@link BoardStore}, through R2DBC: table {@code board}, keyed by score, with the
 * id unique. Works on H2 and PostgreSQL with the same SQL.
 *
 * <p>With events ({@link #withOutbox}), it is also the {@link EventOutbox}: every insert writes its
 * posts and one row per post in {@code board_outbox} in one transaction, so that a post is stored
 * with its pending event or not at all; an insert the database rejects writes neither. Without
 * events nothing is written to {@code board_outbox}, and an insert is the one statement it always
 * was. Thread-safe.
 */
public final class BoardRepository implements BoardStore {
  private static final String COLUMNS =
      "score, id, member_id, title, body, address, country, job,"
          + " credit, ssn, company, phone_number, modified_at, created_at, created_ts";
  private static final int COLUMN_COUNT = 15;
  private static final String INSERT_PREFIX = "INSERT INTO board (" + COLUMNS + ") VALUES ";
  // Text columns hold BoardLimits.MAX_TEXT_CHARS code points, checked by the service: H2 counts
  // UTF-16 units, two for a code point beyond the BMP, so the columns allow twice as many.
  private static final String SCHEMA =
      "CREATE TABLE IF NOT EXISTS board ("
          + " score BIGINT PRIMARY KEY,"
          + " id VARCHAR(24) NOT NULL UNIQUE,"
          + " member_id BIGINT NOT NULL,"
          + " title VARCHAR(8000) NOT NULL, body VARCHAR(8000) NOT NULL,"
          + " address VARCHAR(8000) NOT NULL, country VARCHAR(8000) NOT NULL,"
          + " job VARCHAR(8000) NOT NULL, credit VARCHAR(8000) NOT NULL,"
          + " ssn VARCHAR(8000) NOT NULL, company VARCHAR(8000) NOT NULL,"
          + " phone_number VARCHAR(8000) NOT NULL,"
          + " modified_at TIMESTAMP NOT NULL, created_at TIMESTAMP NOT NULL,"
          + " created_ts BIGINT NOT NULL)";

  private static final String OUTBOX_SCHEMA =
      "CREATE TABLE IF NOT EXISTS board_outbox ("
          + " score BIGINT PRIMARY KEY, created_ts BIGINT NOT NULL)";
  private static final String OUTBOX_INSERT_PREFIX =
      "INSERT INTO board_outbox (score, created_ts) VALUES ";
  private static final String PENDING =
      "SELECT b."
          + COLUMNS.replace(", ", ", b.")
          + " FROM board_outbox o JOIN board b ON b.score = o.score WHERE o.score < $1"
          + " ORDER BY o.score LIMIT $2";

  private final DatabaseClient client;

  /** Null without events. */
  private final @Nullable TransactionalOperator transactions;

  private final ScoreGate gate = new ScoreGate();

  /** A repository without events. */
  public BoardRepository(DatabaseClient client) {
    this.client = client;
    this.transactions = null;
  }

  private BoardRepository(ConnectionFactory connections) {
    this.client = DatabaseClient.create(connections);
    this.transactions = TransactionalOperator.create(new R2dbcTransactionManager(connections));
  }

  /**
   * A repository that writes every post's event to the outbox table {@code board_outbox}, in the
   * post's transaction.
   */
  public static BoardRepository withOutbox(ConnectionFactory connections) {
    return new BoardRepository(connections);
  }

  @Override
  public boolean events() {
    return transactions != null;
  }

  /**
   * Creates the tables when they do not exist: {@code board}, and with events {@code board_outbox}.
   */
  @Override
  public Mono<Void> createSchema() {
    Mono<Void> board = client.sql(SCHEMA).then();
    return transactions == null ? board : board.then(client.sql(OUTBOX_SCHEMA).then());
  }

  @Override
  public ScoreGate gate() {
    return gate;
  }

  /**
   * Inserts posts with one multi-row {@code INSERT}: a single statement, so all of them are stored
   * or none (on H2 and PostgreSQL alike, with no explicit transaction). With events, their outbox
   * rows are inserted after them in the same transaction.
   */
  @Override
  public Mono<Void> insertAll(List<Board> boards) {
    if (boards.isEmpty()) {
      return Mono.empty();
    }
    TransactionalOperator tx = transactions;
    if (tx == null) {
      return insertPosts(boards);
    }
    return tx.transactional(insertPosts(boards).then(insertEvents(boards)));
  }

  private Mono<Void> insertEvents(List<Board> boards) {
    StringBuilder sql = new StringBuilder(OUTBOX_INSERT_PREFIX);
    for (int i = 0; i < boards.size(); i++) {
      sql.append(i == 0 ? "($" : ", ($")
          .append(2 * i + 1)
          .append(", $")
          .append(2 * i + 2)
          .append(')');
    }
    return client.inConnection(
        connection -> {
          Statement statement = connection.createStatement(sql.toString());
          for (int i = 0; i < boards.size(); i++) {
            statement.bind(2 * i, boards.get(i).score()).bind(2 * i + 1, boards.get(i).createdTs());
          }
          return Flux.from(statement.execute()).flatMap(result -> result.getRowsUpdated()).then();
        });
  }

  @Override
  public Flux<Board> pending(long below, int limit) {
    return client.sql(PENDING).bind(0, below).bind(1, limit).map(BoardRepository::read).all();
  }

  @Override
  public Mono<Void> sent(List<Board> posts) {
    if (posts.isEmpty()) {
      return Mono.empty();
    }
    StringBuilder sql = new StringBuilder("DELETE FROM board_outbox WHERE score IN (");
    for (int i = 0; i < posts.size(); i++) {
      sql.append(i == 0 ? "$" : ", $").append(i + 1);
    }
    sql.append(')');
    return client.inConnection(
        connection -> {
          Statement statement = connection.createStatement(sql.toString());
          for (int i = 0; i < posts.size(); i++) {
            statement.bind(i, posts.get(i).score());
          }
          return Flux.from(statement.execute()).flatMap(result -> result.getRowsUpdated()).then();
        });
  }

  @Override
  public Mono<Backlog> backlog() {
    return client
        .sql("SELECT COUNT(*) AS c, COALESCE(MIN(created_ts), 0) AS m FROM board_outbox")
        .map(
            row ->
                new Backlog(
                    ((Number) row.get("c")).longValue(), ((Number) row.get("m")).longValue()))
        .one();
  }

  private Mono<Void> insertPosts(List<Board> boards) {
    StringBuilder sql =
        new StringBuilder(INSERT_PREFIX.length() + boards.size() * 80).append(INSERT_PREFIX);
    for (int i = 0; i < boards.size(); i++) {
      sql.append(i == 0 ? "(" : ", (");
      for (int c = 1; c <= COLUMN_COUNT; c++) {
        sql.append(c == 1 ? "$" : ", $").append(i * COLUMN_COUNT + c);
      }
      sql.append(')');
    }
    return client.inConnection(
        connection -> {
          Statement statement = connection.createStatement(sql.toString());
          for (int i = 0; i < boards.size(); i++) {
            bind(statement, i * COLUMN_COUNT, boards.get(i));
          }
          return Flux.from(statement.execute()).flatMap(result -> result.getRowsUpdated()).then();
        });
  }

  private static void bind(Statement statement, int at, Board b) {
    statement
        .bind(at, b.score())
        .bind(at + 1, b.id())
        .bind(at + 2, b.memberId())
        .bind(at + 3, b.title())
        .bind(at + 4, b.body())
        .bind(at + 5, b.address())
        .bind(at + 6, b.country())
        .bind(at + 7, b.job())
        .bind(at + 8, b.credit())
        .bind(at + 9, b.ssn())
        .bind(at + 10, b.company())
        .bind(at + 11, b.phoneNumber())
        .bind(at + 12, b.modifiedAt())
        .bind(at + 13, b.createdAt())
        .bind(at + 14, b.createdTs());
  }

  @Override
  public Flux<Board> page(long offset, int limit) {
    return client
        .sql(
            "SELECT "
                + COLUMNS
                + " FROM board ORDER BY score DESC LIMIT :limit"
                + " OFFSET :offset")
        .bind("limit", limit)
        .bind("offset", offset)
        .map(BoardRepository::read)
        .all();
  }

  @Override
  public Flux<Board> all() {
    return client
        .sql("SELECT " + COLUMNS + " FROM board ORDER BY score")
        .map(BoardRepository::read)
        .all();
  }

  @Override
  public Mono<Board> findById(String id) {
    return client
        .sql("SELECT " + COLUMNS + " FROM board WHERE id = :id")
        .bind("id", id)
        .map(BoardRepository::read)
        .one();
  }

  @Override
  public Mono<Long> maxScore() {
    return client
        .sql("SELECT COALESCE(MAX(score), 0) AS m FROM board")
        .map(row -> ((Number) row.get("m")).longValue())
        .one();
  }

  @Override
  public Mono<Long> count() {
    return client
        .sql("SELECT COUNT(*) AS c FROM board")
        .map(row -> ((Number) row.get("c")).longValue())
        .one();
  }

  private static Board read(Readable row) {
    return new Board(
        row.get("id", String.class),
        row.get("score", Long.class),
        row.get("member_id", Long.class),
        row.get("title", String.class),
        row.get("body", String.class),
        row.get("address", String.class),
        row.get("country", String.class),
        row.get("job", String.class),
        row.get("credit", String.class),
        row.get("ssn", String.class),
        row.get("company", String.class),
        row.get("phone_number", String.class),
        row.get("modified_at", LocalDateTime.class),
        row.get("created_at", LocalDateTime.class),
        row.get("created_ts", Long.class));
  }
}
