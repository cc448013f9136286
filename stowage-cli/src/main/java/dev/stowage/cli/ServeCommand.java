package dev.stowage.cli;

import dev.stowage.board.BoardMode;
import dev.stowage.board.BoardServer;
import dev.stowage.board.FeedFormat;
import dev.stowage.testkit.RedisServer;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code stowage serve}: runs the board service until interrupted. Without {@code --redis} it
 * starts an embedded {@code redis-server} on an ephemeral port; without {@code --db} the database
 * of record is an in-memory H2. Prints one line {@code stowage board listening on http://…} that
 * scripts (and {@code stowage bench http}) can wait for.
 */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Run the board service (the first seed's API) until interrupted.")
public final class ServeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--port", defaultValue = "8080",
      description = "HTTP port; 0 for an ephemeral one (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--redis", paramLabel = "URL",
      description = "Redis to use, such as redis://127.0.0.1:6379 (default: start an embedded one).")
  String redis;

  @Option(names = "--db", paramLabel = "R2DBC_URL",
      description = "Database of record, such as r2dbc:postgresql://postgres@127.0.0.1:5432/board"
          + " (default: in-memory H2).")
  String db;

  @Option(names = "--mode", defaultValue = "stowage", paramLabel = "MODE",
      description = "stowage, seed-json or seed-msgpack (default: ${DEFAULT-VALUE}).")
  String mode;

  @Option(names = "--compression", defaultValue = "zstd-dict", paramLabel = "KIND",
      description = "How stowage mode compresses the feed: zstd-dict, zstd or none"
          + " (default: ${DEFAULT-VALUE}).")
  String compression;

  /** A started service and the embedded Redis it owns, if any. */
  record Running(BoardServer board, RedisServer embeddedRedis) implements AutoCloseable {
    @Override
    public void close() {
      board.close();
      if (embeddedRedis != null) {
        embeddedRedis.close();
      }
    }
  }

  /** Starts the service and prints where it listens; the caller closes the result. */
  Running start(PrintWriter out) {
    BoardMode boardMode = BoardMode.parse(mode);
    FeedFormat.Storage storage = FeedFormat.Storage.parse(compression);
    RedisServer embedded = redis == null ? RedisServer.start() : null;
    String redisUri = embedded != null ? embedded.uri() : redis;
    try {
      BoardServer board = BoardServer.start(port, redisUri, db, boardMode, storage);
      out.printf("stowage board listening on %s (mode %s, redis %s%s, db %s)%n", board.url(),
          boardMode.label(), redisUri, embedded != null ? " embedded" : "",
          db != null ? db : "in-memory H2");
      out.flush();
      return new Running(board, embedded);
    } catch (RuntimeException e) {
      if (embedded != null) {
        embedded.close();
      }
      throw e;
    }
  }

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec != null ? spec.commandLine().getOut() : new PrintWriter(System.out);
    Running running = start(out);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      running.close();
      stopped.countDown();
    }, "stowage-serve-shutdown"));
    stopped.await();
    return 0;
  }
}
