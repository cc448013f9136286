package dev.stowage.testkit;

import java.util.Objects;

/**
 * A fresh PostgreSQL database of its own, named {@code stowage_test_<random>}, on a {@link
 * PostgresServer}. Closing it drops the database (terminating any connection still open to it); no
 * other database is ever touched. Tests get one per class through {@link WithPostgres}.
 *
 * <p>The user connects with no password (trust authentication). Instances are thread-safe.
 */
public final class PostgresDatabase implements AutoCloseable {
  private final PostgresServer server;
  private final String name;
  private volatile boolean dropped;

  PostgresDatabase(PostgresServer server, String name) {
    this.server = Objects.requireNonNull(server, "server");
    this.name = Objects.requireNonNull(name, "name");
  }

  /**
   * Creates a fresh database on the {@linkplain PostgresServer#shared() shared server}.
   *
   * @throws IllegalStateException if no server is reachable and none could be started
   */
  public static PostgresDatabase create() {
    return PostgresServer.shared().createDatabase();
  }

  /** The server's host. */
  public String host() {
    return server.host();
  }

  /** The server's port. */
  public int port() {
    return server.port();
  }

  /** The database's name, {@code stowage_test_<random>}. */
  public String database() {
    return name;
  }

  /** The user to connect as; there is no password. */
  public String user() {
    return server.user();
  }

  /** {@code jdbc:postgresql://host:port/database?user=...}. */
  public String jdbcUrl() {
    return "jdbc:postgresql://" + host() + ":" + port() + "/" + name + "?user=" + user();
  }

  /** {@code r2dbc:postgresql://user@host:port/database}. */
  public String r2dbcUrl() {
    return "r2dbc:postgresql://" + user() + "@" + host() + ":" + port() + "/" + name;
  }

  /** The server this database lives on. */
  public PostgresServer server() {
    return server;
  }

  /** Drops the database, closing connections still open to it. Idempotent. */
  @Override
  public synchronized void close() {
    if (dropped) {
      return;
    }
    server.execute("postgres", "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    dropped = true;
  }

  @Override
  public String toString() {
    return "PostgresDatabase[" + name + " on " + host() + ":" + port() + "]";
  }
}
