package dev.stowage.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CacheUnavailableException;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import dev.stowage.embedded.TlsCertificates;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.SslOptions;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * A cluster whose six nodes speak only mutual TLS, to clients, on the cluster bus and to their
 * replicas: Stowage reaches every master with the client certificate the application gives as
 * Lettuce {@link SslOptions}, and without it building fails saying so.
 */
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class ClusterTlsIntegrationTests {
  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final int KEYS = 3_000;
  private static TlsCertificates certificates;
  private static RedisClusterSet cluster;

  @BeforeAll
  static void start() {
    certificates = TlsCertificates.create();
    cluster = RedisClusterSet.startTls(certificates, 1);
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
    if (certificates != null) {
      certificates.close();
    }
  }

  private static ClientOptions withClientCertificate() {
    return ClientOptions.builder()
        .sslOptions(
            SslOptions.builder()
                .keyManager(
                    certificates.clientCertificate().toFile(),
                    certificates.clientKey().toFile(),
                    null)
                .trustManager(certificates.caCertificate().toFile())
                .build())
        .build();
  }

  @Test
  void everyNodeSpeaksTlsOnly() {
    assertThat(cluster.uris())
        .hasSize(6)
        .allSatisfy(uri -> assertThat(uri).startsWith("rediss://127.0.0.1:"));
    for (RedisServer node : cluster.nodes()) {
      assertThat(String.valueOf(node.reply("CONFIG", "GET", "tls-cluster"))).contains("yes");
      assertThat(String.valueOf(node.reply("CONFIG", "GET", "port")))
          .as("no plain-text port")
          .contains("0");
    }
  }

  @Test
  void singleKeysAndBulkOperationsRoundTripOnEveryMasterOverTls() {
    try (Stowage stowage =
        Stowage.builder()
            .redisCluster(cluster.seedUri())
            .clientOptions(withClientCertificate())
            .commandTimeout(TIMEOUT)
            .build()) {
      RedisCache<String, Item> items = stowage.cache("tls-items", Item.class).build();
      Set<Integer> masters = new HashSet<>();
      for (int i = 0; i < 30; i++) {
        items.put(Integer.toString(i), Samples.item(i));
        masters.add(cluster.masterOf("tls-items:" + i).port());
      }
      assertThat(masters).as("the keys are spread over the three masters").hasSize(3);
      assertThat(items.get("17")).isEqualTo(Samples.item(17));

      Map<String, Item> many = new LinkedHashMap<>();
      for (int i = 0; i < KEYS; i++) {
        many.put("bulk" + i, Samples.item(i));
      }
      items.putAll(many);
      assertThat(items.getAll(many.keySet())).isEqualTo(many);
      assertThat(cluster.masterOf("tls-items:bulk1").reply("EXISTS", "tls-items:bulk1"))
          .isEqualTo(1L);
      assertThat(items.deleteAll(List.copyOf(many.keySet()))).isEqualTo(KEYS);
      assertThat(items.getAll(many.keySet())).isEmpty();
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
                    .redisCluster(cluster.seedUri())
                    .clientOptions(trustOnly)
                    .commandTimeout(TIMEOUT)
                    .build())
        .isInstanceOf(CacheUnavailableException.class)
        .hasMessageStartingWith(
            "cannot connect to Redis at cluster "
                + cluster.seedUri().substring("rediss://".length()))
        .hasMessageContaining(": the TLS handshake failed (")
        .message()
        .as("the server's alert: TLS 1.3 says certificate_required, TLS 1.2 bad_certificate")
        .containsAnyOf("certificate_required", "bad_certificate", "handshake_failure");
  }
}
