package dev.stowage.testkit;

import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.UUID;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A MongoDB wire-compatible test server, <b>not MongoDB</b>: mongo-java-server (de.bwaldvogel) in
 * this JVM on an ephemeral loopback port, keeping its data in an H2 MVStore file, so that {@link
 * #restart()} starts it again on the same port with the same data. It answers the official drivers
 * (and Spring Data MongoDB) with indexes, sorted and paged finds, duplicate-key errors (11000) and
 * aggregation, and has no sessions, transactions or change streams. Code under test must not depend
 * on how it differs from MongoDB, and no performance figure is taken from it.
 *
 * <pre>{@code
 * try (MongoTestServer mongo = MongoTestServer.start()) {
 *   String url = mongo.url();   // mongodb://127.0.0.1:41234/stowage_test_1f2e…
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class MongoTestServer implements AutoCloseable {
  private final Path directory;
  private final Path file;
  private final String database;
  private int port;
  private @Nullable MongoServer server;

  private MongoTestServer(Path directory, String database) {
    this.directory = directory;
    this.file = directory.resolve("mongo.mv.db");
    this.database = database;
  }

  /** Starts a server with an empty data file and names a fresh database on it. */
  public static MongoTestServer start() {
    Path directory;
    try {
      directory = Files.createTempDirectory("stowage-mongo-");
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot make a directory for the MongoDB test server's data"
              + " file; check that java.io.tmpdir is writable",
          e);
    }
    MongoTestServer mongo =
        new MongoTestServer(
            directory,
            "stowage_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    mongo.listen(0);
    return mongo;
  }

  private synchronized void listen(int onPort) {
    MongoServer started = new MongoServer(new H2Backend(file.toString()));
    started.bind("127.0.0.1", onPort);
    this.port = started.getLocalAddress().getPort();
    this.server = started;
  }

  /** {@code mongodb://127.0.0.1:port/database}, the database being this server's fresh one. */
  public String url() {
    return "mongodb://127.0.0.1:" + port + "/" + database;
  }

  /** The fresh database's name, {@code stowage_test_<random>}. */
  public String database() {
    return database;
  }

  /** The loopback port it listens on, the same across restarts. */
  public synchronized int port() {
    return port;
  }

  /** Whether it is listening. */
  public synchronized boolean isRunning() {
    return server != null;
  }

  /** Stops it: open connections are closed and the data file is written and closed. Idempotent. */
  public synchronized void stop() {
    MongoServer running = server;
    server = null;
    if (running != null) {
      running.shutdownNow();
    }
  }

  /** Stops it if it runs and starts it again on the same port, from its data file. */
  public synchronized void restart() {
    stop();
    listen(port);
  }

  /** Stops it and deletes its data file. */
  @Override
  public synchronized void close() {
    stop();
    try (Stream<Path> paths = Files.walk(directory)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // Left in java.io.tmpdir: nothing else reads it.
    }
  }

  @Override
  public String toString() {
    return "MongoTestServer[" + url() + ", a wire-compatible test server, not MongoDB]";
  }
}
