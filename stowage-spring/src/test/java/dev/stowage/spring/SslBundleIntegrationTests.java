package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.CacheUnavailableException;
import dev.stowage.embedded.RedisServer;
import dev.stowage.embedded.TlsCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;

/**
 * {@code spring.data.redis.ssl.bundle}: the Stowage bean connects with the certificates of the SSL
 * bundle it names, to a redis-server that speaks only TLS and wants a client certificate.
 */
class SslBundleIntegrationTests {
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

  private static ApplicationContextRunner runner(String... bundle) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                SslAutoConfiguration.class,
                DataRedisAutoConfiguration.class,
                StowageAutoConfiguration.class))
        .withPropertyValues(
            "spring.data.redis.host=" + redis.host(),
            "spring.data.redis.port=" + redis.port(),
            "spring.data.redis.ssl.enabled=true",
            "spring.data.redis.ssl.bundle=redis",
            "spring.data.redis.timeout=2s")
        .withPropertyValues(bundle);
  }

  @Test
  void theBundlesClientCertificateAndAuthorityConnect() {
    runner(
            "spring.ssl.bundle.pem.redis.keystore.certificate=file:"
                + certificates.clientCertificate(),
            "spring.ssl.bundle.pem.redis.keystore.private-key=file:" + certificates.clientKey(),
            "spring.ssl.bundle.pem.redis.truststore.certificate=file:"
                + certificates.caCertificate())
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              Cache cache = context.getBean(CacheManager.class).getCache("tls");
              cache.put("k", "v");
              assertThat(cache.get("k"))
                  .isNotNull()
                  .extracting(Cache.ValueWrapper::get)
                  .isEqualTo("v");
              assertThat(redis.reply("EXISTS", "tls::k")).isEqualTo(1L);
            });
  }

  @Test
  void aBundleWithoutTheClientCertificateFailsTheStartSayingTheHandshakeFailed() {
    // A start that waits for Redis; by default the application starts and keeps trying.
    runner(
            "spring.ssl.bundle.pem.redis.truststore.certificate=file:"
                + certificates.caCertificate(),
            "stowage.connect-in-background=false")
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable cause = context.getStartupFailure();
              while (cause != null && !(cause instanceof CacheUnavailableException)) {
                cause = cause.getCause();
              }
              assertThat(cause)
                  .as("the failure's causes")
                  .isNotNull()
                  .hasMessageContaining("the TLS handshake failed");
            });
  }
}
