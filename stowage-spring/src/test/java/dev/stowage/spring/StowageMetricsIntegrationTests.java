package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.RedisCache;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.spring.StowageEndpoint.CacheDescriptor;
import dev.stowage.spring.app.LibraryApplication;
import dev.stowage.spring.app.LibraryService;
import dev.stowage.testkit.WithRedis;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.cache.Cache;
import org.springframework.cache.CacheManager;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Micrometer's and Stowage's meters, the health indicator and the {@code stowage} endpoint in a
 * real Spring Boot application with the actuator, configured by the auto-configuration alone,
 * against a real Redis. The context is shared by the tests, so each uses caches or keys of its own.
 */
@WithRedis
@SpringBootTest(
    classes = LibraryApplication.class,
    properties = {
      "stowage.caches.books.ttl=10m",
      "stowage.caches.texts.compression=zstd",
      "stowage.caches.near.near-cache.enabled=true",
      "management.endpoints.web.exposure.include=health,stowage"
    })
class StowageMetricsIntegrationTests {
  private static RedisServer redis;

  @Autowired LibraryService library;
  @Autowired CacheManager cacheManager;
  @Autowired MeterRegistry registry;
  @Autowired StowageEndpoint endpoint;
  @Autowired StowageHealthIndicator stowageHealthIndicator;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  @DynamicPropertySource
  static void redisUrl(DynamicPropertyRegistry registry) {
    registry.add("spring.data.redis.url", () -> redis.uri());
  }

  private RequiredSearch meter(String name, String cache) {
    return registry.get(name).tag("cache", cache).tag("cache.manager", "cacheManager");
  }

  private double count(String name, String cache) {
    return meter(name, cache).functionCounter().count();
  }

  private double gets(String cache, String result) {
    return meter("cache.gets", cache).tag("result", result).functionCounter().count();
  }

  @SuppressWarnings("unchecked")
  private RedisCache<Object, Object> stowageCache(String name) {
    return (RedisCache<Object, Object>) cacheManager.getCache(name).getNativeCache();
  }

  @Test
  void bootBindsTheConfiguredCachesWithMicrometersCacheMeters() {
    double misses = gets("books", "miss");
    double hits = gets("books", "hit");
    double puts = count("cache.puts", "books");
    double removals = count("cache.removals", "books");

    library.find(101);
    library.find(101);
    library.evict(101);
    library.evict(101);

    assertThat(gets("books", "miss") - misses).isEqualTo(1);
    assertThat(gets("books", "hit") - hits).isEqualTo(1);
    assertThat(count("cache.puts", "books") - puts).isEqualTo(1);
    assertThat(count("cache.removals", "books") - removals)
        .as("the second evict removed nothing")
        .isEqualTo(1);
    assertThat(registry.find("cache.evictions").tag("cache", "books").meters())
        .as(
            "as Boot's Redis cache metrics: deletes are removals; Redis's own evictions are not counted")
        .isEmpty();
    assertThat(registry.find("cache.size").tag("cache", "books").meters())
        .as("Redis cannot count a cache's keys")
        .isEmpty();
  }

  @Test
  void cachesMadeOnFirstUseAreBoundAsTheyAreMade() {
    assertThat(registry.find("cache.gets").tag("cache", "searches").meters()).isEmpty();

    library.search("Calvino", 3);
    library.search("Calvino", 3);

    assertThat(gets("searches", "miss")).isEqualTo(1);
    assertThat(gets("searches", "hit")).isEqualTo(1);
    assertThat(count("cache.puts", "searches")).isEqualTo(1);
  }

  @Test
  void theLoadMetersCountTheLoadsOfSyncCacheable() throws InterruptedException {
    library.slow("timed");
    library.slow("timed");

    assertThat(meter("cache.load", "slow").tag("result", "success").functionCounter().count())
        .isEqualTo(1);
    assertThat(meter("cache.load", "slow").tag("result", "failure").functionCounter().count())
        .isZero();
    assertThat(meter("cache.load.duration", "slow").timeGauge().value(TimeUnit.NANOSECONDS))
        .as("the gauge keeps seconds, so nanoseconds come back within rounding")
        .isCloseTo((double) stowageCache("slow").stats().loadNanos(), within(1.0));
    assertThat(registry.find("stowage.cache.load").meters()).isEmpty();
  }

