package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.embedded.RedisServer;
import dev.stowage.spring.app.LibraryApplication;
import dev.stowage.testkit.WithRedis;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Stowage's start-up errors as Spring Boot reports them: "APPLICATION FAILED TO START" with a
 * description naming the property and an action, not a raw stack trace. Real applications, real
 * Redis.
 */
@WithRedis
@ExtendWith(OutputCaptureExtension.class)
class StowageFailureAnalyzerIntegrationTests {
  private static RedisServer redis;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  private static void start(String... properties) {
    assertThatThrownBy(
            () ->
                new SpringApplicationBuilder(LibraryApplication.class)
                    .web(WebApplicationType.NONE)
                    .properties("spring.data.redis.url=" + redis.uri())
                    .properties(properties)
                    .run()
                    .close())
        .isInstanceOf(Exception.class);
  }

  /** The report Boot printed: from its title to the end of the action. */
  private static String report(CapturedOutput output) {
    String all = output.getAll();
    int start = all.lastIndexOf("APPLICATION FAILED TO START");
    assertThat(start).as("Boot's failure report in:%n%s", all).isNotNegative();
    return all.substring(start);
  }

  @Test
  void aBadPropertyValueIsDescribedWithTheActionToTake(CapturedOutput output) {
    start("stowage.caches.books.ttl=-5s");

    String report = report(output);
    assertThat(report)
        .contains(
            "Description:",
            "stowage.caches.books.ttl must not be negative, got PT-5S",
            "Action:",
            "Change stowage.caches.books.ttl");
  }

  @Test
  void aMissingLibraryNamesItsCoordinates(CapturedOutput output) {
    start("stowage.caches.books.codec=kryo");

    String report = report(output);
    assertThat(report)
        .contains(
            "Description:",
            "stowage.caches.books.codec",
            "Action:",
            "Add com.esotericsoftware:kryo");
  }

  @Test
  void aSpringCacheSettingStowageCannotHonourNamesTheStowageProperty(CapturedOutput output) {
    start("spring.cache.redis.use-key-prefix=false");

    String report = report(output);
    assertThat(report)
        .contains(
            "Description:",
            "spring.cache.redis.use-key-prefix=false is not supported",
            "Action:",
            "stowage.caches.<name>.key-prefix");
  }

  @Test
  void aRedisThatCannotBeReachedWhenTheStartWaitsForIt(CapturedOutput output) {
    try (RedisServer down = RedisServer.start()) {
      down.stop();
      assertThatThrownBy(
              () ->
                  new SpringApplicationBuilder(LibraryApplication.class)
                      .web(WebApplicationType.NONE)
                      .properties(
                          "spring.data.redis.url=" + down.uri(),
                          "spring.data.redis.timeout=300ms",
                          "stowage.connect-in-background=false")
                      .run()
                      .close())
          .isInstanceOf(Exception.class);

      String report = report(output);
      assertThat(report)
          .contains(
              "Description:",
              "127.0.0.1:" + down.port(),
              "Action:",
              "stowage.connect-in-background");
    }
  }
}
