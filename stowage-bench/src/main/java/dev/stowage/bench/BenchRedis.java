package dev.stowage.bench;

import dev.stowage.embedded.RedisServer;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;

/**
 * The Redis a Redis benchmark runs against: an embedded {@code redis-server} that the bench starts
 * and owns, or a server given by URL that it only borrows.
 *
 * <p>On a server it owns, the bench may {@code FLUSHALL} between configurations. On a borrowed one
 * it never does: every key a bench writes starts with a prefix of its own, and {@link
 * #clear(String)} removes only the keys under that prefix.
 *
 * <p>It also answers the administrative questions the benches ask ({@code INFO} fields, key counts)
 * over a connection of its own. Thread-safe.
 */
public final class BenchRedis implements AutoCloseable {

  private final @Nullable RedisServer embedded;
  private final String uri;
  private final RedisClient client;
  private final StatefulRedisConnection<String, String> admin;
  private @Nullable StatefulRedisConnection<byte[], byte[]> bytes;

  private BenchRedis(@Nullable RedisServer embedded, String uri) {
    this.embedded = embedded;
    this.uri = uri;
    this.client = RedisClient.create(RedisURI.create(uri));
    this.admin = client.connect(StringCodec.UTF8);
  }

  /**
   * A fresh embedded server that this object owns and stops on {@link #close()}.
   *
   * @param extraArgs extra {@code redis-server} arguments
   */
  public static BenchRedis embedded(String... extraArgs) {
    RedisServer server = RedisServer.start(extraArgs);
    try {
      return new BenchRedis(server, server.uri());
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /** A server the bench does not own, such as {@code redis://127.0.0.1:6380}; never flushed. */
  public static BenchRedis external(String uri) {
    Objects.requireNonNull(uri, "uri");
    try {
      return new BenchRedis(null, uri);
    } catch (RuntimeException e) {
      throw new BenchmarkRunException(
          "cannot connect to Redis at " + uri + ": " + e.getMessage(), e);
    }
  }

  /** The embedded server when {@code uri} is {@code null}, else the server at {@code uri}. */
  public static BenchRedis of(String uriOrNull) {
    return uriOrNull == null ? embedded() : external(uriOrNull);
  }

  /** The server's URI, such as {@code redis://127.0.0.1:41234}. */
  public String uri() {
    return uri;
  }

  /** The parsed {@link #uri()}. */
  public RedisURI redisUri() {
    return RedisURI.create(uri);
  }

  /** Whether the bench started this server (and so may flush it). */
  public boolean owned() {
    return embedded != null;
  }

  /** The embedded server, or {@code null} for a borrowed one. */
  public @Nullable RedisServer embeddedServer() {
    return embedded;
  }

  /** Synchronous commands on the administrative connection. */
  public RedisCommands<String, String> admin() {
    return admin.sync();
  }

  /**
   * One {@code MSET} of raw keys and values, sent at once on a connection kept for bulk loading;
   * several may be in flight, and Redis answers them in order.
   */
  public CompletionStage<String> mset(Map<byte[], byte[]> entries) {
    StatefulRedisConnection<byte[], byte[]> connection;
    synchronized (this) {
      if (bytes == null) {
        bytes = client.connect(ByteArrayCodec.INSTANCE);
      }
      connection = bytes;
    }
    return connection.async().mset(entries);
  }

  /**
   * Removes the keys under {@code prefix}: {@code FLUSHALL} when the server is owned, otherwise
   * {@code SCAN} and {@code UNLINK} of exactly the keys that start with the prefix.
   */
  public void clear(String prefix) {
    if (owned()) {
      admin().flushall();
      return;
    }
    deleteKeys(prefix);
  }

  /** Deletes the keys starting with {@code prefix}, on any server; returns how many. */
  public long deleteKeys(String prefix) {
    requirePrefix(prefix);
    long deleted = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    ScanArgs args = ScanArgs.Builder.matches(glob(prefix)).limit(1000);
    do {
      KeyScanCursor<String> page = admin().scan(cursor, args);
      List<String> keys = page.getKeys();
      if (!keys.isEmpty()) {
        deleted += admin().unlink(keys.toArray(String[]::new));
      }
      cursor = page;
    } while (!cursor.isFinished());
    return deleted;
  }

  /**
   * How many keys start with {@code prefix} (a {@code SCAN}, each key counted once: a {@code SCAN}
   * may return a key twice while Redis rehashes its keyspace, which once counted 201 keys of 200
   * just after 25,003 others were deleted).
   */
  public long countKeys(String prefix) {
    requirePrefix(prefix);
    DistinctKeys keys = new DistinctKeys();
    ScanCursor cursor = ScanCursor.INITIAL;
    ScanArgs args = ScanArgs.Builder.matches(glob(prefix)).limit(1000);
    do {
      KeyScanCursor<String> page = admin().scan(cursor, args);
      keys.add(page.getKeys());
      cursor = page;
    } while (!cursor.isFinished());
    return keys.count();
  }

  /** {@code used_memory} from {@code INFO memory}, in bytes. */
  public long usedMemory() {
    return infoField("memory", "used_memory")
        .orElseThrow(() -> new BenchmarkRunException("INFO memory has no used_memory", null));
  }

  /** {@code total_connections_received} from {@code INFO stats}. */
  public long totalConnectionsReceived() {
    return infoField("stats", "total_connections_received")
        .orElseThrow(
            () -> new BenchmarkRunException("INFO stats has no total_connections_received", null));
  }

  /** {@code connected_clients} from {@code INFO clients}. */
  public long connectedClients() {
    return infoField("clients", "connected_clients")
        .orElseThrow(
            () -> new BenchmarkRunException("INFO clients has no connected_clients", null));
  }

  /** The server's {@code redis_version}. */
  public @Nullable String version() {
    return infoText("server", "redis_version");
  }

  /** A numeric field of one {@code INFO} section, or empty if the section lacks it. */
  public OptionalLong infoField(String section, String field) {
    String text = infoText(section, field);
    return text == null ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(text));
  }

  private @Nullable String infoText(String section, String field) {
    String prefix = field + ":";
    for (String line : admin().info(section).split("\r?\n")) {
      if (line.startsWith(prefix)) {
        return line.substring(prefix.length()).trim();
      }
    }
    return null;
  }

  /**
   * Waits until lazily freed memory has been given back ({@code lazyfree_pending_objects} is 0), so
   * that a following {@code used_memory} reading is not inflated by a previous row.
   */
  public void awaitLazyFree() {
    for (int i = 0; i < 200; i++) {
      OptionalLong pending = infoField("memory", "lazyfree_pending_objects");
      if (pending.isEmpty() || pending.getAsLong() == 0) {
        return;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  @Override
  public void close() {
    try {
      admin.close();
      synchronized (this) {
        if (bytes != null) {
          bytes.close();
        }
      }
      client.shutdown();
    } finally {
      if (embedded != null) {
        embedded.close();
      }
    }
  }

  @Override
  public String toString() {
    return (owned() ? "embedded " : "") + "Redis at " + uri;
  }

  private static String glob(String prefix) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < prefix.length(); i++) {
      char c = prefix.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        out.append('\\');
      }
      out.append(c);
    }
    return out.append('*').toString();
  }

  private static void requirePrefix(String prefix) {
    if (Objects.requireNonNull(prefix, "prefix").isEmpty()) {
      throw new IllegalArgumentException(
          "a key prefix must not be empty: it would match every key");
    }
  }
}
