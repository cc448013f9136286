package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.RedisCache;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.support.NullValue;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.GenericJackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * docs/MIGRATION.md's rolling deploy with properties alone: an old application caching through
 * Spring Data Redis's own {@code RedisCacheManager} (GenericJackson2JsonRedisSerializer, or the
 * default JDK serializer) and the new one through the starter, as real Spring contexts on one real
 * Redis, calling the same {@code @Cacheable} method. Every call succeeds on both versions at every
 * step (a {@code SerializationException} would fail it), and the calls that reach the method are
 * counted.
 */
@WithRedis
class SpringCacheMigrationIntegrationTests {
  private static RedisServer redis;

  @BeforeAll
  static void redis(RedisServer server) {
    redis = server;
  }

  @BeforeEach
  void empty() {
    redis.flushAll();
  }

  /** A cached value: a record, Serializable for the JDK serializer. */
  public record Loan(long id, String reader) implements Serializable {}

  /** The cached method of both versions. */
  public static class LoanService {
    private final AtomicInteger calls = new AtomicInteger();

    /** Null for a negative id. */
    @Cacheable("loans")
    public @Nullable Loan find(long id) {
      calls.incrementAndGet();
      return id < 0 ? null : new Loan(id, "reader " + id);
    }

    public int calls() {
      return calls.get();
    }
  }

  /**
   * The old version: Spring's RedisCacheManager, with the value serializer {@code old.values}
   * names.
   */
  @Configuration(proxyBeanMethods = false)
  @EnableCaching
  static class OldApplication {
    @Bean
    LettuceConnectionFactory connections() {
      return new LettuceConnectionFactory(
          new RedisStandaloneConfiguration(redis.host(), redis.port()));
    }

    @Bean
    RedisCacheManager cacheManager(LettuceConnectionFactory connections, Environment environment) {
      RedisSerializer<?> values =
          "spring-json".equals(environment.getProperty("old.values"))
              ? new GenericJackson2JsonRedisSerializer()
              : RedisSerializer.java(OldApplication.class.getClassLoader());
      return RedisCacheManager.builder(connections)
          .cacheDefaults(
              RedisCacheConfiguration.defaultCacheConfig()
                  .serializeValuesWith(SerializationPair.fromSerializer(values)))
          .build();
    }

    @Bean
    LoanService loans() {
      return new LoanService();
    }
  }

  /** The new version: the starter, and the same service. */
  @Configuration(proxyBeanMethods = false)
  static class NewApplication {
    @Bean
    LoanService loans() {
      return new LoanService();
    }
  }

  private static ApplicationContextRunner oldVersion(String values) {
    return new ApplicationContextRunner()
        .withUserConfiguration(OldApplication.class)
        .withPropertyValues("old.values=" + values);
  }

