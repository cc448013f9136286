package dev.stowage.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

@WithRedis
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
