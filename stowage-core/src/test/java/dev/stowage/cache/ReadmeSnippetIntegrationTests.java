package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.Item;
import dev.stowage.testkit.WithRedis;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Runs the README's quick start, and checks that the README shows it as it is here. */
@WithRedis
class ReadmeSnippetIntegrationTests {
  private static final Path SOURCE =
      Path.of("src/test/java/dev/stowage/cache/ReadmeSnippetIntegrationTests.java");
  private static final Path README = Path.of("../README.md");

  /** The system of record in the snippet. */
  static final class Database {
    final AtomicInteger finds = new AtomicInteger();

    Item find(String id) {
      finds.incrementAndGet();
      return new Item(Long.parseLong(id), "item " + id, "from the database", 100, 1);
    }
  }

  @Test
  @SuppressWarnings("UnusedVariable") // the snippet names the result's type for its reader
  void theSnippetRuns(RedisServer redis) {
    String redisUri = redis.uri();
    Map<String, Item> itemsById =
        Map.of("1", new Item(1, "one", "first", 10, 3), "2", new Item(2, "two", "second", 20, 0));
    Database database = new Database();

    // README begin
    try (Stowage stowage = Stowage.builder().redis(redisUri).build()) {
      RedisCache<String, Item> items = stowage.cache("items", Item.class).build();
      items.putAll(itemsById); // one round trip per 1,000 keys
      Item item = items.getOrLoad("42", database::find); // callers of one key share one load
    }
    // README end

    assertThat(database.finds).hasValue(1);
    try (Stowage stowage = Stowage.builder().redis(redisUri).build()) {
      RedisCache<String, Item> items = stowage.cache("items", Item.class).build();
      assertThat(items.getAll(List.of("1", "2", "42"))).containsOnlyKeys("1", "2", "42");
      assertThat(items.get("42")).isEqualTo(database.find("42"));
    }
  }

  @Test
  void theReadmeShowsTheSnippet() throws IOException {
    List<String> lines = Files.readAllLines(SOURCE);
    int begin = lines.indexOf("    // README begin");
    int end = lines.indexOf("    // README end");
    assertThat(begin).isPositive();
    String snippet =
        lines.subList(begin + 1, end).stream()
            .map(line -> line.substring(Math.min(4, line.length())))
            .collect(Collectors.joining("\n"));

    String readme = Files.readString(README);
    assertThat(readme).contains("```java\n" + snippet + "\n```");
    // A quick start of six lines or fewer.
    assertThat(Arrays.stream(snippet.split("\n"))).hasSizeLessThanOrEqualTo(6);
  }
}
