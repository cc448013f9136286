package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.CacheUnavailableException;
import dev.stowage.Stowage;
import dev.stowage.StowageInternals;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.testkit.WithRedis;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a health check asks: {@link Stowage#ping()} and {@link DictionaryStore#isStored}. */
@WithRedis
class PingIntegrationTests {

  @Test
  void pingAnswersWhileRedisRunsAndThrowsUnavailableOnceItStopped() {
    try (RedisServer own = RedisServer.start();
        Stowage stowage =
            Stowage.builder().redis(own.uri()).commandTimeout(Duration.ofSeconds(1)).build()) {
      assertThat(stowage.ping()).isPositive();

      own.stop();
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () ->
                  assertThatThrownBy(stowage::ping)
                      .isInstanceOf(CacheUnavailableException.class)
                      .hasMessageContaining(own.host()));

      own.restart();
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(() -> assertThat(stowage.ping()).isPositive());
    }
  }

  @Test
  void pingOnAClosedStowageSaysItIsClosed(RedisServer redis) {
    Stowage stowage = Stowage.builder().redis(redis.uri()).build();
    stowage.close();

    assertThatThrownBy(stowage::ping)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("closed");
  }

  @Test
  void isStoredAsksRedisWhateverTheProcessHasCached(RedisServer redis) {
    try (Stowage stowage = Stowage.builder().redis(redis.uri()).build()) {
      ZstdDictionary dictionary =
          ZstdDictionary.of("a dictionary of health checks".getBytes(StandardCharsets.UTF_8));
      DictionaryStore store = StowageInternals.dictionaries(stowage);
      assertThat(store.isStored(dictionary.id())).isFalse();

      store.save(dictionary);
      assertThat(store.isStored(dictionary.id())).isTrue();

      redis.command("DEL", DictionaryStore.key(dictionary.id()));
      assertThat(store.isLoaded(dictionary.id())).isTrue();
      assertThat(store.isStored(dictionary.id())).isFalse();
    }
  }
}
