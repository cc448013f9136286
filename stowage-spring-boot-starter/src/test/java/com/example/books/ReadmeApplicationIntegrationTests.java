package com.example.books;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.embedded.RedisServer;
import dev.stowage.spring.StowageCacheManager;
import dev.stowage.testkit.WithRedis;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.CacheManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The guide's application (docs/GUIDE.md, "Spring Boot"), exactly (BooksApplication, Book,
 * BookService), with the starter as its only dependency: its {@code @Cacheable} method caches
 * through Stowage in a real Redis.
 */
@WithRedis
@SpringBootTest(classes = BooksApplication.class)
class ReadmeApplicationIntegrationTests {
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
  void theCacheableMethodCachesThroughStowage() {
    assertThat(books.find("978-0441013593"))
        .isEqualTo(new Book("978-0441013593", "The book 978-0441013593"));
    assertThat(books.find("978-0441013593"))
        .isEqualTo(new Book("978-0441013593", "The book 978-0441013593"));

    assertThat(books.lookups()).isEqualTo(1);
    assertThat(redis.reply("EXISTS", "books::978-0441013593")).isEqualTo(1L);
    assertThat(cacheManager).isInstanceOf(StowageCacheManager.class);
  }
}
