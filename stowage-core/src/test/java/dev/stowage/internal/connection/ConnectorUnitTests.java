package dev.stowage.internal.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CacheUnavailableException;
import dev.stowage.StowageException;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import java.net.ConnectException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import javax.net.ssl.SSLHandshakeException;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

class ConnectorUnitTests {
  private static final Duration TIMEOUT = Duration.ofMillis(750);
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(3);

  @Test
  void theCopyWithTheTimeoutKeepsTheSentinelsTheMastersNameAndTheCredentials() {
    RedisURI given =
        RedisURI.create("redis-sentinel://app:secret@10.0.0.1:26379,10.0.0.2:26380/3#mymaster");

    RedisURI copy = ServerConnector.withTimeout(given, TIMEOUT);

    assertThat(copy.getSentinelMasterId()).isEqualTo("mymaster");
    assertThat(copy.getSentinels())
        .extracting(RedisURI::getHost, RedisURI::getPort)
        .containsExactly(Tuple.tuple("10.0.0.1", 26379), Tuple.tuple("10.0.0.2", 26380));
    assertThat(copy.getSentinels())
        .allSatisfy(sentinel -> assertThat(sentinel.getTimeout()).isEqualTo(TIMEOUT));
    assertThat(copy.getTimeout()).isEqualTo(TIMEOUT);
    assertThat(copy.getDatabase()).isEqualTo(3);
    RedisCredentials credentials = copy.getCredentialsProvider().resolveCredentials().block();
    assertThat(credentials).isNotNull();
    assertThat(credentials.getUsername()).isEqualTo("app");
    assertThat(String.valueOf(credentials.getPassword())).isEqualTo("secret");
    assertThat(given.getTimeout())
        .as("the given URI is unchanged")
        .isEqualTo(RedisURI.DEFAULT_TIMEOUT_DURATION);
    for (int i = 0; i < 2; i++) {
      assertThat(copy.getSentinels().get(i)).isNotSameAs(given.getSentinels().get(i));
      assertThat(given.getSentinels().get(i).getTimeout())
          .isEqualTo(RedisURI.DEFAULT_TIMEOUT_DURATION);
    }
    assertThat(ServerConnector.describe(copy))
        .isEqualTo("mymaster (sentinels 10.0.0.1:26379, 10.0.0.2:26380)");
  }

  @Test
  void theCopyOfAStandaloneUriKeepsTlsAndTheAddress() {
    RedisURI copy =
        ServerConnector.withTimeout(RedisURI.create("rediss://redis.internal:6380/2"), TIMEOUT);

    assertThat(copy.isSsl()).isTrue();
    assertThat(copy.getSentinels()).isEmpty();
    assertThat(copy.getDatabase()).isEqualTo(2);
    assertThat(ServerConnector.describe(copy)).isEqualTo("redis.internal:6380");
  }

  @Test
  void theApplicationsOptionsKeepTheirSettingsButNotThoseStowageDependsOn() {
    SslOptions ssl = SslOptions.builder().jdkSslProvider().build();
    ClientOptions given =
        ClientOptions.builder()
            .sslOptions(ssl)
            .protocolVersion(ProtocolVersion.RESP2)
            .socketOptions(
                SocketOptions.builder()
                    .tcpNoDelay(false)
                    .connectTimeout(Duration.ofMinutes(1))
                    .build())
            .autoReconnect(false)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
            .build();

    ClientOptions used = ServerConnector.enforced(given, TIMEOUT, CONNECT_TIMEOUT);

    assertThat(used.getSslOptions()).isSameAs(ssl);
    assertThat(used.getProtocolVersion()).isEqualTo(ProtocolVersion.RESP2);
    assertThat(used.getSocketOptions().isTcpNoDelay()).isFalse();
    assertThat(used.getSocketOptions().getConnectTimeout()).isEqualTo(CONNECT_TIMEOUT);
    assertThat(used.isAutoReconnect()).isTrue();
    assertThat(used.getDisconnectedBehavior())
        .isEqualTo(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS);
    assertThat(used.getTimeoutOptions().isTimeoutCommands()).isTrue();
    TimeoutOptions.TimeoutSource source = used.getTimeoutOptions().getSource();
    assertThat(Duration.ofNanos(source.getTimeUnit().toNanos(source.getTimeout(null))))
        .isEqualTo(TIMEOUT);

    ClientOptions defaults = ServerConnector.enforced(null, TIMEOUT, TIMEOUT);
    assertThat(defaults.getSocketOptions().isKeepAlive()).isTrue();
    assertThat(defaults.getSocketOptions().getConnectTimeout()).isEqualTo(TIMEOUT);
  }

  @Test
  void aConnectFailureSaysWhetherRedisRefusedOrCouldNotBeReached() {
    StowageException refused =
        RedisErrors.connectFailure(
            "127.0.0.1:7000",
            new RedisConnectionException(
                "Unable to connect",
                new RedisCommandExecutionException("WRONGPASS invalid username-password pair")));
    assertThat(refused)
        .isNotInstanceOf(CacheUnavailableException.class)
        .hasMessage(
            "Redis at 127.0.0.1:7000 refused the credentials: WRONGPASS invalid username-password pair");

    StowageException handshake =
        RedisErrors.connectFailure(
            "127.0.0.1:7000",
            new RedisConnectionException(
                "Unable to connect",
                new SSLHandshakeException("Received fatal alert: certificate_required")));
    assertThat(handshake)
        .isInstanceOf(CacheUnavailableException.class)
        .hasMessage(
            "cannot connect to Redis at 127.0.0.1:7000: the TLS handshake failed (Received fatal alert: certificate_required)");

    StowageException unreachable =
        RedisErrors.connectFailure(
            "127.0.0.1:7000",
            new RedisConnectionException(
                "Unable to connect to 127.0.0.1:7000", new ConnectException("Connection refused")));
    assertThat(unreachable)
        .isInstanceOf(CacheUnavailableException.class)
        .hasMessage(
            "cannot connect to Redis at 127.0.0.1:7000: Unable to connect to 127.0.0.1:7000: Connection refused");
  }

