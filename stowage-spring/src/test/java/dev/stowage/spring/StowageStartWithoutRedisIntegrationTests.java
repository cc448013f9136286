package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.embedded.RedisServer;
import dev.stowage.spring.app.Book;
import dev.stowage.spring.app.LibraryApplication;
import dev.stowage.spring.app.LibraryService;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.cache.annotation.CachingConfigurer;
import org.springframework.cache.interceptor.CacheErrorHandler;
import org.springframework.cache.interceptor.LoggingCacheErrorHandler;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * An application started while its Redis is down, with the default settings: it starts, its health
 * is DOWN, its cached methods answer through the method ({@code load-when-unavailable} for a {@code
 * sync = true} method, a {@link CachingConfigurer#errorHandler()} for the others), and once Redis
 * starts on the configured port it turns UP and caches again. A real Redis, started late.
 */
class StowageStartWithoutRedisIntegrationTests {

  @Test
  void startsWhileRedisIsDownServesThroughTheMethodsAndTurnsHealthyOnceRedisStarts()
      throws InterruptedException {
    try (RedisServer late = RedisServer.start()) {
      late.stop(); // its port, with nothing listening until restart()
      try (ConfigurableApplicationContext context =
          new SpringApplicationBuilder(LibraryApplication.class, ErrorsLogged.class)
              .web(WebApplicationType.NONE)
              .properties(
                  "spring.data.redis.url=" + late.uri(),
                  "spring.data.redis.timeout=500ms",
                  "stowage.caches.slow.load-when-unavailable=true")
              .run()) {
        LibraryService library = context.getBean(LibraryService.class);
        StowageHealthIndicator health = context.getBean(StowageHealthIndicator.class);
        Health down = health.health(true);
        assertThat(down.getStatus()).isEqualTo(Status.DOWN);
        assertThat(down.getDetails()).containsEntry("address", "127.0.0.1:" + late.port());

        // Through the methods, while Redis is down.
        long start = System.nanoTime();
        assertThat(library.slow("first")).isEqualTo("loaded first");
        assertThat(library.slow("first")).isEqualTo("loaded first");
        assertThat(library.slowLoads()).as("nothing is cached while Redis is down").isEqualTo(2);
        assertThat(library.find(7)).isEqualTo(new Book(7, "Book 7"));
        assertThat(library.finds()).isEqualTo(1);
        assertThat((System.nanoTime() - start) / 1_000_000)
            .as("calls fail at once, not after the timeout")
            .isLessThan(2_000);

        late.restart();
        await()
            .atMost(Duration.ofSeconds(20))
            .untilAsserted(() -> assertThat(health.health(true).getStatus()).isEqualTo(Status.UP));

        assertThat(library.slow("second")).isEqualTo("loaded second");
        assertThat(library.slow("second")).isEqualTo("loaded second");
        assertThat(library.slowLoads()).as("cached again").isEqualTo(3);
        assertThat(late.reply("EXISTS", "slow::second")).isEqualTo(1L);
        library.find(8);
        library.find(8);
        assertThat(library.finds()).isEqualTo(2);
        assertThat(late.reply("EXISTS", "books::8")).isEqualTo(1L);
      }
    }
  }

  /**
   * The application's own error handler: a failed cache read is a miss, a failed write is logged.
   */
  @Configuration(proxyBeanMethods = false)
  static class ErrorsLogged implements CachingConfigurer {
    @Override
    public CacheErrorHandler errorHandler() {
      return new LoggingCacheErrorHandler();
    }
  }
}
