package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;
import org.redisson.config.SingleServerConfig;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

/** Every peer client is told the whole of the Redis URI, not only its host and port. */
class RedisTargetUnitTests {
  private final RedisTarget full =
      new RedisTarget(RedisURI.create("rediss://bench:s3cret@redis.example:6380/2"));
  private final RedisTarget plain = new RedisTarget(RedisURI.create("redis://127.0.0.1:6390"));

  @Test
  void springGetsDatabaseUserAndPassword() {
    RedisStandaloneConfiguration config = full.springStandalone();
    assertThat(config.getHostName()).isEqualTo("redis.example");
    assertThat(config.getPort()).isEqualTo(6380);
    assertThat(config.getDatabase()).isEqualTo(2);
    assertThat(config.getUsername()).isEqualTo("bench");
    assertThat(config.getPassword().get()).containsExactly('s', '3', 'c', 'r', 'e', 't');
    assertThat(full.tls()).isTrue();
    assertThat(plain.springStandalone().getPassword().isPresent()).isFalse();
    assertThat(plain.tls()).isFalse();
  }

  @Test
  void redissonGetsTheSchemeDatabaseAndCredentials() {
    SingleServerConfig server = full.redisson().useSingleServer();
    assertThat(server.getAddress()).isEqualTo("rediss://redis.example:6380");
    assertThat(server.getDatabase()).isEqualTo(2);
    assertThat(server.getUsername()).isEqualTo("bench");
    assertThat(server.getPassword()).isEqualTo("s3cret");
    assertThat(plain.redisson().useSingleServer().getAddress()).isEqualTo("redis://127.0.0.1:6390");
  }

  @Test
  void redisBenchmarkGetsItsOptions() {
    assertThat(full.redisBenchmarkOptions())
        .containsExactly(
            "-h",
            "redis.example",
            "-p",
            "6380",
            "--dbnum",
            "2",
            "--user",
            "bench",
            "-a",
            "s3cret",
            "--tls");
    assertThat(plain.redisBenchmarkOptions()).containsExactly("-h", "127.0.0.1", "-p", "6390");
  }
}
