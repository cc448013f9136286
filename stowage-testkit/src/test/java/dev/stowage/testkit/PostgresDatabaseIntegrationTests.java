package dev.stowage.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

@WithPostgres
class PostgresDatabaseIntegrationTests {

  @Test
  void handsOutAFreshEmptyDatabaseThatAcceptsWrites(PostgresDatabase db) throws SQLException {
    assertThat(db.database()).startsWith("stowage_test_");
    assertThat(db.jdbcUrl())
        .isEqualTo(
            "jdbc:postgresql://"
                + db.host()
                + ":"
                + db.port()
                + "/"
                + db.database()
                + "?user="
                + db.user());
    assertThat(db.r2dbcUrl())
        .isEqualTo(
            "r2dbc:postgresql://"
                + db.user()
                + "@"
                + db.host()
                + ":"
                + db.port()
                + "/"
                + db.database());
    try (Connection connection = DriverManager.getConnection(db.jdbcUrl());
        Statement statement = connection.createStatement()) {
      try (ResultSet tables =
          statement.executeQuery(
              "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'")) {
        tables.next();
        assertThat(tables.getInt(1)).isZero();
      }
      statement.execute("CREATE TABLE t (id bigint PRIMARY KEY)");
      statement.execute("INSERT INTO t VALUES (1), (2)");
      try (ResultSet count = statement.executeQuery("SELECT count(*) FROM t")) {
        count.next();
        assertThat(count.getInt(1)).isEqualTo(2);
      }
    }
  }

  @Test
  void everyTestOfTheClassGetsTheSameDatabase(PostgresDatabase first, PostgresDatabase second) {
    assertThat(first).isSameAs(second);
  }

  @Test
  void closeDropsOnlyItsOwnDatabaseEvenWithAConnectionOpen(PostgresDatabase classDb)
      throws SQLException {
    List<String> before = databases(classDb);
    PostgresDatabase extra = PostgresDatabase.create();
    assertThat(extra.database()).isNotEqualTo(classDb.database());
    assertThat(databases(classDb)).contains(extra.database());
    try (Connection open = DriverManager.getConnection(extra.jdbcUrl())) {
      extra.close();
    }
    assertThat(databases(classDb)).containsExactlyInAnyOrderElementsOf(before);
    assertThatThrownBy(() -> DriverManager.getConnection(extra.jdbcUrl()).close())
        .isInstanceOf(SQLException.class)
        .hasMessageContaining(extra.database());
    extra.close(); // idempotent
  }

  @Test
  void aPrivateServerStartsFromInitdbOnAnEphemeralPortAndIsGoneAfterClose() throws SQLException {
    int port;
    try (PostgresServer server = PostgresServer.start();
        PostgresDatabase db = server.createDatabase()) {
      assertThat(server.isPrivate()).isTrue();
      port = server.port();
      assertThat(port).isNotEqualTo(5432);
      try (Connection connection = DriverManager.getConnection(db.jdbcUrl());
          Statement statement = connection.createStatement();
          ResultSet result = statement.executeQuery("SELECT current_database()")) {
        result.next();
        assertThat(result.getString(1)).isEqualTo(db.database());
      }
    }
    assertThatThrownBy(
            () ->
                DriverManager.getConnection(
                        "jdbc:postgresql://127.0.0.1:"
                            + port
                            + "/postgres?user=postgres&connectTimeout=2")
                    .close())
        .isInstanceOf(SQLException.class);
  }

  private static List<String> databases(PostgresDatabase db) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Connection connection = DriverManager.getConnection(db.jdbcUrl());
        Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SELECT datname FROM pg_database")) {
      while (result.next()) {
        names.add(result.getString(1));
      }
    }
    return names;
  }
}