  private static ApplicationContextRunner newVersion(String... properties) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "spring.data.redis.url=" + redis.uri(),
                "stowage.allowed-packages=dev.stowage.spring"));
    all.addAll(List.of(properties));
    return new ApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, StowageAutoConfiguration.class))
        .withUserConfiguration(NewApplication.class)
        .withPropertyValues(all.toArray(String[]::new));
  }

  @SuppressWarnings("unchecked")
  private static RedisCache<Object, Object> loansCache(AssertableApplicationContext context) {
    return (RedisCache<Object, Object>)
        context.getBean(CacheManager.class).getCache("loans").getNativeCache();
  }

  private static byte[] stored(String key) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      byte[] value = connection.sync().get(key.getBytes(StandardCharsets.UTF_8));
      assertThat(value).as(key).isNotNull();
      return value;
    } finally {
      client.shutdown();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"spring-json", "jdk"})
  void aSpringCacheMovesToTheStarterWithPropertiesAloneWhileTheOldVersionKeepsReading(
      String legacy) {
    oldVersion(legacy)
        .run(
            old -> {
              assertThat(old).hasNotFailed();
              LoanService oldLoans = old.getBean(LoanService.class);
              assertThat(oldLoans.find(1)).isEqualTo(new Loan(1, "reader 1"));
              assertThat(oldLoans.find(2)).isEqualTo(new Loan(2, "reader 2"));
              assertThat(oldLoans.find(-1)).isNull();
              assertThat(oldLoans.calls()).isEqualTo(3);

              // Step 1, the readers: deployed while the old version runs.
              newVersion(
                      "stowage.caches.loans.legacy-codec=" + legacy,
                      "stowage.caches.loans.write-legacy=true")
                  .run(
                      reader -> {
                        assertThat(reader).hasNotFailed();
                        LoanService loans = reader.getBean(LoanService.class);
                        assertThat(loans.find(1)).isEqualTo(new Loan(1, "reader 1"));
                        assertThat(loans.find(2)).isEqualTo(new Loan(2, "reader 2"));
                        assertThat(loans.find(-1)).as("Spring's cached null").isNull();
                        assertThat(loans.calls())
                            .as("what Spring cached, its null included, reads as hits")
                            .isZero();

                        assertThat(loans.find(3)).isEqualTo(new Loan(3, "reader 3"));
                        assertThat(loans.find(-3)).isNull();
                        assertThat(loans.calls()).isEqualTo(2);
                        assertThat(stored("loans::3")[0] & 0xff)
                            .as("written as Spring wrote it, no envelope")
                            .isNotEqualTo(0xc1);
                        // The old version reads what the new one wrote, its cached null included.
                        assertThat(oldLoans.find(3)).isEqualTo(new Loan(3, "reader 3"));
                        assertThat(oldLoans.find(-3)).isNull();
                        assertThat(oldLoans.find(1)).isEqualTo(new Loan(1, "reader 1"));
                        assertThat(oldLoans.calls())
                            .as("the old version read every entry as a hit")
                            .isEqualTo(3);
                        assertThat(loansCache(reader).stats().decodeFailures()).isZero();
                        assertThat(loansCache(reader).stats().hits()).isEqualTo(3);
                      });
            });

    // Step 2, the writers: once no old version runs.
    newVersion(
            "stowage.caches.loans.legacy-codec=" + legacy,
            "stowage.caches.loans.write-legacy=false")
        .run(
            writer -> {
              assertThat(writer).hasNotFailed();
              LoanService loans = writer.getBean(LoanService.class);
              assertThat(loans.find(4)).isEqualTo(new Loan(4, "reader 4"));
              assertThat(stored("loans::4")[0] & 0xff).as("an envelope").isEqualTo(0xc1);
              assertThat(loans.find(1)).isEqualTo(new Loan(1, "reader 1"));
              assertThat(loans.find(3)).isEqualTo(new Loan(3, "reader 3"));
              assertThat(loans.find(-1)).isNull();
              assertThat(loans.find(-3)).isNull();
              assertThat(loans.calls()).isEqualTo(1);
              // A reader of step 1, still running, reads the envelopes.
              newVersion(
                      "stowage.caches.loans.legacy-codec=" + legacy,
                      "stowage.caches.loans.write-legacy=true")
                  .run(
                      reader -> {
                        LoanService readerLoans = reader.getBean(LoanService.class);
                        assertThat(readerLoans.find(4)).isEqualTo(new Loan(4, "reader 4"));
                        assertThat(readerLoans.calls()).isZero();
                      });
            });

    // Step 3, the legacy codec dropped: an entry still in the old format is a counted miss, loaded
    // again.
    newVersion()
        .run(
            done -> {
              LoanService loans = done.getBean(LoanService.class);
              assertThat(loans.find(4)).isEqualTo(new Loan(4, "reader 4"));
              assertThat(loans.calls()).isZero();
              assertThat(loans.find(1)).isEqualTo(new Loan(1, "reader 1"));
              assertThat(loans.calls()).isEqualTo(1);
              assertThat(loansCache(done).stats().decodeFailures()).isEqualTo(1);
              assertThat(stored("loans::1")[0] & 0xff)
                  .as("rewritten as an envelope")
                  .isEqualTo(0xc1);
            });
  }

  @Test
  void aNullValueThatGenericJacksonWroteReadsAsSpringsNull() {
    LettuceConnectionFactory connections =
        new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
    connections.afterPropertiesSet();
    connections.start();
    try {
      RedisTemplate<String, Object> template = new RedisTemplate<>();
      template.setConnectionFactory(connections);
      template.setKeySerializer(RedisSerializer.string());
      template.setValueSerializer(new GenericJackson2JsonRedisSerializer());
      template.afterPropertiesSet();
      template.opsForValue().set("loans::-7", NullValue.INSTANCE);
      assertThat(new String(stored("loans::-7"), StandardCharsets.UTF_8))
          .isEqualTo("{\"@class\":\"org.springframework.cache.support.NullValue\"}");
    } finally {
      connections.destroy();
    }
    newVersion("stowage.caches.loans.legacy-codec=spring-json")
        .run(
            context -> {
              LoanService loans = context.getBean(LoanService.class);
              assertThat(loans.find(-7)).isNull();
              assertThat(loans.calls()).as("a cached null, not a corrupt value").isZero();
              assertThat(loansCache(context).stats().decodeFailures()).isZero();
            });
  }

  @Test
  void writeLegacyWithoutALegacyCodecFailsTheStartNamingTheProperty() {
    newVersion("stowage.defaults.write-legacy=true")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(rootCause(context.getStartupFailure()))
                  .hasMessage(
                      "stowage.defaults.write-legacy is true, but no"
                          + " legacy codec is set to write with: set stowage.defaults.legacy-codec to what the old readers read"
                          + " (spring-json, jackson-json, jdk, string)");
            });
  }

  @Test
  void anUnknownLegacyCodecOrOneThatCannotReadTheCacheFailsTheStartNamingTheProperty() {
    newVersion("stowage.caches.loans.legacy-codec=xml")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(rootCause(context.getStartupFailure()))
                  .hasMessage(
                      "stowage.caches.loans.legacy-codec: unknown"
                          + " legacy codec 'xml'; choose from spring-json, jackson-json, jdk, string");
            });
    newVersion("stowage.caches.loans.legacy-codec=jackson-json")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(rootCause(context.getStartupFailure()))
                  .hasMessageStartingWith(
                      "stowage.caches.loans.legacy-codec:"
                          + " jackson-json reads plain JSON of one class");
            });
  }

  private static Throwable rootCause(Throwable failure) {
    Throwable cause = failure;
    while (cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }
}
