package com.example.books;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.stowage.RedisCache;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.CacheManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The guide's application (docs/GUIDE.md, "Spring Boot") with a near cache, the starter still its
 * only dependency: the starter brings Caffeine, so {@code near-cache.enabled=true} needs nothing
 * else.
 */
@WithRedis
@SpringBootTest(
    classes = BooksApplication.class,
    properties = "stowage.caches.books.near-cache.enabled=true")
class NearCacheStarterIntegrationTests {
  private static RedisServer redis;

  @Autowired BookService books;
  @Autowired CacheManager cacheManager;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  @DynamicPropertySource
  static void redisUrl(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> redis.uri());
  }

  @Test
  void theNearCacheWorksWithTheStarterAlone() {
    @SuppressWarnings("unchecked")
    RedisCache<Object, Object> cache =
        (RedisCache<Object, Object>) cacheManager.getCache("books").getNativeCache();
    books.find("978-0140449136");

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(books.find("978-0140449136"))
                  .isEqualTo(new Book("978-0140449136", "The book 978-0140449136"));
              assertThat(cache.stats().nearHits()).isPositive();
            });
    assertThat(books.lookups()).isEqualTo(1);
  }
}
