package dev.stowage.migration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import dev.stowage.CodecException;
import dev.stowage.Encoding;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.TypeRef;
import dev.stowage.codec.Codecs;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.format.Envelope;
import dev.stowage.migration.SpringValues.Account;
import dev.stowage.migration.SpringValues.Article;
import dev.stowage.migration.SpringValues.Author;
import dev.stowage.migration.SpringValues.JdkTrap;
import dev.stowage.migration.SpringValues.Shelf;
import dev.stowage.migration.SpringValues.Trap;
import dev.stowage.testkit.WithRedis;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.cache.Cache;
import org.springframework.data.redis.cache.RedisCacheConfiguration;
import org.springframework.data.redis.cache.RedisCacheManager;
import org.springframework.data.redis.cache.RedisCacheWriter;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.serializer.GenericJackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.Jackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.JdkSerializationRedisSerializer;
import org.springframework.data.redis.serializer.RedisSerializationContext.SerializationPair;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * docs/MIGRATION.md, tested: values that Spring Data Redis's own serializers wrote, through
 * Spring's own {@code RedisCacheManager} and {@code RedisTemplate}, read by a Stowage cache through
 * its legacy codec; the classes a value may name; the keys; and a rolling deploy.
 */
@WithRedis
class SpringSerializerMigrationIntegrationTests {
  /** The serializer a Spring application configures for JSON values, with java.time support. */
  private static final GenericJackson2JsonRedisSerializer SPRING_JSON =
      new GenericJackson2JsonRedisSerializer()
          .configure(mapper -> mapper.registerModule(new JavaTimeModule()));

  private static final Article ARTICLE = article(42, "Stowage");

  private static LettuceConnectionFactory connections;
  private static Stowage stowage;