  @Test
  void aValueThatCannotBeReadIsADecodeFailure() {
    double failures = count("stowage.cache.decode.failures", "books");
    redis.command("SET", "books::-404", "not a Stowage value");

    library.find(-404);

    assertThat(count("stowage.cache.decode.failures", "books") - failures).isEqualTo(1);
  }

  @Test
  void theBytesCountersFollowWhatRedisHolds() {
    library.text(1);
    library.text(2);

    long stored =
        (Long) redis.reply("STRLEN", "texts::1") + (Long) redis.reply("STRLEN", "texts::2");
    assertThat(count("stowage.cache.written", "texts")).isEqualTo((double) stored);
    assertThat(meter("stowage.cache.written", "texts").functionCounter().getId().getBaseUnit())
        .isEqualTo("bytes");
    assertThat(meter("stowage.cache.encoded", "texts").functionCounter().getId().getBaseUnit())
        .isEqualTo("bytes");
    // zstd shrinks a sentence repeated fifty times to a small part of it.
    assertThat(count("stowage.cache.encoded", "texts")).isGreaterThan(10.0 * stored);
  }

  @Test
  void theDictionaryInfoGaugeAndTheHealthNameTheDictionaryTheCacheLearned() {
    Cache learned = cacheManager.getCache("learned");
    publish();
    assertThat(
            meter("stowage.cache.dictionary", "learned").tag("dictionary", "none").gauge().value())
        .isEqualTo(1);

    stowageCache("learned")
        .putAll(visits(1_100)); // completes the samples: trains before it returns

    long id = stowageCache("learned").compression().dictionaryId().orElseThrow();
    publish();
    assertThat(registry.find("stowage.cache.dictionary").tag("cache", "learned").gauges())
        .as("one info gauge of 1, the dictionary as its tag")
        .singleElement()
        .satisfies(
            gauge -> {
              assertThat(gauge.getId().getTag("dictionary")).isEqualTo(String.format("%08x", id));
              assertThat(gauge.value()).isEqualTo(1);
            });
    assertThat(learned.get("visit-7", String.class)).isEqualTo(visits(1_100).get("visit-7"));
    Health health = stowageHealthIndicator.health(true);
    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails()).containsEntry("address", "127.0.0.1:" + redis.port());
    assertThat(health.getDetails())
        .containsEntry("dictionaries", Map.of("learned", String.format("%08x", id)));
  }

  /** Reads every meter, as a registry does when it publishes or Prometheus scrapes it. */
  private void publish() {
    registry.getMeters().forEach(meter -> meter.measure().forEach(Measurement::getValue));
  }

  @Test
  void aPrometheusScrapeShowsBootsAndMicrometersNamesWithEachWordOnce() {
    library.find(404_404);
    cacheManager.getCache("near").put("scraped", "value");
    PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    for (String name : cacheManager.getCacheNames()) {
      if (cacheManager.getCache(name) instanceof StowageCache cache) {
        new StowageCacheMetrics(cache, Tags.of("cache.manager", "cacheManager")).bindTo(prometheus);
      }
    }
    prometheus
        .scrape(); // the first read re-tags the dictionary gauge, as a registry's first publish
    // does
    String scrape = prometheus.scrape();

    Set<String> names = new TreeSet<>();
    scrape
        .lines()
        .filter(line -> !line.isBlank() && !line.startsWith("#"))
        .forEach(line -> names.add(line.split("[{ ]", 2)[0]));
    assertThat(names)
        .contains(
            "cache_gets_total",
            "cache_puts_total",
            "cache_removals_total",
            "cache_load_total",
            "cache_load_duration_seconds",
            "stowage_cache_decode_failures_total",
            "stowage_cache_redis_errors_total",
            "stowage_cache_encoded_bytes_total",
            "stowage_cache_written_bytes_total",
            "stowage_cache_dictionary",
            "stowage_cache_near_gets_total");
    assertThat(names)
        .doesNotContain(
            "cache_evictions_total",
            "stowage_cache_load_seconds_count",
            "stowage_cache_bytes_encoded_bytes_total",
            "stowage_cache_bytes_written_bytes_total");
    for (String name : names) {
      assertThat(List.of(name.split("_"))).as("each word of %s once", name).doesNotHaveDuplicates();
    }
    assertThat(scrape)
        .containsPattern("stowage_cache_dictionary\\{[^}]*dictionary=\"[^\"]+\"[^}]*\\} 1");
  }

  /** Texts alike but not the same, for a dictionary to learn from. */
  static Map<String, String> visits(int n) {
    String[] cities = {"Lisbon", "Turin", "Ghent", "Porto", "Lyon", "Kraków", "Bergen"};
    String[] pages = {"/books", "/authors", "/search?q=calvino", "/cart", "/books/recent", "/help"};
    Map<String, String> visits = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      visits.put(
          "visit-" + i,
          "{\"visitor\":"
              + (i * 7919 % 100_003)
              + ",\"city\":\""
              + cities[i % cities.length]
              + "\",\"page\":\""
              + pages[(i / 7) % pages.length]
              + "\",\"seconds\":"
              + (i * 31 % 600)
              + ",\"referrer\":\""
              + pages[(i / 3) % pages.length]
              + "\",\"returning\":"
              + (i % 3 == 0)
              + "}");
    }
    return visits;
  }

  @Test
  void nearCacheReadsHaveTheirMeters() {
    Cache near = cacheManager.getCache("near");
    near.put("a", "kept in the process");

    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              assertThat(near.get("a", String.class)).isEqualTo("kept in the process");
              assertThat(
                      meter("stowage.cache.near.gets", "near")
                          .tag("result", "hit")
                          .functionCounter()
                          .count())
                  .isGreaterThanOrEqualTo(1);
            });
    assertThat(
            meter("stowage.cache.near.gets", "near")
                .tag("result", "miss")
                .functionCounter()
                .count())
        .isGreaterThanOrEqualTo(1);
    assertThat(registry.find("stowage.cache.near.gets").tag("cache", "books").meters())
        .as("only caches with a near cache")
        .isEmpty();
  }

  @Test
  void theEndpointListsTheCachesWithTheirSettingsAndStatistics() {
    library.find(202);

    CacheDescriptor books = endpoint.cache("books");
    assertThat(books).isNotNull();
    assertThat(books.keyPrefix()).isEqualTo("books::");
    assertThat(books.ttl()).isEqualTo("PT10M");
    assertThat(books.ttlJitter()).isEqualTo(0.1);
    assertThat(books.codec()).isEqualTo("class-named msgpack");
    assertThat(books.compression()).isEqualTo("learned");
    assertThat(books.writtenWith())
        .as("the standard compression until a dictionary is learned")
        .isEqualTo(Compression.standard().toString());
    assertThat(books.dictionary()).isNull();
    assertThat(books.nearCache()).isNull();
    assertThat(books.stats().puts()).isPositive();
    assertThat(books.stats()).isEqualTo(StowageEndpoint.Counters.of(stowageCache("books").stats()));

    assertThat(endpoint.caches().redis()).isEqualTo("127.0.0.1:" + redis.port());
    assertThat(endpoint.caches().caches())
        .extracting(CacheDescriptor::name)
        .contains("books", "texts", "near");
    assertThat(endpoint.cache("texts").compression()).isEqualTo("zstd");
    assertThat(endpoint.cache("near").nearCache()).isNotNull();
    assertThat(endpoint.cache("never made")).isNull();
  }

  @Test
  void theEndpointsAnswerIsPlainJson() throws Exception {
    library.find(303);

    String json = new ObjectMapper().writeValueAsString(endpoint.caches());

    assertThat(json)
        .contains(
            "\"name\":\"books\"",
            "\"keyPrefix\":\"books::\"",
            "\"ttl\":\"PT10M\"",
            "\"codec\":\"class-named msgpack\"",
            "\"stats\":{\"hits\":");
  }
}
