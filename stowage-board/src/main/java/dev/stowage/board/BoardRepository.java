package dev.stowage.board;

import dev.stowage.board.protocol.Board;
import io.r2dbc.spi.Readable;
import io.r2dbc.spi.Statement;
import java.time.LocalDateTime;
import java.util.List;
import org.springframework.r2dbc.core.DatabaseClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The database of record, through R2DBC: table {@code board}, keyed by score, with the id unique.
 * Works on H2 and PostgreSQL with the same SQL. Thread-safe.
 */
public final class BoardRepository {
  private static final String COLUMNS = "score, id, member_id, title, body, address, country, job,"
      + " credit, ssn, company, phone_number, modified_at, created_at, created_ts";
  private static final int COLUMN_COUNT = 15;
  private static final String INSERT_PREFIX = "INSERT INTO board (" + COLUMNS + ") VALUES ";
  // Text columns hold BoardLimits.MAX_TEXT_CHARS code points, checked by the service: H2 counts
  // UTF-16 units, two for a code point beyond the BMP, so the columns allow twice as many.
  private static final String SCHEMA = "CREATE TABLE IF NOT EXISTS board ("
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

  private final DatabaseClient client;

  public BoardRepository(DatabaseClient client) {
    this.client = client;
  }

  /** Creates the table when it does not exist. */
  public Mono<Void> createSchema() {
    return client.sql(SCHEMA).then();
  }

  /** Inserts one post. Fails with a {@code DataIntegrityViolationException} on a taken score. */
  public Mono<Void> insert(Board board) {
    return insertAll(List.of(board));
  }

  /**
   * Inserts posts with one multi-row {@code INSERT}: a single statement, so all of them are stored
   * or none (on H2 and PostgreSQL alike, with no explicit transaction).
   */
  public Mono<Void> insertAll(List<Board> boards) {
    if (boards.isEmpty()) {
      return Mono.empty();
    }
    StringBuilder sql = new StringBuilder(INSERT_PREFIX.length() + boards.size() * 80)
        .append(INSERT_PREFIX);
    for (int i = 0; i < boards.size(); i++) {
      sql.append(i == 0 ? "(" : ", (");
      for (int c = 1; c <= COLUMN_COUNT; c++) {
        sql.append(c == 1 ? "$" : ", $").append(i * COLUMN_COUNT + c);
      }
      sql.append(')');
    }
    return client.inConnection(connection -> {
      Statement statement = connection.createStatement(sql.toString());
      for (int i = 0; i < boards.size(); i++) {
        bind(statement, i * COLUMN_COUNT, boards.get(i));
      }
      return Flux.from(statement.execute()).flatMap(result -> result.getRowsUpdated()).then();
    });
  }

  private static void bind(Statement statement, int at, Board b) {
    statement.bind(at, b.score()).bind(at + 1, b.id()).bind(at + 2, b.memberId())
        .bind(at + 3, b.title()).bind(at + 4, b.body()).bind(at + 5, b.address())
        .bind(at + 6, b.country()).bind(at + 7, b.job()).bind(at + 8, b.credit())
        .bind(at + 9, b.ssn()).bind(at + 10, b.company()).bind(at + 11, b.phoneNumber())
        .bind(at + 12, b.modifiedAt()).bind(at + 13, b.createdAt()).bind(at + 14, b.createdTs());
  }

  /** A page, newest (highest score) first. */
  public Flux<Board> page(long offset, int limit) {
    return client.sql("SELECT " + COLUMNS + " FROM board ORDER BY score DESC LIMIT :limit"
            + " OFFSET :offset")
        .bind("limit", limit).bind("offset", offset)
        .map(BoardRepository::read).all();
  }

  /** Every post, oldest first; used to refill the cache. */
  public Flux<Board> all() {
    return client.sql("SELECT " + COLUMNS + " FROM board ORDER BY score").map(BoardRepository::read)
        .all();
  }

  /** The post with {@code id}, or empty. */
  public Mono<Board> findById(String id) {
    return client.sql("SELECT " + COLUMNS + " FROM board WHERE id = :id").bind("id", id)
        .map(BoardRepository::read).one();
  }

  /** The highest score stored, or 0 when the table is empty. */
  public Mono<Long> maxScore() {
    return client.sql("SELECT COALESCE(MAX(score), 0) AS m FROM board")
        .map(row -> ((Number) row.get("m")).longValue()).one();
  }

  /** How many posts are stored. */
  public Mono<Long> count() {
    return client.sql("SELECT COUNT(*) AS c FROM board")
        .map(row -> ((Number) row.get("c")).longValue()).one();
  }

  private static Board read(Readable row) {
    return new Board(row.get("id", String.class), row.get("score", Long.class),
        row.get("member_id", Long.class), row.get("title", String.class),
        row.get("body", String.class), row.get("address", String.class),
        row.get("country", String.class), row.get("job", String.class),
        row.get("credit", String.class), row.get("ssn", String.class),
        row.get("company", String.class), row.get("phone_number", String.class),
        row.get("modified_at", LocalDateTime.class), row.get("created_at", LocalDateTime.class),
        row.get("created_ts", Long.class));
  }
}
