package dev.stowage.board;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.mongodb.client.model.Filters;
import com.mongodb.client.model.IndexOptions;
import com.mongodb.client.model.Indexes;
import com.mongodb.client.model.Projections;
import com.mongodb.reactivestreams.client.MongoClient;
import com.mongodb.reactivestreams.client.MongoClients;
import com.mongodb.reactivestreams.client.MongoCollection;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.testkit.MongoTestServer;
import dev.stowage.testkit.PostgresDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.bson.Document;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A database of record as the events' tests see it from outside the service: its URL for {@code
 * stowage.board.db}, a way to make it reject the posts titled {@value DatabaseRejection#TITLE}, the
 * posts stored and the events pending. PostgreSQL (the outbox table) or MongoDB on
 * mongo-java-server, a wire-compatible test server, not MongoDB (the pending event in the post's
 * document).
 */
interface StoreUnderTest extends AutoCloseable {
  Duration WAIT = Duration.ofSeconds(30);

  /** The URL the service is started with. */
  String url();

  /** Makes the database reject every post titled {@value DatabaseRejection#TITLE}. */
  void rejectMarkedPosts() throws Exception;

  /** A unique index on the posts' titles: a second post with a stored title is a duplicate key. */
  void uniqueTitles() throws Exception;

  /** The ids of the posts the service stored (not the one that holds the marked title). */
  Set<String> storedIds() throws Exception;

  /** How many events wait to be published. */
  long pendingEvents() throws Exception;

  @Override
  void close();

  /**
   * {@code kind} is {@code postgresql} (a fresh database) or {@code mongodb} (on {@code mongo}).
   */
  static StoreUnderTest open(String kind, MongoTestServer mongo) {
    return switch (kind) {
      case "postgresql" -> new Postgres(PostgresDatabase.create());
      case "mongodb" -> new Mongo(mongo);
      default -> throw new IllegalArgumentException("no store " + kind);
    };
  }

  /** PostgreSQL: a trigger rejects the marked posts; events wait in {@code board_outbox}. */
  final class Postgres implements StoreUnderTest {
    private final PostgresDatabase db;

    Postgres(PostgresDatabase db) {
      this.db = db;
    }

    @Override
    public String url() {
      return db.r2dbcUrl();
    }

    @Override
    public void rejectMarkedPosts() throws SQLException {
      DatabaseRejection.install(db);
    }

    @Override
    public void uniqueTitles() throws SQLException {
      try (Connection connection = DriverManager.getConnection(db.jdbcUrl());
          Statement statement = connection.createStatement()) {
        statement.execute("CREATE UNIQUE INDEX board_title ON board (title)");
      }
    }

    @Override
    public Set<String> storedIds() throws SQLException {
      Set<String> ids = new HashSet<>();
      try (Connection connection = DriverManager.getConnection(db.jdbcUrl());
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT id FROM board")) {
        while (rows.next()) {
          ids.add(rows.getString(1));
        }
      }
      return ids;
    }

    @Override
    public long pendingEvents() throws SQLException {
      try (Connection connection = DriverManager.getConnection(db.jdbcUrl());
          Statement statement = connection.createStatement();
          ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM board_outbox")) {
        rows.next();
        return rows.getLong(1);
      }
    }

    @Override
    public void close() {
      db.close();
    }

    @Override
    public String toString() {
      return "PostgreSQL";
    }
  }

  /**
   * MongoDB on mongo-java-server (a wire-compatible test server, not MongoDB): a unique index on
   * {@code title} and a stored post of score 0 with the marked title make MongoDB reject the marked
   * posts with a duplicate key (11000), the one rejection a MongoDB without validators gives;
   * events wait in the posts' documents.
   */
  final class Mongo implements StoreUnderTest {
    private final MongoTestServer server;
    private final MongoClient client;
    private final MongoCollection<Document> posts;

    Mongo(MongoTestServer server) {
      this.server = server;
      this.client = MongoClients.create(server.url());
      this.posts = client.getDatabase(server.database()).getCollection(MongoBoardStore.COLLECTION);
    }

    @Override
    public String url() {
      return server.url();
    }

    @Override
    public void uniqueTitles() {
      Mono.from(posts.createIndex(Indexes.ascending("title"), new IndexOptions().unique(true)))
          .block(WAIT);
    }

    @Override
    public void rejectMarkedPosts() {
      uniqueTitles();
      NewBoard marked = new ObjectMapper().convertValue(DatabaseRejection.post(), NewBoard.class);
      Board blocker = Board.create(marked, 0, 1_701_134_160_000L);
      Mono.from(posts.insertOne(MongoBoardStore.write(blocker, false))).block(WAIT);
    }

    @Override
    public Set<String> storedIds() {
      Set<String> ids = new HashSet<>();
      Flux.from(posts.find(Filters.gt("score", 0L)).projection(Projections.include("_id")))
          .doOnNext(document -> ids.add(document.getObjectId("_id").toHexString()))
          .blockLast(WAIT);
      return ids;
    }

    @Override
    public long pendingEvents() {
      Long count =
          Mono.from(posts.countDocuments(Filters.exists(MongoBoardStore.PENDING))).block(WAIT);
      return count == null ? 0 : count;
    }

    @Override
    public void close() {
      client.close();
    }

    @Override
    public String toString() {
      return "MongoDB on mongo-java-server (a wire-compatible test server, not MongoDB)";
    }
  }
}
