package dev.stowage.board;

import dev.stowage.testkit.PostgresDatabase;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Makes PostgreSQL reject the insert of any post titled {@link #TITLE}, as a database can fail one
 * insert: the service has reserved the post's score by then, so the failure leaves a gap in the
 * scores.
 */
final class DatabaseRejection {
  /** The title of a post the database refuses to store. */
  static final String TITLE = "rejected by the database";

  private DatabaseRejection() {}

  /** Installs the trigger on the {@code board} table (which the service has created). */
  static void install(PostgresDatabase db) throws SQLException {
    try (var connection = DriverManager.getConnection(db.jdbcUrl());
        var statement = connection.createStatement()) {
      statement.execute(
          "CREATE FUNCTION reject_marked_post() RETURNS trigger AS $$ BEGIN"
              + " IF NEW.title = '"
              + TITLE
              + "' THEN RAISE EXCEPTION 'the test rejects this post';"
              + " END IF; RETURN NEW; END $$ LANGUAGE plpgsql");
      statement.execute(
          "CREATE TRIGGER reject_marked_post BEFORE INSERT ON board FOR EACH ROW"
              + " EXECUTE FUNCTION reject_marked_post()");
    }
  }

  /** A post the database rejects. */
  static Map<String, Object> post() {
    Map<String, Object> post = new LinkedHashMap<>(BoardPosts.post(0));
    post.put("title", TITLE);
    return post;
  }
}