  @BeforeAll
  static void connect(RedisServer redis) {
    connections =
        new LettuceConnectionFactory(new RedisStandaloneConfiguration(redis.host(), redis.port()));
    connections.afterPropertiesSet();
    connections.start();
    stowage = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterAll
  static void close() {
    stowage.close();
    connections.destroy();
  }

  @BeforeEach
  void start(RedisServer redis) {
    redis.flushAll();
    Trap.CREATED.set(0);
    JdkTrap.READ.set(0);
  }

  @SuppressWarnings("JavaUtilDate") // the values Spring's serializers wrote held a java.util.Date
  private static Article article(long id, String title) {
    Map<String, Object> extras = new LinkedHashMap<>();
    extras.put("words", 1200L);
    extras.put("score", 4.5);
    extras.put("draft", false);
    extras.put("seen", new Date(1_700_000_000_000L));
    extras.put("related", new ArrayList<>(List.of("a", "b")));
    return new Article(
        id,
        title,
        new Author("kim", 3_000_000_000L),
        new ArrayList<>(List.of("redis", "cache")),
        extras,
        new Date(1_600_000_000_000L),
        Instant.parse("2026-01-02T03:04:05.123456Z"));
  }

  /**
   * An article whose {@code Object} values keep their class in plain JSON, which has no {@code
   * Long} or {@code Date} of its own: what the caches write after the switch.
   */
  @SuppressWarnings("JavaUtilDate") // the values Spring's serializers wrote held a java.util.Date
  private static Article plain(long id, String title) {
    Map<String, Object> extras = new LinkedHashMap<>();
    extras.put("score", 4.5);
    extras.put("draft", false);
    extras.put("related", new ArrayList<>(List.of("a", "b")));
    return new Article(
        id,
        title,
        new Author("kim", 3),
        new ArrayList<>(List.of("redis")),
        extras,
        new Date(1_600_000_000_000L),
        Instant.parse("2026-01-02T03:04:05.123456Z"));
  }

  private static RedisCacheManager springCaches(RedisSerializer<?> values) {
    // Spring Data Redis 4 writes a cache's values asynchronously by default; these tests read them
    // right after.
    RedisCacheManager manager =
        RedisCacheManager.builder(
                RedisCacheWriter.create(connections, writer -> writer.immediateWrites()))
            .cacheDefaults(
                RedisCacheConfiguration.defaultCacheConfig()
                    .serializeValuesWith(SerializationPair.fromSerializer(values)))
            .build();
    manager.afterPropertiesSet();
    return manager;
  }

  /**
   * Spring's default cache manager (JDK serialization), its writes acknowledged as in {@link
   * #springCaches}.
   */
  private static RedisCacheManager springDefaults() {
    RedisCacheManager manager =
        RedisCacheManager.builder(
                RedisCacheWriter.create(connections, writer -> writer.immediateWrites()))
            .build();
    manager.afterPropertiesSet();
    return manager;
  }

  private static byte[] raw(String key) {
    try (RedisConnection connection = connections.getConnection()) {
      return connection.stringCommands().get(key.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static void setRaw(String key, byte[] value) {
    try (RedisConnection connection = connections.getConnection()) {
      connection.stringCommands().set(key.getBytes(StandardCharsets.UTF_8), value);
    }
  }

  @Test
  void genericJacksonValuesOfASpringCacheReadThroughSpringJsonAndPutWritesAnEnvelope() {
    Cache spring = springCaches(SPRING_JSON).getCache("articles");
    spring.put(42L, ARTICLE);
    assertThat(new String(raw("articles::42"), StandardCharsets.UTF_8))
        .contains("\"@class\":\"dev.stowage.migration.SpringValues$Article\"")
        .contains("[\"java.util.ArrayList\",[\"redis\",\"cache\"]]")
        .contains("[\"java.lang.Long\",1200]")
        .contains("[\"java.util.Date\",1700000000000]")
        .contains("\"published\":[\"java.util.Date\",1600000000000]");

    RedisCache<Long, Article> articles =
        stowage
            .cache("articles", Article.class)
            .<Long>keys(String::valueOf)
            .keyPrefix("articles::")
            .encoding(
                Encoding.of(Codecs.json(Article.class)).legacy(Codecs.springJson(Article.class)))
            .build();
    assertThat(articles.redisKey(42L)).isEqualTo("articles::42");
    Article read = articles.get(42L);
    assertThat(read).isEqualTo(ARTICLE);
    assertThat(read.extras().get("words")).isInstanceOf(Long.class);
    assertThat(read.extras().get("seen")).isInstanceOf(Date.class);
    assertThat(articles.stats().hits()).isEqualTo(1);

    Article renamed = plain(42, "Stowage, again");
    articles.put(42L, renamed);
    byte[] written = raw("articles::42");
    assertThat(Envelope.isEnvelope(written)).isTrue();
    assertThat(Envelope.readHeader(written).codecName()).isEqualTo("json");
    assertThat(articles.get(42L)).isEqualTo(renamed);
    // why a rolling deploy needs an order: the old application cannot read what the new one put
    assertThatThrownBy(() -> spring.get(42L)).hasRootCauseInstanceOf(JsonParseException.class);
  }

  @Test
  void typedCollectionsAtTheRootAndNestedReadWithTheirElementClasses() {
    Cache spring = springCaches(SPRING_JSON).getCache("lists");
    List<Article> list = new ArrayList<>(List.of(article(1, "one"), article(2, "two")));
    spring.put("latest", list);
    spring.put("tags", new TreeSet<>(Set.of("b", "a")));
    spring.put("counts", new LinkedHashMap<>(Map.of("x", 7L)));
    assertThat(new String(raw("lists::latest"), StandardCharsets.UTF_8))
        .startsWith("[\"java.util.ArrayList\",[{\"@class\":");

    RedisCache<String, List<Article>> lists =
        stowage
            .cache("lists", new TypeRef<List<Article>>() {})
            .keyPrefix("lists::")
            .encoding(
                Encoding.of(Codecs.json(new TypeRef<List<Article>>() {}))
                    .legacy(Codecs.springJson(new TypeRef<List<Article>>() {})))
            .build();
    assertThat(lists.get("latest")).isEqualTo(list);

    RedisCache<String, Set<String>> sets =
        stowage
            .cache("lists", new TypeRef<Set<String>>() {})
            .keyPrefix("lists::")
            .encoding(
                Encoding.of(Codecs.json(new TypeRef<Set<String>>() {}))
                    .legacy(Codecs.springJson(new TypeRef<Set<String>>() {})))
            .build();
    assertThat(sets.get("tags")).isInstanceOf(TreeSet.class).containsExactly("a", "b");

    @SuppressWarnings({"unchecked", "rawtypes"})
    RedisCache<String, Map> maps =
        stowage
            .cache("lists", Map.class)
            .keyPrefix("lists::")
            .encoding(Encoding.of(Codecs.json(Map.class)).legacy(Codecs.springJson(Map.class)))
            .build();
    assertThat(maps.get("counts")).isEqualTo(Map.of("x", 7L));
  }

  @Test
  void aValueNamingAClassOffTheAllowlistIsACountedMissAndTheClassIsNeverCreated() {
    Shelf shelf = new Shelf();
    shelf.label = "top";
    shelf.shape = new Trap();
    ((Trap) shelf.shape).size = 3;
    springCaches(SPRING_JSON).getCache("shelves").put("top", shelf);
    assertThat(new String(raw("shelves::top"), StandardCharsets.UTF_8))
        .contains("\"@class\":\"dev.stowage.migration.SpringValues$Trap\"");
    Trap.CREATED.set(0);

    RedisCache<String, Shelf> guarded =
        stowage
            .cache("shelves", Shelf.class)
            .keyPrefix("shelves::")
            .encoding(Encoding.of(Codecs.json(Shelf.class)).legacy(Codecs.springJson(Shelf.class)))
            .build();
    assertThat(guarded.get("top")).isNull();
    assertThat(guarded.stats().decodeFailures()).isEqualTo(1);
    assertThat(guarded.stats().misses()).isEqualTo(1);
    assertThat(Trap.CREATED).hasValue(0);
    assertThatThrownBy(() -> Codecs.springJson(Shelf.class).decode(raw("shelves::top")))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("dev.stowage.migration.SpringValues$Trap");
    assertThat(Trap.CREATED).hasValue(0);

    RedisCache<String, Shelf> allowing =
        stowage
            .cache("shelves", Shelf.class)
            .keyPrefix("shelves::")
            .encoding(
                Encoding.of(Codecs.json(Shelf.class))
                    .legacy(
                        Codecs.springJson(Shelf.class, "dev.stowage.migration.SpringValues$Trap")))
            .build();
    Shelf read = allowing.get("top");
    assertThat(read.label).isEqualTo("top");
    assertThat(read.shape)
        .isInstanceOfSatisfying(Trap.class, trap -> assertThat(trap.size).isEqualTo(3));
    assertThat(Trap.CREATED).hasValue(1);
  }

  @Test
  void aRootClassOtherThanTheCachesIsRefusedByName() {
    setRaw("articles::7", SPRING_JSON.serialize(new Author("lee", 1)));
    RedisCache<String, Article> articles =
        stowage
            .cache("articles", Article.class)
            .keyPrefix("articles::")
            .encoding(
                Encoding.of(Codecs.json(Article.class)).legacy(Codecs.springJson(Article.class)))
            .build();
    assertThat(articles.get("7")).isNull();
    assertThat(articles.stats().decodeFailures()).isEqualTo(1);
  }

  @Test
  void aNullSpringCachedIsACountedMissForTheJsonAndTheJdkLegacyCodecs() {
    Cache spring = springCaches(SPRING_JSON).getCache("articles");
    spring.put(9L, null);
    // whatever the value serializer, Spring's cache stores a null as JDK serialization of NullValue
    assertThat(raw("articles::9")).startsWith(0xac, 0xed);
    assertThat(new String(raw("articles::9"), StandardCharsets.ISO_8859_1))
        .contains("org.springframework.cache.support.NullValue");

    RedisCache<String, Article> articles =
        stowage
            .cache("articles", Article.class)
            .keyPrefix("articles::")
            .encoding(
                Encoding.of(Codecs.json(Article.class)).legacy(Codecs.springJson(Article.class)))
            .build();
    assertThat(articles.get("9")).isNull();
    assertThat(articles.stats().decodeFailures()).isEqualTo(1);
    assertThat(articles.getOrLoad("9", key -> plain(9, "loaded"))).isEqualTo(plain(9, "loaded"));
    assertThat(Envelope.isEnvelope(raw("articles::9"))).isTrue();

    springDefaults().getCache("accounts").put("none", null);
    RedisCache<String, Account> accounts =
        stowage
            .cache("accounts", Account.class)
            .keyPrefix("accounts::")
            .encoding(Encoding.of(Codecs.json(Account.class)).legacy(Codecs.jdk(Account.class)))
            .build();
    assertThat(accounts.get("none")).isNull();
    assertThat(accounts.stats().decodeFailures()).isEqualTo(1);
  }

  @Test
  void jackson2JsonValuesReadThroughTheJsonCodec() {
    springCaches(
            new Jackson2JsonRedisSerializer<>(
                new ObjectMapper().registerModule(new JavaTimeModule()), Author.class))
        .getCache("authors")
        .put("kim", new Author("kim", 12));
    assertThat(new String(raw("authors::kim"), StandardCharsets.UTF_8))
        .isEqualTo("{\"name\":\"kim\",\"followers\":12}");

    RedisCache<String, Author> authors =
        stowage
            .cache("authors", Author.class)
            .keyPrefix("authors::")
            .encoding(Encoding.of(Codecs.msgpack(Author.class)).legacy(Codecs.json(Author.class)))
            .build();
    assertThat(authors.get("kim")).isEqualTo(new Author("kim", 12));
  }

  @Test
  void jdkValuesOfSpringsDefaultCacheManagerReadThroughTheJdkCodecAndItsAllowlist() {
    Account account = new Account("kim", 120, new ArrayList<>(List.of("open", "deposit")), "vip");
    RedisCacheManager defaults = springDefaults();
    defaults.afterPropertiesSet();
    defaults.getCache("accounts").put("kim", account);
    defaults.getCache("accounts").put("gadget", new Account("eve", 0, List.of(), new JdkTrap()));
    assertThat(raw("accounts::kim")).startsWith(0xac, 0xed);
    JdkTrap.READ.set(0);

    RedisCache<String, Account> accounts =
        stowage
            .cache("accounts", Account.class)
            .keyPrefix("accounts::")
            .encoding(Encoding.of(Codecs.json(Account.class)).legacy(Codecs.jdk(Account.class)))
            .build();
    assertThat(accounts.get("kim")).isEqualTo(account);
    assertThat(accounts.get("gadget")).isNull();
    assertThat(accounts.stats().decodeFailures()).isEqualTo(1);
    assertThat(JdkTrap.READ).hasValue(0);
  }

  @Test
  void stringValuesOfAStringRedisTemplateReadThroughTheStringCodec() {
    StringRedisTemplate template = new StringRedisTemplate(connections);
    template.opsForValue().set("greetings::hi", "hello, wörld");

    RedisCache<String, String> greetings =
        stowage
            .cache("greetings", String.class)
            .keyPrefix("greetings::")
            .encoding(Encoding.of(Codecs.string()).legacy(Codecs.string()))
            .build();
    assertThat(greetings.get("hi")).isEqualTo("hello, wörld");
  }

  @Test
  void jdkSerializedKeysOfADefaultRedisTemplateAreRenamedOnceToTheCachesKeys() {
    RedisTemplate<Object, Object> template = new RedisTemplate<>();
    template.setConnectionFactory(connections);
    template.afterPropertiesSet();
    Account account = new Account("kim", 5, List.of(), "x");
    template.opsForValue().set("kim", account);

    // Not "accounts": its default prefix, accounts:, would overlap the other tests' accounts:: in
    // this Stowage.
    RedisCache<String, Account> accounts =
        stowage
            .cache("jdk-accounts", Account.class)
            .encoding(Encoding.of(Codecs.json(Account.class)).legacy(Codecs.jdk(Account.class)))
            .build();
    assertThat(accounts.get("kim")).isNull();

    int renamed = JdkKeyMigration.renameJdkKeys(connections, key -> "jdk-accounts:" + key);
    assertThat(renamed).isEqualTo(1);
    assertThat(accounts.get("kim")).isEqualTo(account);
  }

  @Test
  void writeLegacyKeepsOldReadersReadingDuringARollingDeploy() {
    Cache spring = springCaches(SPRING_JSON).getCache("articles");
    RedisCache<Long, Article> compatible =
        stowage
            .cache("articles", Article.class)
            .<Long>keys(String::valueOf)
            .keyPrefix("articles::")
            .encoding(
                Encoding.of(Codecs.json(Article.class))
                    .writeLegacy(Codecs.springJson(Article.class)))
            .build();

    // step 1: the new version writes what the old one writes, byte for byte
    compatible.put(42L, ARTICLE);
    assertThat(raw("articles::42")).isEqualTo(SPRING_JSON.serialize(ARTICLE));
    assertThat(spring.get(42L, Article.class)).isEqualTo(ARTICLE);
    spring.put(43L, article(43, "old"));
    assertThat(compatible.get(43L)).isEqualTo(article(43, "old"));

    // step 2, once no old reader runs: writes switch to the envelope; step-1 processes read them
    RedisCache<Long, Article> switched =
        stowage
            .cache("articles", Article.class)
            .<Long>keys(String::valueOf)
            .keyPrefix("articles::")
            .encoding(
                Encoding.of(Codecs.json(Article.class)).legacy(Codecs.springJson(Article.class)))
            .build();
    switched.put(44L, plain(44, "new"));
    assertThat(Envelope.isEnvelope(raw("articles::44"))).isTrue();
    assertThat(compatible.get(44L)).isEqualTo(plain(44, "new"));
    assertThat(switched.get(42L)).isEqualTo(ARTICLE);
  }

  @Test
  void writeLegacyWithTheJdkCodecWritesWhatSpringsJdkSerializerReads() {
    Account account = new Account("kim", 9, List.of("open"), "n");
    RedisCache<String, Account> compatible =
        stowage
            .cache("accounts", Account.class)
            .keyPrefix("accounts::")
            .encoding(
                Encoding.of(Codecs.json(Account.class)).writeLegacy(Codecs.jdk(Account.class)))
            .build();
    compatible.put("kim", account);
    assertThat(new JdkSerializationRedisSerializer().deserialize(raw("accounts::kim")))
        .isEqualTo(account);
    assertThat(springDefaults().getCache("accounts").get("kim", Account.class)).isEqualTo(account);
  }
}
