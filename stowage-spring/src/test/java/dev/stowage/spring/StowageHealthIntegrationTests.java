package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.Inspector;
import dev.stowage.RedisCache;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The health indicator against a real Redis, and the metrics, health and endpoint configuration
 * backing off, in real Spring contexts.
 */
@WithRedis
class StowageHealthIntegrationTests {
  private static RedisServer redis;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  private static ApplicationContextRunner runner(String redisUri) {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                DataRedisAutoConfiguration.class,
                StowageAutoConfiguration.class,
                StowageMetricsAutoConfiguration.class,
                StowageActuatorAutoConfiguration.class))
        .withPropertyValues(
            "spring.data.redis.url=" + redisUri,
            "spring.data.redis.timeout=1s",
            "management.endpoints.web.exposure.include=stowage");
  }

  @SuppressWarnings("unchecked")
  private static RedisCache<Object, Object> cache(StowageCacheManager manager, String name) {
    return (RedisCache<Object, Object>) manager.getCache(name).getNativeCache();
  }

  @Test
  void upWhileRedisAnswersThenDownOnceItStopped() {
    try (RedisServer own = RedisServer.start()) {
      runner(own.uri())
          .run(
              context -> {
                HealthIndicator health = context.getBean(StowageHealthIndicator.class);
                Health up = health.health(true);
                assertThat(up.getStatus()).isEqualTo(Status.UP);
                assertThat(up.getDetails())
                    .containsEntry("address", "127.0.0.1:" + own.port())
                    .containsEntry("dictionaries", Map.of());

                own.stop();
                await()
                    .atMost(Duration.ofSeconds(10))
                    .untilAsserted(
                        () -> {
                          Health down = health.health(true);
                          assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                          assertThat(down.getDetails())
                              .containsEntry("address", "127.0.0.1:" + own.port());
                          assertThat((String) down.getDetails().get("error"))
                              .contains("CacheUnavailableException")
                              .contains("127.0.0.1:" + own.port());
                        });

                own.restart();
                await()
                    .atMost(Duration.ofSeconds(20))
                    .untilAsserted(
                        () -> assertThat(health.health(true).getStatus()).isEqualTo(Status.UP));
              });
    }
  }

  @Test
  void downWhenRedisLostADictionaryACacheWritesWith() {
    runner(redis.uri())
        .run(
            context -> {
              StowageCacheManager manager = context.getBean(StowageCacheManager.class);
              cache(manager, "visits").putAll(StowageMetricsIntegrationTests.visits(1_100));
              long dictionary = cache(manager, "visits").compression().dictionaryId().orElseThrow();
              HealthIndicator health = context.getBean(StowageHealthIndicator.class);
              assertThat(health.health(true).getStatus()).isEqualTo(Status.UP);
              assertThat(health.health(true).getDetails())
                  .containsEntry("dictionaries", Map.of("visits", Inspector.hexId(dictionary)));

              redis.command("DEL", Inspector.Keys.dictionary(dictionary));

              Health down = health.health(true);
              assertThat(down.getStatus()).isEqualTo(Status.DOWN);
              assertThat(down.getDetails())
                  .containsEntry(
                      "missingDictionaries", List.of(Inspector.Keys.dictionary(dictionary)));
            });
  }

  @Test
  void eachPartIsConfiguredWhenItsLibrariesArePresent() {
    runner(redis.uri())
        .run(
            context -> {
              assertThat(context)
                  .hasSingleBean(StowageHealthIndicator.class)
                  .hasSingleBean(StowageEndpoint.class)
                  .hasSingleBean(StowageCacheMeterBinderProvider.class);
              assertThat(context).hasBean("stowageHealthIndicator");
            });
  }

  @Test
  void theHealthIndicatorCanBeTurnedOffAndTheEndpointIsOnlyThereWhenExposed() {
    runner(redis.uri())
        .withPropertyValues(
            "management.health.stowage.enabled=false",
            "management.endpoints.web.exposure.include=health")
        .run(
            context -> {
              assertThat(context)
                  .hasNotFailed()
                  .doesNotHaveBean(StowageHealthIndicator.class)
                  .doesNotHaveBean(StowageEndpoint.class)
                  .hasSingleBean(StowageCacheManager.class);
            });
  }

  @Test
  void eachPartBacksOffWithoutItsLibraries() {
    runner(redis.uri())
        .withClassLoader(new FilteredClassLoader(MeterRegistry.class))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(StowageCacheMeterBinderProvider.class)
                    .hasSingleBean(StowageHealthIndicator.class));
    runner(redis.uri())
        .withClassLoader(new FilteredClassLoader(HealthIndicator.class))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(StowageHealthIndicator.class)
                    .hasSingleBean(StowageEndpoint.class));
    runner(redis.uri())
        .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate."))
        .run(
            context ->
                assertThat(context)
                    .hasNotFailed()
                    .doesNotHaveBean(StowageEndpoint.class)
                    .hasSingleBean(StowageHealthIndicator.class)
                    .hasSingleBean(StowageCacheManager.class));
  }
}
