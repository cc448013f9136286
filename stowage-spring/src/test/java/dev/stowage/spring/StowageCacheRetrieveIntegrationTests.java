package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * What Spring's cache interceptor chains onto {@link StowageCache#retrieve} runs off Lettuce's I/O
 * thread, so that a blocking put there (as the interceptor makes for a {@code CompletableFuture}
 * result) is answered instead of waiting out the command timeout.
 */
@WithRedis
class StowageCacheRetrieveIntegrationTests {

  private static ApplicationContextRunner runner(RedisServer redis) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, StowageAutoConfiguration.class))
        .withPropertyValues("spring.data.redis.url=" + redis.uri(), "spring.data.redis.timeout=1s");
  }

  @Test
  void aBlockingPutChainedOntoRetrieveIsAnswered(RedisServer redis) {
    runner(redis)
        .run(
            context -> {
              StowageCache cache =
                  (StowageCache) context.getBean(StowageCacheManager.class).getCache("retrieved");
              cache.put("found", "a value");

              for (int i = 0; i < 20; i++) {
                String other = "other-" + i;
                CompletableFuture<String> chained =
                    cache
                        .retrieve("found")
                        .thenApply(
                            found -> {
                              cache.put(other, "written where retrieve completed");
                              return Thread.currentThread().getName();
                            });
                assertThat(chained.get(10, TimeUnit.SECONDS)).doesNotStartWith("lettuce");
                assertThat(cache.get(other, String.class))
                    .isEqualTo("written where retrieve completed");
              }
            });
  }

  @Test
  void aBlockingPutChainedOntoALoadingRetrieveIsAnswered(RedisServer redis) {
    runner(redis)
        .run(
            context -> {
              StowageCache cache =
                  (StowageCache) context.getBean(StowageCacheManager.class).getCache("loaded");

              for (int i = 0; i < 20; i++) {
                String key = "key-" + i;
                CompletableFuture<String> chained =
                    cache
                        .retrieve(key, () -> CompletableFuture.completedFuture("loaded"))
                        .thenApply(
                            loaded -> {
                              cache.put(key + "-copy", loaded);
                              return Thread.currentThread().getName();
                            });
                assertThat(chained.get(10, TimeUnit.SECONDS)).doesNotStartWith("lettuce");
                assertThat(cache.get(key, String.class)).isEqualTo("loaded");
                assertThat(cache.get(key + "-copy", String.class)).isEqualTo("loaded");
              }
            });
  }
}
