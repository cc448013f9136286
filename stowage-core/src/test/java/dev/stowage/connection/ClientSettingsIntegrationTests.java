package dev.stowage.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheUnavailableException;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The application's Lettuce ClientResources and ClientOptions, given to the builder. */
@WithRedis
class ClientSettingsIntegrationTests {
  private static final Duration TIMEOUT = Duration.ofMillis(800);

  @Test
  void givenResourcesAreSharedAndLeftRunningWhenStowageCloses(RedisServer redis) throws Exception {
    ClientResources resources = DefaultClientResources.create();
    try {
      Stowage first = Stowage.builder().redis(redis.uri()).clientResources(resources).build();
      try (Stowage second =
          Stowage.builder().redis(redis.uri()).clientResources(resources).build()) {
        first.cache("shared-first", Item.class).build().put("1", Samples.item(1));
        first.close();

        RedisCache<String, Item> items = second.cache("shared-second", Item.class).build();
        items.put("1", Samples.item(1));
        assertThat(items.get("1"))
            .as("closing one Stowage leaves the other working")
            .isEqualTo(Samples.item(1));
      }
      assertThat(resources.eventExecutorGroup().isShuttingDown()).isFalse();
      RedisClient application = RedisClient.create(resources, RedisURI.create(redis.uri()));
      try (StatefulRedisConnection<String, String> connection = application.connect()) {
        assertThat(connection.sync().exists("shared-first:1", "shared-second:1")).isEqualTo(2L);
      } finally {
        application.shutdown();
      }
    } finally {
      assertThat(resources.shutdown(0, 2, TimeUnit.SECONDS).get(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void givenOptionsApplyWhileStowagesOwnGuaranteesStay() throws Exception {
    ClientOptions options =
        ClientOptions.builder()
            .protocolVersion(ProtocolVersion.RESP2)
            .autoReconnect(false)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
            .timeoutOptions(TimeoutOptions.builder().timeoutCommands(false).build())
            .build();
    try (RedisServer redis = RedisServer.start();
        Stowage stowage =
            Stowage.builder()
                .redis(redis.uri() + "?clientName=stowage-options")
                .clientOptions(options)
                .commandTimeout(TIMEOUT)
                .build()) {
      RedisCache<String, Item> items = stowage.cache("options", Item.class).build();
      items.put("1", Samples.item(1));
      assertThat(String.valueOf(redis.reply("CLIENT", "LIST")))
          .as("the application's protocol version")
          .containsPattern("name=stowage-options .*resp=2");

      redis.stop();
      long start = System.nanoTime();
      assertThatThrownBy(() -> items.get("1")).isInstanceOf(CacheUnavailableException.class);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start))
          .as("rejected at once or within the command timeout, not queued")
          .isLessThan(2 * TIMEOUT.toMillis() + 1000);

      redis.restart();
      await()
          .atMost(Duration.ofSeconds(15))
          .ignoreException(CacheUnavailableException.class)
          .untilAsserted(
              () -> {
                items.put("2", Samples.item(2));
                assertThat(items.get("2")).as("reconnected on its own").isEqualTo(Samples.item(2));
              });
    }
  }
}
