package dev.stowage.testkit;

import static java.util.Objects.requireNonNull;

import dev.stowage.embedded.RedisBinary;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.UserPrincipal;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A PostgreSQL server that tests may create databases in: either one already running on {@code
 * 127.0.0.1:5432} with trust authentication for the user {@code postgres}, or a private server that
 * this class initialises in a temporary directory and starts on an ephemeral port.
 *
 * <p>{@link #shared()} picks one of the two once per JVM; {@link #start()} always starts a private
 * one. The choice can be forced with the system property {@value #MODE_PROPERTY}: {@code existing},
 * {@code private} or {@code auto} (the default). The existing server's address can be changed with
 * {@value #HOST_PROPERTY}, {@value #PORT_PROPERTY} and {@value #USER_PROPERTY}.
 *
 * <p>Nothing here ever falls back silently: when neither way works, {@link IllegalStateException}
 * says what was tried and how to fix it. A private server is stopped and its directory deleted by
 * {@link #close()} or, at the latest, when the JVM exits.
 *
 * <p>Instances are thread-safe.
 */
public final class PostgresServer implements AutoCloseable {
  /** {@code auto} (default), {@code existing} or {@code private}. */
  public static final String MODE_PROPERTY = "stowage.postgres.mode";

  /** Host of an existing server; {@code 127.0.0.1} unless set. */
  public static final String HOST_PROPERTY = "stowage.postgres.host";

  /** Port of an existing server; {@code 5432} unless set. */
  public static final String PORT_PROPERTY = "stowage.postgres.port";

  /** User of an existing server (trust authentication); {@code postgres} unless set. */
  public static final String USER_PROPERTY = "stowage.postgres.user";

  /** Directory holding {@code initdb} and {@code pg_ctl}; searched for when unset. */
  public static final String BIN_PROPERTY = "stowage.postgres.bin";

  private static final String OS_USER = "postgres";
  private static final int START_TIMEOUT_SECONDS = 60;
  private static volatile @Nullable PostgresServer shared;

  private final String host;
  private final int port;
  private final String user;

  /** Null for a server found running; set for a private one, with {@link #binDir}. */
  private final @Nullable Path dataDir;

  private final @Nullable Path binDir;
  private final boolean runAsPostgresUser;

  private PostgresServer(
      String host,
      int port,
      String user,
      @Nullable Path dataDir,
      @Nullable Path binDir,
      boolean runAsPostgresUser) {
    this.host = host;
    this.port = port;
    this.user = user;
    this.dataDir = dataDir;
    this.binDir = binDir;
    this.runAsPostgresUser = runAsPostgresUser;
  }

  /**
   * The server this JVM's tests share, found or started on first use.
   *
   * @throws IllegalStateException if there is no reachable server and none could be started
   */
  public static PostgresServer shared() {
    PostgresServer server = shared;
    if (server != null) {
      return server;
    }
    synchronized (PostgresServer.class) {
      if (shared == null) {
        shared = locate();
      }
      return shared;
    }
  }

  /**
   * Initialises and starts a private server on an ephemeral loopback port. The caller closes it.
   *
   * @throws IllegalStateException if {@code initdb}/{@code pg_ctl} are missing or fail; the message
   *     includes their output
   */
  public static PostgresServer start() {
    Path bin = findBinDir();
    if (bin == null) {
      throw new IllegalStateException(
          "no initdb/pg_ctl found: looked at -D"
              + BIN_PROPERTY
              + ", the PATH and /usr/lib/postgresql/*/bin; install PostgreSQL"
              + " (Debian: apt-get install -y postgresql)");
    }
    boolean root = isRoot();
    Path dir;
    try {
      dir = Files.createTempDirectory("stowage-pg");
      if (root) {
        chownRecursively(dir, OS_USER);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot prepare a data directory for PostgreSQL: " + e, e);
    }
    PostgresServer server =
        new PostgresServer("127.0.0.1", freePort(), OS_USER, dir.resolve("data"), bin, root);
    try {
      server.initAndStart();
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
    Runtime.getRuntime().addShutdownHook(new Thread(server::close, "stowage-postgres-reaper"));
    return server;
  }

  /** Host to connect to. */
  public String host() {
    return host;
  }

  /** Port to connect to. */
  public int port() {
    return port;
  }

  /** The superuser that tests connect as, with no password. */
  public String user() {
    return user;
  }

  /** Whether this server was started by this class (rather than found running). */
  public boolean isPrivate() {
    return dataDir != null;
  }

  /**
   * Creates a fresh, empty database named {@code stowage_test_<random>}. Close the result to drop
   * it.
   */
  public PostgresDatabase createDatabase() {
    String name = "stowage_test_" + Long.toHexString(ThreadLocalRandom.current().nextLong() >>> 1);
    execute("postgres", "CREATE DATABASE " + name);
    return new PostgresDatabase(this, name);
  }

  /** Runs one statement in {@code database} as {@link #user()}. */
  void execute(String database, String sql) {
    try (Connection connection = DriverManager.getConnection(jdbcUrl(database), user, "");
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "PostgreSQL at " + host + ":" + port + " refused `" + sql + "`: " + e.getMessage(), e);
    }
  }

  String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host + ":" + port + "/" + database + "?connectTimeout=5";
  }

  /** Stops a private server and deletes its directory; does nothing to a server found running. */
  @Override
  public synchronized void close() {
    if (dataDir == null || !Files.exists(parent(dataDir))) {
      return;
    }
    if (Files.exists(dataDir.resolve("postmaster.pid"))) {
      run(
          List.of(
              requireNonNull(binDir).resolve("pg_ctl").toString(),
              "stop",
              "-D",
              dataDir.toString(),
              "-m",
              "immediate",
              "-w"),
          30,
          false);
    }
    try (Stream<Path> files = Files.walk(parent(dataDir))) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort: a temp directory
    }
  }

  @Override
  public String toString() {
    return "PostgresServer["
        + host
        + ":"
        + port
        + (isPrivate() ? ", private " + dataDir : "")
        + "]";
  }

  private static PostgresServer locate() {
    String mode = System.getProperty(MODE_PROPERTY, "auto").toLowerCase(Locale.ROOT);
    String host = System.getProperty(HOST_PROPERTY, "127.0.0.1");
    int port = Integer.parseInt(System.getProperty(PORT_PROPERTY, "5432"));
    String user = System.getProperty(USER_PROPERTY, "postgres");
    if (mode.equals("private")) {
      return start();
    }
    PostgresServer existing = new PostgresServer(host, port, user, null, null, false);
    String existingProblem;
    try {
      existing.execute("postgres", "SELECT 1");
      return existing;
    } catch (IllegalStateException e) {
      existingProblem = e.getMessage();
    }
    if (mode.equals("existing")) {
      throw new IllegalStateException("-D" + MODE_PROPERTY + "=existing, but " + existingProblem);
    }
    try {
      return start();
    } catch (IllegalStateException e) {
      throw new IllegalStateException(
          "no PostgreSQL for the tests. Tried (1) the server at "
              + host
              + ":"
              + port
              + " as user "
              + user
              + " with trust auth: "
              + existingProblem
              + "; (2) starting a private one: "
              + e.getMessage(),
          e);
    }
  }

  private void initAndStart() {
    Path dataDir = requireNonNull(this.dataDir);
    Path binDir = requireNonNull(this.binDir);
    String initdb = binDir.resolve("initdb").toString();
    run(
        List.of(
            initdb,
            "-D",
            dataDir.toString(),
            "-U",
            OS_USER,
            "-A",
            "trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--locale=C"),
        120,
        true);
    Path socketDir = parent(dataDir);
    run(
        List.of(
            binDir.resolve("pg_ctl").toString(),
            "start",
            "-D",
            dataDir.toString(),
            "-w",
            "-t",
            Integer.toString(START_TIMEOUT_SECONDS),
            "-l",
            socketDir.resolve("postgres.log").toString(),
            "-o",
            "-p "
                + port
                + " -h 127.0.0.1 -k "
                + socketDir
                + " -F -c fsync=off"
                + " -c full_page_writes=off -c synchronous_commit=off -c max_connections=200"),
        START_TIMEOUT_SECONDS + 10,
        true);
  }

  private String run(List<String> command, int timeoutSeconds, boolean failOnError) {
    List<String> full = new ArrayList<>();
    if (runAsPostgresUser) {
      full.addAll(List.of("runuser", "-u", OS_USER, "--"));
    }
    full.addAll(command);
    try {
      Path out = Files.createTempFile("stowage-pg-cmd", ".log");
      try {
        Process process =
            new ProcessBuilder(full)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .directory(new File(System.getProperty("java.io.tmpdir")))
                .start();
        if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
          process.destroyForcibly();
          throw new IllegalStateException(
              String.join(" ", full)
                  + " did not finish within "
                  + timeoutSeconds
                  + " s: "
                  + Files.readString(out)
                  + serverLog());
        }
        String output = Files.readString(out);
        if (process.exitValue() != 0 && failOnError) {
          throw new IllegalStateException(
              String.join(" ", full)
                  + " exited with "
                  + process.exitValue()
                  + ": "
                  + output.strip()
                  + serverLog());
        }
        return output;
      } finally {
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run " + String.join(" ", full) + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running " + String.join(" ", full), e);
    }
  }

  private String serverLog() {
    Path log = parent(requireNonNull(dataDir)).resolve("postgres.log");
    try {
      return Files.exists(log) ? "\nserver log:\n" + Files.readString(log).strip() : "";
    } catch (IOException e) {
      return "";
    }
  }

  private static @Nullable Path findBinDir() {
    String override = System.getProperty(BIN_PROPERTY);
    if (override != null && !override.isBlank()) {
      Path dir = Path.of(override);
      return Files.isExecutable(dir.resolve("initdb")) ? dir : null;
    }
    Path onPath = RedisBinary.onPath("initdb");
    if (onPath != null) {
      Path dir = parent(resolveReal(onPath));
      if (Files.isExecutable(dir.resolve("pg_ctl"))) {
        return dir;
      }
    }
    for (Path root : List.of(Path.of("/usr/lib/postgresql"), Path.of("/usr/local/pgsql"))) {
      if (!Files.isDirectory(root)) {
        continue;
      }
      if (Files.isExecutable(root.resolve("bin/initdb"))) {
        return root.resolve("bin");
      }
      try (Stream<Path> versions = Files.list(root)) {
        Path newest =
            versions
                .map(v -> v.resolve("bin"))
                .filter(b -> Files.isExecutable(b.resolve("initdb")))
                .max(Comparator.comparingInt(PostgresServer::versionOf))
                .orElse(null);
        if (newest != null) {
          return newest;
        }
      } catch (IOException ignored) {
        // unreadable: try the next place
      }
    }
    return null;
  }

  /**
   * The directory above {@code path}, which the callers' paths (files and data directories) have.
   */
  private static Path parent(Path path) {
    return requireNonNull(path.getParent(), path + " has no parent directory");
  }

  private static Path resolveReal(Path path) {
    try {
      return path.toRealPath();
    } catch (IOException e) {
      return path;
    }
  }

  private static int versionOf(Path binDir) {
    try {
      return Integer.parseInt(String.valueOf(parent(binDir).getFileName()));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"));
  }

  private static void chownRecursively(Path dir, String owner) throws IOException {
    UserPrincipalLookupService lookup = dir.getFileSystem().getUserPrincipalLookupService();
    UserPrincipal principal;
    try {
      principal = lookup.lookupPrincipalByName(owner);
    } catch (IOException e) {
      throw new IOException(
          "running as root, and PostgreSQL refuses to run as root, but there is"
              + " no OS user '"
              + owner
              + "' to run it as (Debian's postgresql package creates one)",
          e);
    }
    Files.getFileAttributeView(dir, PosixFileAttributeView.class).setOwner(principal);
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException("cannot find a free port on 127.0.0.1", e);
    }
  }
}
