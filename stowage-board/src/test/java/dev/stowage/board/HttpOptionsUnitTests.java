package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * {@link HttpOptions}: its defaults, the bounds each value is checked against as it is set, and the
 * round trip through {@link HttpProperties}, the Spring properties the service reads.
 */
class HttpOptionsUnitTests {
  @Test
  void theDefaultsAreTheDocumentedOnes() {
    HttpOptions defaults = HttpOptions.defaults();
    assertThat(defaults.writeTimeout())
        .isEqualTo(Duration.ofSeconds(30))
        .isEqualTo(HttpOptions.DEFAULT_WRITE_TIMEOUT);
    assertThat(defaults.maxUnsentBytes())
        .isEqualTo(16 * 1024 * 1024)
        .isEqualTo(HttpOptions.DEFAULT_MAX_UNSENT_BYTES);
    assertThat(defaults.maxConnections()).isEqualTo(4096);
    assertThat(defaults.maxConnectionsPerAddress()).isEqualTo(256);
  }

  @Test
  void theWriteTimeoutMustBePositive() {
    assertThatThrownBy(() -> HttpOptions.builder().writeTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("writeTimeout must be positive, got PT0S");
    assertThatThrownBy(() -> HttpOptions.builder().writeTimeout(Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("writeTimeout must be positive, got PT-1S");
    assertThatThrownBy(() -> HttpOptions.builder().writeTimeout(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("writeTimeout");
    assertThat(HttpOptions.builder().writeTimeout(Duration.ofMillis(1)).build().writeTimeout())
        .isEqualTo(Duration.ofMillis(1));
  }

  @Test
  void theUnsentBoundIsFrom64KibTo1Gib() {
    assertThatThrownBy(() -> HttpOptions.builder().maxUnsentBytes(65535))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxUnsentBytes must be from 65536 to 1073741824, got 65535");
    assertThatThrownBy(() -> HttpOptions.builder().maxUnsentBytes(1024 * 1024 * 1024 + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxUnsentBytes must be from 65536 to 1073741824, got 1073741825");
    assertThat(HttpOptions.builder().maxUnsentBytes(65536).build().maxUnsentBytes())
        .isEqualTo(65536);
    assertThat(HttpOptions.builder().maxUnsentBytes(1024 * 1024 * 1024).build().maxUnsentBytes())
        .isEqualTo(1024 * 1024 * 1024);
  }

  @Test
  void mutateAndThePropertiesKeepEveryValue() {
    HttpOptions options =
        HttpOptions.builder()
            .idleTimeout(Duration.ofSeconds(7))
            .requestReadTimeout(Duration.ofSeconds(3))
            .maxConnections(9)
            .maxConnectionsPerAddress(5)
            .writeTimeout(Duration.ofMillis(1500))
            .maxUnsentBytes(1 << 20)
            .build();
    assertThat(options.mutate().build()).hasToString(options.toString());
    assertThat(options.toString()).contains("writeTimeout=PT1.5S", "maxUnsentBytes=1048576");

    StandardEnvironment env = new StandardEnvironment();
    // As in the application: Spring Boot's conversions (durations such as "7000ms").
    env.setConversionService(new ApplicationConversionService());
    env.getPropertySources().addFirst(new MapPropertySource("test", HttpProperties.of(options)));
    assertThat(HttpProperties.read(env)).hasToString(options.toString());
    assertThat(HttpProperties.of(options))
        .containsEntry("stowage.board.http.write-timeout-ms", 1500L)
        .containsEntry("stowage.board.http.max-unsent-bytes", 1 << 20);

    StandardEnvironment bad = new StandardEnvironment();
    bad.getPropertySources()
        .addFirst(
            new MapPropertySource("test", Map.of("stowage.board.http.write-timeout-ms", "0")));
    assertThatThrownBy(() -> HttpProperties.read(bad))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("writeTimeout must be positive, got PT0S");
  }
}
