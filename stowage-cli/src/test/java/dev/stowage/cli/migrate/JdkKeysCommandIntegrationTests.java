package dev.stowage.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.cli.StowageCli;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code stowage migrate jdk-keys} on the keys a default RedisTemplate wrote, in a real Redis. */
@WithRedis
class JdkKeysCommandIntegrationTests {
  private static RedisServer server;
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> connection;
  private static RedisCommands<byte[], byte[]> redis;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  /** A key of an application class: counts its instances, so a test sees that none is made. */
  static final class Gadget implements Serializable {
    static final AtomicInteger MADE = new AtomicInteger();
    private static final long serialVersionUID = 1L;
    final String name;

    Gadget(String name) {
      this.name = name;
      MADE.incrementAndGet();
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      MADE.incrementAndGet();
    }

    @Override
    public String toString() {
      return name;
    }
  }

  @BeforeAll
  static void connect(RedisServer redisServer) {
    server = redisServer;
    client = RedisClient.create(redisServer.uri());
    connection = client.connect(ByteArrayCodec.INSTANCE);
    redis = connection.sync();
  }

  @AfterAll
  static void close() {
    connection.close();
    client.shutdown();
  }

  /**
   * The keys of a default RedisTemplate: B-1, B-2 (whose new key exists), U-1, 42L and a Gadget.
   */
  @BeforeEach
  void keys() {
    server.flushAll();
    redis.psetex(jdk("B-1"), 600_000, bytes("one"));
    redis.set(jdk("B-2"), bytes("two (old)"));
    redis.set(bytes("books::B-2"), bytes("two (new)"));
    redis.set(jdk("U-1"), bytes("user"));
    redis.set(jdk(42L), bytes("forty-two"));
    redis.set(jdk(new Gadget("B-9")), bytes("gadget"));
    redis.set(bytes("plain"), bytes("text"));
  }

  private static byte[] jdk(Object key) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream stream = new ObjectOutputStream(bytes)) {
      stream.writeObject(key);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    var cli = StowageCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void aDryRunPrintsWhatItWouldRenameAndChangesNothing() {
    int made = Gadget.MADE.get();
    assertThat(
            run(
                "migrate",
                "jdk-keys",
                "--redis",
                server.uri(),
                "--prefix",
                "books::",
                "--match",
                "B-*",
                "--dry-run"))
        .as(err.toString())
        .isZero();

    assertThat(out.toString().lines())
        .containsExactlyInAnyOrder(
            "would rename \\xac\\xed\\x00\\x05t\\x00\\x03B-1 -> books::B-1",
            "conflict: \\xac\\xed\\x00\\x05t\\x00\\x03B-2 -> books::B-2 exists already; the old key would be left in place",
            "would rename 1 of 5 JDK-serialized keys to books::<key text>: 1 conflicts left in place (the new key exists),"
                + " 2 not a string, 1 not matching 'B-*'; nothing was changed (--dry-run)");
    assertThat(redis.dbsize()).isEqualTo(7);
    assertThat(redis.exists(bytes("books::B-1"))).isZero();
    assertThat(redis.get(jdk("B-1"))).isEqualTo(bytes("one"));
    assertThat(Gadget.MADE.get()).as("a key of another class is never created").isEqualTo(made);
  }

  @Test
  void keysOfTheTypeMatchingThePatternAreRenamedKeepingTheirValueAndTtlAndNeverOverwriting() {
    int made = Gadget.MADE.get();
    assertThat(
            run(
                "migrate",
                "jdk-keys",
                "--redis",
                server.uri(),
                "--prefix",
                "books::",
                "--match",
                "B-*"))
        .as(err.toString())
        .isZero();

    assertThat(out.toString().lines())
        .containsExactlyInAnyOrder(
            "renamed \\xac\\xed\\x00\\x05t\\x00\\x03B-1 -> books::B-1",
            "conflict: \\xac\\xed\\x00\\x05t\\x00\\x03B-2 -> books::B-2 exists already; the old key is left in place",
            "renamed 1 of 5 JDK-serialized keys to books::<key text>: 1 conflicts left in place (the new key exists),"
                + " 2 not a string, 1 not matching 'B-*'");
    assertThat(redis.get(bytes("books::B-1"))).isEqualTo(bytes("one"));
    assertThat(redis.pttl(bytes("books::B-1"))).isBetween(1L, 600_000L);
    assertThat(redis.exists(jdk("B-1"))).isZero();
    assertThat(redis.get(bytes("books::B-2")))
        .as("never overwritten")
        .isEqualTo(bytes("two (new)"));
    assertThat(redis.get(jdk("B-2"))).isEqualTo(bytes("two (old)"));
    assertThat(redis.get(jdk("U-1"))).isEqualTo(bytes("user"));
    assertThat(redis.get(jdk(42L))).isEqualTo(bytes("forty-two"));
    assertThat(redis.exists(bytes("books::B-9"))).isZero();
    assertThat(Gadget.MADE.get()).as("a key of another class is never created").isEqualTo(made);
  }

  @Test
  void keysOfAnotherTypeAreRenamedByTheirText() {
    assertThat(
            run(
                "migrate",
                "jdk-keys",
                "--redis",
                server.uri(),
                "--prefix",
                "ids::",
                "--match",
                "*",
                "--key-type",
                "long"))
        .as(err.toString())
        .isZero();

    assertThat(out.toString())
        .contains("renamed \\xac\\xed\\x00\\x05sr\\x00\\x0ejava.lang.Long")
        .contains(
            "renamed 1 of 5 JDK-serialized keys to ids::<key text>: 0 conflicts left in place (the new key"
                + " exists), 4 not a long, 0 not matching '*'");
    assertThat(redis.get(bytes("ids::42"))).isEqualTo(bytes("forty-two"));
  }

  @Test
  void aPrefixIsRequired() {
    assertThat(run("migrate", "jdk-keys", "--redis", server.uri(), "--match", "*")).isEqualTo(2);
    assertThat(err.toString()).contains("--prefix");
  }
}
