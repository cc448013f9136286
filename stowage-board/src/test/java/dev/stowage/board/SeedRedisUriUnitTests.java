package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

class SeedRedisUriUnitTests {

  @Test
  void aUriWithoutAPortKeepsRedisDefaultAndOneWithAPortAndDatabaseUsesThem() {
    RedisStandaloneConfiguration bare =
        BoardConfiguration.seedConnectionFactory("redis://cache.internal")
            .getStandaloneConfiguration();
    assertThat(bare.getHostName()).isEqualTo("cache.internal");
    assertThat(bare.getPort()).isEqualTo(new RedisStandaloneConfiguration().getPort());
    assertThat(bare.getDatabase()).isZero();

    RedisStandaloneConfiguration full =
        BoardConfiguration.seedConnectionFactory("redis://u:p@127.0.0.1:40123/3")
            .getStandaloneConfiguration();
    assertThat(full.getPort()).isEqualTo(40123);
    assertThat(full.getDatabase()).isEqualTo(3);
    assertThat(full.getUsername()).isEqualTo("u");
  }

  @Test
  void malformedUrisAreRefusedWithAMessageNamingThem() {
    assertThatThrownBy(
            () -> BoardConfiguration.seedConnectionFactory("redis://127.0.0.1:40123/two"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be a number from 0, not 'two'");
    assertThatThrownBy(() -> BoardConfiguration.seedConnectionFactory("http://127.0.0.1:40123"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("redis://host:port");
    assertThatThrownBy(() -> BoardConfiguration.seedConnectionFactory("redis://bad host"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a Redis URI");
  }
}
