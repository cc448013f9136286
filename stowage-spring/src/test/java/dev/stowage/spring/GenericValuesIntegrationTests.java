package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.embedded.RedisServer;
import dev.stowage.spring.app.Book;
import dev.stowage.testkit.WithRedis;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Cached methods whose results are lists and maps of records, in a real Spring context against a
 * real Redis: with a {@code type} naming the generic type, and without one.
 */
@WithRedis
class GenericValuesIntegrationTests {
  private static RedisServer redis;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  @AfterEach
  void empty() {
    redis.flushAll();
  }

  /** Cached methods returning lists and maps of books, counting their calls. */
  public static class Shelf {
    private final AtomicInteger calls = new AtomicInteger();

    /** Calls so far (read through a method: Spring's proxy of this class has no fields). */
    public int calls() {
      return calls.get();
    }

    @Cacheable("lists")
    public List<Book> byAuthor(String author) {
      calls.incrementAndGet();
      return List.of(new Book(1, author + " 1"), new Book(2, author + " 2"));
    }

    @Cacheable("maps")
    public Map<String, Book> index(String author) {
      calls.incrementAndGet();
      Map<String, Book> index = new LinkedHashMap<>();
      index.put("b", new Book(2, author + " 2"));
      index.put("a", new Book(1, author + " 1"));
      return index;
    }

    @Cacheable("mixed")
    public List<Object> mixed(String author) {
      calls.incrementAndGet();
      return List.of(new Book(1, author), author);
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class ShelfApplication {
    @Bean
    Shelf shelf() {
      return new Shelf();
    }
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, StowageAutoConfiguration.class))
        .withUserConfiguration(ShelfApplication.class)
        .withPropertyValues(
            "spring.data.redis.url=" + redis.uri(),
            "stowage.allowed-packages=dev.stowage.spring.app");
  }

  private static void listsAndMapsAreCachedAsTheyWere(Shelf shelf) {
    List<Book> first = shelf.byAuthor("Austen");
    List<Book> second = shelf.byAuthor("Austen");
    assertThat(second)
        .isEqualTo(first)
        .allSatisfy(book -> assertThat(book).isInstanceOf(Book.class));
    Map<String, Book> index = shelf.index("Austen");
    assertThat(shelf.index("Austen"))
        .isEqualTo(index)
        .containsKeys("b", "a")
        .allSatisfy((key, book) -> assertThat(book).isInstanceOf(Book.class));
    assertThat(new ArrayList<>(shelf.index("Austen").keySet())).containsExactly("b", "a");
    assertThat(shelf.calls()).isEqualTo(2);
  }

  @Test
  void aListOrMapOfRecordsIsCachedWithoutAType() {
    runner()
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              listsAndMapsAreCachedAsTheyWere(context.getBean(Shelf.class));
              assertThat((String) redis.reply("GET", "lists::Austen"))
                  .contains("java.util.List<dev.stowage.spring.app.Book>");
            });
  }

  @Test
  void aTypeWithGenericsTypesTheCache() {
    runner()
        .withPropertyValues(
            "stowage.caches.lists.type=java.util.List<dev.stowage.spring.app.Book>",
            "stowage.caches.maps.type=java.util.Map<java.lang.String, dev.stowage.spring.app.Book>")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              listsAndMapsAreCachedAsTheyWere(context.getBean(Shelf.class));
              assertThat((String) redis.reply("GET", "lists::Austen"))
                  .doesNotContain("java.util.List");
            });
  }

  @Test
  void aListWhoseTypeCannotBeToldRunsTheMethodUncached() {
    runner()
        .run(
            context -> {
              Shelf shelf = context.getBean(Shelf.class);
              assertThat(shelf.mixed("Austen")).containsExactly(new Book(1, "Austen"), "Austen");
              assertThat(shelf.mixed("Austen")).containsExactly(new Book(1, "Austen"), "Austen");
              assertThat(shelf.calls()).isEqualTo(2);
              assertThat(redis.reply("EXISTS", "mixed::Austen")).isEqualTo(0L);
            });
  }

  @Test
  void aTypeThatIsUnknownOrMalformedFailsTheStartNamingTheProperty() {
    runner()
        .withPropertyValues("stowage.caches.lists.type=java.util.List<com.example.Missing>")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessage(
                        "stowage.caches.lists.type: class"
                            + " com.example.Missing not found (at 15 in 'java.util.List<com.example.Missing>')"));
    runner()
        .withPropertyValues("stowage.defaults.type=java.util.List<dev.stowage.spring.app.Book")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageStartingWith(
                        "stowage.defaults.type:"
                            + " 'java.util.List<dev.stowage.spring.app.Book' is not a Java type: '>' expected at 42"));
    runner()
        .withPropertyValues("stowage.caches.lists.type=java.util.List")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .rootCause()
                    .hasMessageStartingWith(
                        "stowage.caches.lists.type:"
                            + " java.util.List needs its type argument(s)"));
    runner()
        .withPropertyValues(
            "stowage.caches.lists.type=java.util.List<dev.stowage.spring.app.Book>",
            "stowage.caches.lists.codec=kryo")
        .run(
            context ->
                assertThat(context.getStartupFailure())
                    .hasStackTraceContaining(
                        "stowage.caches.lists.codec with"
                            + " stowage.caches.lists.type=java.util.List<dev.stowage.spring.app.Book>: codec kryo takes a class, not"
                            + " java.util.List<dev.stowage.spring.app.Book>; choose msgpack-compact (the default), msgpack or json"));
  }
}
