package dev.stowage.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.embedded.RedisBinary;
import dev.stowage.embedded.RedisServer;
import dev.stowage.embedded.TlsCertificates;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

@WithRedis
@Isolated(
    "It points the Redis binary property elsewhere, which would reach the servers other classes start.")
class RedisServerIntegrationTests {

  @Test
  void startsOnAnEphemeralPortAndAnswers(RedisServer redis) {
    assertThat(redis.port()).isNotEqualTo(6379).isGreaterThan(1024);
    assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
    assertThat(redis.command("SET", "k", "v")).isEqualTo("+OK");
    assertThat(redis.command("GET", "k")).isEqualTo("$1");
  }

  @Test
  void theSameServerServesEveryTestOfTheClass(RedisServer redis) {
    assertThat(redis.isRunning()).isTrue();
    assertThat(redis.command("INCR", "shared-counter")).startsWith(":");
  }

  @Test
  void stopMakesItUnreachableAndRestartBringsItBackEmptyOnTheSamePort(RedisServer redis) {
    int port = redis.port();
    redis.command("SET", "before", "1");
    redis.stop();
    assertThat(redis.isRunning()).isFalse();
    assertThatThrownBy(() -> redis.command("PING")).isInstanceOf(IllegalStateException.class);
    redis.restart();
    assertThat(redis.port()).isEqualTo(port);
    assertThat(redis.command("EXISTS", "before")).isEqualTo(":0");
  }

  @Test
  void killEndsTheProcessAtOnceAndRestartBringsItBack(RedisServer redis) {
    redis.command("SET", "before", "1");
    redis.kill();
    assertThat(redis.isRunning()).isFalse();
    assertThatThrownBy(() -> redis.command("PING")).isInstanceOf(IllegalStateException.class);
    redis.kill();
    redis.restart();
    assertThat(redis.command("PING")).isEqualTo("+PONG");
    assertThat(redis.command("EXISTS", "before")).isEqualTo(":0");
  }

  @Test
  void flushAllEmptiesTheServer(RedisServer redis) {
    redis.command("SET", "a", "1");
    redis.flushAll();
    assertThat(redis.command("DBSIZE")).isEqualTo(":0");
  }

  @Test
  void twoServersAreIndependent(RedisServer redis) {
    try (RedisServer other = RedisServer.start()) {
      assertThat(other.port()).isNotEqualTo(redis.port());
      other.command("SET", "only-here", "1");
      assertThat(redis.command("EXISTS", "only-here")).isEqualTo(":0");
    }
  }

  @Test
  void replyReadsWholeRepliesOfEveryType(RedisServer redis) {
    redis.command("DEL", "reply-list");
    assertThat(redis.reply("SET", "reply-k", "héllo\r\nworld")).isEqualTo("OK");
    assertThat(redis.reply("GET", "reply-k")).isEqualTo("héllo\r\nworld");
    assertThat(redis.reply("GET", "reply-missing")).isNull();
    assertThat(redis.reply("RPUSH", "reply-list", "a", "b")).isEqualTo(2L);
    assertThat(redis.reply("LRANGE", "reply-list", "0", "-1")).isEqualTo(List.of("a", "b"));
    assertThatThrownBy(() -> redis.reply("INCR", "reply-list"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("INCR reply-list")
        .hasMessageContaining("-WRONGTYPE");
  }

  @Test
  void aTlsServerAnswersOnlyClientsThatPresentACertificateOfItsAuthority() throws Exception {
    try (TlsCertificates certificates = TlsCertificates.create();
        RedisServer tls = RedisServer.startTls(certificates)) {
      assertThat(tls.isTls()).isTrue();
      assertThat(tls.uri()).isEqualTo("rediss://127.0.0.1:" + tls.port());
      assertThat(tls.port()).isNotEqualTo(6379);
      assertThat(tls.reply("SET", "over-tls", "1")).isEqualTo("OK");
      assertThat(tls.reply("GET", "over-tls")).isEqualTo("1");

      assertThat(plainPing(tls.port())).as("no plain-text port answers").isNotEqualTo("+PONG");

      SSLContext noClientCertificate = SSLContext.getInstance("TLS");
      noClientCertificate.init(null, certificates.trustManagers(), null);
      assertThatThrownBy(() -> tlsPing(noClientCertificate, tls.port()))
          .as("the server wants a client certificate")
          .isInstanceOf(IOException.class);

      tls.restart();
      assertThat(tls.command("PING")).isEqualTo("+PONG");
    }
  }

  private static String plainPing(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
      socket.setSoTimeout(2000);
      OutputStream out = socket.getOutputStream();
      out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      return new String(socket.getInputStream().readNBytes(5), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return e.toString();
    }
  }

  private static String tlsPing(SSLContext context, int port) throws IOException {
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
      socket.setSoTimeout(5000);
      socket.startHandshake();
      OutputStream out = socket.getOutputStream();
      out.write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] reply = in.readNBytes(7);
      if (reply.length == 0) {
        throw new EOFException("the server closed the connection");
      }
      return new String(reply, StandardCharsets.US_ASCII);
    }
  }

  @Test
  void theBinaryShippedInTheMavenArtifactRuns() {
    String previous = System.getProperty(RedisBinary.PROPERTY);
    System.setProperty(RedisBinary.PROPERTY, "embedded");
    try (RedisServer embedded = RedisServer.start()) {
      assertThat(embedded.binary().toString()).doesNotStartWith("/usr/");
      assertThat(embedded.command("PING")).isEqualTo("+PONG");
      assertThat(embedded.command("INFO", "server")).startsWith("$");
    } finally {
      restore(previous);
    }
  }

  @Test
  void aMissingBinaryFailsLoudly() {
    String previous = System.getProperty(RedisBinary.PROPERTY);
    System.setProperty(RedisBinary.PROPERTY, "/nonexistent/redis-server");
    try {
      assertThatThrownBy(RedisServer::start)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("/nonexistent/redis-server");
    } finally {
      restore(previous);
    }
  }

  @Test
  void aServerThatCannotStartReportsItsOwnOutput() {
    assertThatThrownBy(() -> RedisServer.start("--no-such-option", "1"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("redis-server exited");
  }

  private static void restore(String previous) {
    if (previous == null) {
      System.clearProperty(RedisBinary.PROPERTY);
    } else {
      System.setProperty(RedisBinary.PROPERTY, previous);
    }
  }
}
