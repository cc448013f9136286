package dev.stowage.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CacheUnavailableException;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.embedded.TlsCertificates;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mutual TLS against a redis-server that listens only on a TLS port and wants client certificates
 * ({@code --tls-auth-clients yes}), with certificates made for this class.
 */
class TlsIntegrationTests {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static TlsCertificates certificates;
  private static RedisServer redis;

  @BeforeAll
  static void start() {
    certificates = TlsCertificates.create();
    redis = RedisServer.startTls(certificates);
  }

  @AfterAll
  static void stop() {
    if (redis != null) {
      redis.close();
    }
    if (certificates != null) {
      certificates.close();
    }
  }

  @Test
  void withTheClientCertificateAValueRoundTrips() {
    ClientOptions options =
        ClientOptions.builder()
            .sslOptions(
                SslOptions.builder()
                    .keyManager(
                        certificates.clientCertificate().toFile(),
                        certificates.clientKey().toFile(),
                        null)
                    .trustManager(certificates.caCertificate().toFile())
                    .build())
            .build();
    try (Stowage stowage =
        Stowage.builder()
            .redis(redis.uri())
            .clientOptions(options)
            .commandTimeout(TIMEOUT)
            .build()) {
      RedisCache<String, Item> items = stowage.cache("tls", Item.class).build();
      items.put("1", Samples.item(1));

      assertThat(items.get("1")).isEqualTo(Samples.item(1));
      assertThat(redis.reply("EXISTS", "tls:1")).isEqualTo(1L);
      assertThat(String.valueOf(redis.reply("CLIENT", "LIST")))
          .as("Stowage's own connection is there")
          .contains("cmd=client|list")
          .containsPattern("cmd=(get|set|client\\|setinfo|hello)");
    }
  }

  @Test
  void withoutTheClientCertificateBuildingFailsSayingTheTlsHandshakeFailed() {
    ClientOptions trustOnly =
        ClientOptions.builder()
            .sslOptions(
                SslOptions.builder().trustManager(certificates.caCertificate().toFile()).build())
            .build();
    assertThatThrownBy(
            () ->
                Stowage.builder()
                    .redis(redis.uri())
                    .clientOptions(trustOnly)
                    .commandTimeout(TIMEOUT)
                    .build())
        .isInstanceOf(CacheUnavailableException.class)
        .hasMessageStartingWith(
            "cannot connect to Redis at 127.0.0.1:" + redis.port() + ": the TLS handshake failed (")
        .message()
        .as("the server's alert: TLS 1.3 says certificate_required, TLS 1.2 bad_certificate")
        .containsAnyOf("certificate_required", "bad_certificate", "handshake_failure");
  }

  @Test
  void withoutTrustingTheServersAuthorityBuildingFailsSayingTheTlsHandshakeFailed() {
    ClientOptions clientOnly =
        ClientOptions.builder()
            .sslOptions(
                SslOptions.builder()
                    .keyManager(
                        certificates.clientCertificate().toFile(),
                        certificates.clientKey().toFile(),
                        null)
                    .build())
            .build();
    assertThatThrownBy(
            () ->
                Stowage.builder()
                    .redis(redis.uri())
                    .clientOptions(clientOnly)
                    .commandTimeout(TIMEOUT)
                    .build())
        .isInstanceOf(CacheUnavailableException.class)
        .hasMessageStartingWith(
            "cannot connect to Redis at 127.0.0.1:" + redis.port() + ": the TLS handshake failed (")
        .hasMessageContaining("certification path");
  }
}