  @Test
  void onAClusterTheSeedsFailuresAreFoundAmongTheSuppressedExceptions() {
    // Lettuce's cluster client reports each seed it could not use as a suppressed exception.
    RedisConnectionException wrongPassword =
        new RedisConnectionException("Unable to establish a connection to Redis Cluster");
    wrongPassword.addSuppressed(
        new RedisConnectionException(
            "Unable to connect to [127.0.0.1:7000]",
            new RedisCommandExecutionException("WRONGPASS invalid username-password pair")));
    assertThat(RedisErrors.connectFailure("cluster 127.0.0.1:7000", wrongPassword))
        .isNotInstanceOf(CacheUnavailableException.class)
        .hasMessage(
            "Redis at cluster 127.0.0.1:7000 refused the credentials: WRONGPASS invalid username-password pair");

    RedisConnectionException noCertificate =
        new RedisConnectionException("Unable to establish a connection to Redis Cluster");
    noCertificate.addSuppressed(
        new RedisConnectionException(
            "Unable to connect to [127.0.0.1:7000]",
            new SSLHandshakeException("Received fatal alert: certificate_required")));
    assertThat(RedisErrors.connectFailure("cluster 127.0.0.1:7000", noCertificate))
        .isInstanceOf(CacheUnavailableException.class)
        .hasMessage(
            "cannot connect to Redis at cluster 127.0.0.1:7000: the TLS handshake failed"
                + " (Received fatal alert: certificate_required)");
  }

  /** A connect that fails with each of {@code failures} in turn, then succeeds; counts attempts. */
  private static final class Attempts implements Supplier<StatefulConnection<byte[], byte[]>> {
    private final List<RuntimeException> failures;
    private int made;

    Attempts(RuntimeException... failures) {
      this.failures = List.of(failures);
    }

    @Override
    public StatefulConnection<byte[], byte[]> get() {
      made++;
      if (made <= failures.size()) {
        throw failures.get(made - 1);
      }
      throw new IllegalStateException("connected (attempt " + made + ")");
    }
  }

  /** How Lettuce 7 reports a handshake whose refusal lost the race with the channel's close. */
  private static RedisConnectionException closedInTheHandshake() {
    return new RedisConnectionException(
        "Unable to connect to 127.0.0.1/<unresolved>:7000",
        new RedisConnectionException("Connection closed prematurely"));
  }

  @Test
  void aHandshakeWhoseReplyLettuceLostIsTriedAgainSoTheRefusalIsReported() {
    RedisConnectionException refused =
        new RedisConnectionException(
            "Unable to connect to 127.0.0.1:7000",
            new RedisCommandExecutionException(
                "NOPERM this user has no permissions to run 'select'"));
    Attempts attempts = new Attempts(closedInTheHandshake(), refused);

    assertThatThrownBy(() -> Connector.connectRetryingLostHandshakes(attempts)).isSameAs(refused);
    assertThat(attempts.made).isEqualTo(2);
  }

  @Test
  void aHandshakeLostOnEveryAttemptIsReportedAfterTheLastAttempt() {
    RedisConnectionException last = closedInTheHandshake();
    Attempts attempts =
        new Attempts(
            closedInTheHandshake(),
            new RedisConnectionException("RedisHandshakeHandler not registered"),
            last,
            closedInTheHandshake());

    assertThatThrownBy(() -> Connector.connectRetryingLostHandshakes(attempts)).isSameAs(last);
    assertThat(attempts.made).isEqualTo(Connector.HANDSHAKE_ATTEMPTS);
    assertThat(RedisErrors.connectFailure("127.0.0.1:7000", last))
        .isInstanceOf(CacheUnavailableException.class);
  }

  @Test
  void anotherFailureIsNotTriedAgainAndASuccessAfterALostHandshakeIsReturned() {
    RedisConnectionException refusedConnection =
        new RedisConnectionException(
            "Unable to connect to 127.0.0.1:7000", new ConnectException("Connection refused"));
    Attempts unreachable = new Attempts(refusedConnection);
    assertThatThrownBy(() -> Connector.connectRetryingLostHandshakes(unreachable))
        .isSameAs(refusedConnection);
    assertThat(unreachable.made).isEqualTo(1);

    Attempts recovered = new Attempts(closedInTheHandshake());
    assertThatThrownBy(() -> Connector.connectRetryingLostHandshakes(recovered))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("connected (attempt 2)");
  }

  @Test
  void aClusterSeedsLostHandshakeIsFoundAmongTheSuppressedExceptions() {
    RedisConnectionException noSeed =
        new RedisConnectionException("Unable to establish a connection to Redis Cluster");
    noSeed.addSuppressed(closedInTheHandshake());

    assertThat(Connector.lostHandshake(noSeed)).isTrue();
    assertThat(
            Connector.lostHandshake(
                new RedisConnectionException(
                    "Unable to connect to 127.0.0.1:7000",
                    new ConnectException("Connection refused"))))
        .isFalse();
  }
}
