package dev.stowage.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.CodecException;
import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.TypeRef;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.spring.SerializerValues.Account;
import dev.stowage.spring.SerializerValues.Article;
import dev.stowage.spring.SerializerValues.Author;
import dev.stowage.spring.SerializerValues.JdkTrap;
import dev.stowage.spring.SerializerValues.Shelf;
import dev.stowage.spring.SerializerValues.Ticket;
import dev.stowage.spring.SerializerValues.Trap;
import dev.stowage.testkit.WithRedis;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveRedisTemplate;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.serializer.GenericJackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.Jackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.JdkSerializationRedisSerializer;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.SerializationException;

/**
 * {@link StowageRedisSerializer} in real {@code RedisTemplate}s and {@code ReactiveRedisTemplate}s
 * over Lettuce: envelopes round trip, values that Spring Data Redis's own serializers wrote read
 * through the legacy codecs and their allowlists, {@code writeLegacy} writes what Spring's
 * serializers read, and zstd dictionaries are found in Redis.
 */
@WithRedis
@SuppressWarnings({
  "deprecation",
  "removal"
}) // Spring Data Redis 4 deprecates the Jackson 2 serializers
class StowageRedisSerializerIntegrationTests {
  private static final GenericJackson2JsonRedisSerializer SPRING_JSON =
      new GenericJackson2JsonRedisSerializer();
  private static final Article ARTICLE =
      new Article(
          42,
          "Stowage",
          new Author("kim", 3_000_000_000L),
          new ArrayList<>(List.of("redis", "cache")));
  private static final Encoding<Article> MSGPACK = Encoding.of(Codecs.msgpack(Article.class));

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

  private static <T> RedisTemplate<String, T> template(RedisSerializer<T> values) {
    RedisTemplate<String, T> template = new RedisTemplate<>();
    template.setConnectionFactory(connections);
    template.setKeySerializer(RedisSerializer.string());
    template.setValueSerializer(values);
    template.afterPropertiesSet();
    return template;
  }

  private static void delete(String key) {
    try (RedisConnection connection = connections.getConnection()) {
      connection.keyCommands().del(key.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static byte[] raw(String key) {
    try (RedisConnection connection = connections.getConnection()) {
      return connection.stringCommands().get(key.getBytes(StandardCharsets.UTF_8));
    }
  }

  @Test
  void aRedisTemplateWritesEnvelopesThatItAndAStowageCacheReadBack() {
    RedisTemplate<String, Article> articles = template(StowageRedisSerializer.of(stowage, MSGPACK));
    articles.opsForValue().set("articles:42", ARTICLE);

    assertThat(Encoding.Serializer.isEnvelope(raw("articles:42"))).isTrue();
    assertThat(Inspector.header(raw("articles:42")).orElseThrow().codecName()).isEqualTo("msgpack");
    assertThat(articles.opsForValue().get("articles:42")).isEqualTo(ARTICLE);
    assertThat(articles.opsForValue().get("articles:none")).isNull();
    RedisCache<String, Article> cache =
        stowage.cache("articles", Article.class).encoding(MSGPACK).build();
    assertThat(cache.get("42")).isEqualTo(ARTICLE);

    Article other = new Article(7, "Caches", new Author("lee", 1), List.of("x"));
    cache.put("7", other);
    assertThat(articles.opsForValue().get("articles:7")).isEqualTo(other);
  }

  @Test
  void aReactiveRedisTemplateWritesAndReadsEnvelopesInValuesAndHashes() {
    ReactiveRedisTemplate<String, Article> articles =
        new ReactiveRedisTemplate<>(connections, StowageRedisSerializer.context(stowage, MSGPACK));
    assertThat(articles.opsForValue().set("articles:42", ARTICLE).block()).isTrue();
    assertThat(articles.opsForHash().put("shelf", "first", ARTICLE).block()).isTrue();

    assertThat(Encoding.Serializer.isEnvelope(raw("articles:42"))).isTrue();
    assertThat(articles.opsForValue().get("articles:42").block()).isEqualTo(ARTICLE);
    assertThat(articles.opsForHash().get("shelf", "first").block()).isEqualTo(ARTICLE);
    assertThat(articles.opsForHash().keys("shelf").collectList().block()).containsExactly("first");
    // The blocking template with the same serializer reads what the reactive one wrote.
    assertThat(
            template(StowageRedisSerializer.of(stowage, MSGPACK)).opsForValue().get("articles:42"))
        .isEqualTo(ARTICLE);
  }

  @Test
  void genericJacksonValuesWithTheirClassReadThroughSpringJsonAndNewWritesAreEnvelopes() {
    RedisTemplate<String, Object> spring = template(SPRING_JSON);
    spring.opsForValue().set("articles:42", ARTICLE);
    spring.opsForValue().set("tags", new ArrayList<>(List.of("redis", "cache")));
    assertThat(new String(raw("articles:42"), StandardCharsets.UTF_8))
        .contains("\"@class\":\"dev.stowage.spring.SerializerValues$Article\"");
    assertThat(new String(raw("tags"), StandardCharsets.UTF_8))
        .isEqualTo("[\"java.util.ArrayList\",[\"redis\",\"cache\"]]");

    RedisTemplate<String, Article> articles =
        template(
            StowageRedisSerializer.of(stowage, MSGPACK.legacy(Codecs.springJson(Article.class))));
    assertThat(articles.opsForValue().get("articles:42")).isEqualTo(ARTICLE);
    articles.opsForValue().set("articles:42", ARTICLE);
    assertThat(Encoding.Serializer.isEnvelope(raw("articles:42"))).isTrue();
    assertThat(articles.opsForValue().get("articles:42")).isEqualTo(ARTICLE);

    TypeRef<List<String>> listOfStrings = new TypeRef<>() {};
    RedisTemplate<String, List<String>> tags =
        template(
            StowageRedisSerializer.of(
                stowage,
                Encoding.of(Codecs.msgpack(listOfStrings))
                    .legacy(Codecs.springJson(listOfStrings))));
    assertThat(tags.opsForValue().get("tags")).isEqualTo(List.of("redis", "cache"));
  }

  @Test
  void aClassNamedInAClassPropertyOffTheAllowlistIsNeverCreatedAndFailsClearly() {
    Shelf shelf = new Shelf();
    shelf.label = "top";
    Trap trap = new Trap();
    trap.size = 3;
    shelf.shape = trap;
    template(SPRING_JSON).opsForValue().set("shelf", shelf);
    assertThat(new String(raw("shelf"), StandardCharsets.UTF_8))
        .contains("\"@class\":\"dev.stowage.spring.SerializerValues$Trap\"");
    Trap.CREATED.set(0);

    RedisTemplate<String, Shelf> refusing =
        template(
            StowageRedisSerializer.of(
                stowage,
                Encoding.of(Codecs.json(Shelf.class)).legacy(Codecs.springJson(Shelf.class))));
    assertThatThrownBy(() -> refusing.opsForValue().get("shelf"))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("no envelope")
        .hasMessageContaining("dev.stowage.spring.SerializerValues$Trap")
        .hasCauseInstanceOf(CodecException.class);
    assertThat(Trap.CREATED).hasValue(0);

    RedisTemplate<String, Shelf> allowing =
        template(
            StowageRedisSerializer.of(
                stowage,
                Encoding.of(Codecs.json(Shelf.class))
                    .legacy(
                        Codecs.springJson(
                            Shelf.class, "dev.stowage.spring.SerializerValues$Trap"))));
    Shelf read = allowing.opsForValue().get("shelf");
    assertThat(read.shape)
        .isInstanceOfSatisfying(Trap.class, created -> assertThat(created.size).isEqualTo(3));
    assertThat(Trap.CREATED).hasValue(1);
  }

  @Test
  void jackson2JsonValuesReadThroughTheJsonCodec() {
    template(new Jackson2JsonRedisSerializer<>(Article.class))
        .opsForValue()
        .set("articles:42", ARTICLE);
    assertThat(new String(raw("articles:42"), StandardCharsets.UTF_8)).startsWith("{\"id\":42,");

    RedisTemplate<String, Article> articles =
        template(StowageRedisSerializer.of(stowage, MSGPACK.legacy(Codecs.json(Article.class))));
    assertThat(articles.opsForValue().get("articles:42")).isEqualTo(ARTICLE);
  }

  @Test
  void jdkValuesReadThroughTheJdkCodecAndAGadgetOffItsAllowlistNeverRuns() {
    RedisTemplate<String, Object> spring = template(new JdkSerializationRedisSerializer());
    Account account = new Account("kim", 120, "first deposit");
    spring.opsForValue().set("accounts:kim", account);
    spring.opsForValue().set("accounts:eve", new Account("eve", 0, new JdkTrap()));
    JdkTrap.READ.set(0);

    RedisTemplate<String, Account> accounts =
        template(
            StowageRedisSerializer.of(
                stowage,
                Encoding.of(Codecs.json(Account.class)).legacy(Codecs.jdk(Account.class))));
    assertThat(accounts.opsForValue().get("accounts:kim")).isEqualTo(account);
    assertThatThrownBy(() -> accounts.opsForValue().get("accounts:eve"))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("no envelope")
        .hasMessageContaining("dev.stowage.spring.SerializerValues$JdkTrap is not in its allowlist")
        .hasMessageContaining("legacy codec jdk");
    assertThat(JdkTrap.READ).hasValue(0);
  }

  @Test
  void aTemplateThatKeepsItsJdkKeysReadsItsOldValuesThroughTheLegacyCodec() {
    RedisTemplate<Object, Object> defaults =
        new RedisTemplate<>(); // JDK serialization for keys and values
    defaults.setConnectionFactory(connections);
    defaults.afterPropertiesSet();
    Account account = new Account("kim", 120, "first deposit");
    defaults.opsForValue().set("kim", account);
    byte[] jdkKey = new JdkSerializationRedisSerializer().serialize("kim");
    assertThat(defaults.getKeySerializer()).isInstanceOf(JdkSerializationRedisSerializer.class);

    RedisTemplate<Object, Account> migrated = new RedisTemplate<>();
    migrated.setConnectionFactory(connections);
    migrated.setKeySerializer(defaults.getKeySerializer()); // the serializer is for values only
    migrated.setValueSerializer(
        StowageRedisSerializer.of(
            stowage, Encoding.of(Codecs.json(Account.class)).legacy(Codecs.jdk(Account.class))));
    migrated.afterPropertiesSet();
    assertThat(migrated.opsForValue().get("kim")).isEqualTo(account);
    Account richer = new Account("kim", 500, "second deposit");
    migrated.opsForValue().set("kim", richer);
    try (RedisConnection connection = connections.getConnection()) {
      assertThat(Encoding.Serializer.isEnvelope(connection.stringCommands().get(jdkKey))).isTrue();
    }
    assertThat(migrated.opsForValue().get("kim")).isEqualTo(richer);
  }

  @Test
  void stringValuesReadThroughTheStringCodec() {
    StringRedisTemplate spring = new StringRedisTemplate(connections);
    spring.opsForValue().set("greeting", "hello, Stowage");

    RedisTemplate<String, String> strings =
        template(
            StowageRedisSerializer.of(
                stowage, Encoding.of(Codecs.msgpack(String.class)).legacy(Codecs.string())));
    assertThat(strings.opsForValue().get("greeting")).isEqualTo("hello, Stowage");
    strings.opsForValue().set("greeting", "hello again");
    assertThat(Encoding.Serializer.isEnvelope(raw("greeting"))).isTrue();
    assertThat(strings.opsForValue().get("greeting")).isEqualTo("hello again");
  }

  @Test
  void aValueWithoutEnvelopeOrLegacyCodecAndACorruptEnvelopeAreSerializationExceptions() {
    new StringRedisTemplate(connections).opsForValue().set("greeting", "hello");
    StowageRedisSerializer<Article> serializer = StowageRedisSerializer.of(stowage, MSGPACK);
    assertThatThrownBy(() -> template(serializer).opsForValue().get("greeting"))
        .isInstanceOf(SerializationException.class)
        .hasMessageStartingWith(
            "Stowage could not deserialize 5 bytes (no envelope) with EnvelopeCodec[write msgpack")
        .hasMessageContaining(
            "not a Stowage value: it starts with 68 65 6c 6c, not the magic byte c1, and no legacy"
                + " codec is configured");

    byte[] cut = Arrays.copyOf(serializer.serialize(ARTICLE), 3);
    assertThatThrownBy(() -> serializer.deserialize(cut))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("(an envelope)")
        .hasMessageContaining("truncated envelope");
    assertThat(serializer.deserialize(null)).isNull();
    assertThat(serializer.deserialize(new byte[0])).isNull();
    assertThat(serializer.serialize(null)).isEmpty();
  }

  @Test
  void writeLegacyWritesWhatSpringsOwnSerializersRead() {
    RedisTemplate<String, Article> stepOne =
        template(
            StowageRedisSerializer.of(
                stowage, MSGPACK.writeLegacy(Codecs.springJson(Article.class))));
    stepOne.opsForValue().set("articles:42", ARTICLE);
    assertThat(Encoding.Serializer.isEnvelope(raw("articles:42"))).isFalse();
    assertThat(template(SPRING_JSON).opsForValue().get("articles:42")).isEqualTo(ARTICLE);

    // Step two writes envelopes, which the processes still in step one read.
    RedisTemplate<String, Article> stepTwo =
        template(
            StowageRedisSerializer.of(stowage, MSGPACK.legacy(Codecs.springJson(Article.class))));
    Article newer = new Article(42, "Stowage, again", ARTICLE.author(), ARTICLE.tags());
    stepTwo.opsForValue().set("articles:42", newer);
    assertThat(Encoding.Serializer.isEnvelope(raw("articles:42"))).isTrue();
    assertThat(stepOne.opsForValue().get("articles:42")).isEqualTo(newer);

    RedisTemplate<String, Account> accounts =
        template(
            StowageRedisSerializer.of(
                stowage,
                Encoding.of(Codecs.json(Account.class)).writeLegacy(Codecs.jdk(Account.class))));
    Account account = new Account("kim", 120, "first deposit");
    accounts.opsForValue().set("accounts:kim", account);
    assertThat(template(new JdkSerializationRedisSerializer()).opsForValue().get("accounts:kim"))
        .isEqualTo(account);
  }

  @Test
  void aValueCompressedWithADictionaryACacheLearnedReadsInAFreshSerializer(RedisServer redis) {
    Encoding<Ticket> json = Encoding.of(Codecs.json(Ticket.class));
    RedisCache<String, Ticket> learner =
        stowage.cache("tickets", Ticket.class).encoding(json.learnDictionary(100, 4096)).build();
    Map<String, Ticket> tickets = new LinkedHashMap<>();
    for (int i = 0; i < 150; i++) {
      tickets.put("T-" + i, Ticket.of(i));
    }
    learner.putAll(
        tickets); // a bulk write that completes the samples trains before it writes the rest
    Inspector.Header header = Inspector.header(raw("tickets:T-149")).orElseThrow();
    assertThat(header.compressionName()).isEqualTo("zstd-dict-magicless");

    try (Stowage fresh = Stowage.builder().redis(redis.uri()).build()) {
      RedisTemplate<String, Ticket> reader = template(StowageRedisSerializer.of(fresh, json));
      assertThat(reader.opsForValue().get("tickets:T-149")).isEqualTo(Ticket.of(149));
      assertThat(reader.opsForValue().get("tickets:T-3")).isEqualTo(Ticket.of(3));
    }
    assertThatThrownBy(
            () -> template(StowageRedisSerializer.of(json)).opsForValue().get("tickets:T-149"))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("dictionary")
        .hasMessageContaining(Long.toHexString(header.dictionaryId().orElseThrow()));
  }

  private static List<Ticket> tickets(int n) {
    List<Ticket> tickets = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      tickets.add(Ticket.of(i));
    }
    return tickets;
  }

  @Test
  void aReactiveContextReadsTheDictionariesInRedisBeforeLettucesThreadsNeedThem(RedisServer redis) {
    Encoding<Ticket> json = Encoding.of(Codecs.json(Ticket.class));
    template(StowageRedisSerializer.of(stowage, json.trainDictionary(tickets(200), 4096)))
        .opsForValue()
        .set("tickets:T-500", Ticket.of(500));
    long id = Inspector.header(raw("tickets:T-500")).orElseThrow().dictionaryId().orElseThrow();

    try (Stowage fresh = Stowage.builder().redis(redis.uri()).build()) {
      ReactiveRedisTemplate<String, Ticket> reader =
          new ReactiveRedisTemplate<>(connections, StowageRedisSerializer.context(fresh, json));
      // Gone from Redis once the context exists: only a dictionary the context read already
      // decodes the value.
      delete(Inspector.Keys.dictionary(id));
      assertThat(raw(Inspector.Keys.dictionary(id))).isNull();
      assertThat(reader.opsForValue().get("tickets:T-500").block()).isEqualTo(Ticket.of(500));
    }
  }

  @Test
  void aDictionaryTheSerializerTrainsIsSavedInRedisForAFreshSerializer(RedisServer redis) {
    List<Ticket> samples = tickets(200);
    Encoding<Ticket> json = Encoding.of(Codecs.json(Ticket.class));
    RedisTemplate<String, Ticket> writer =
        template(StowageRedisSerializer.of(stowage, json.trainDictionary(samples, 4096)));
    writer.opsForValue().set("tickets:T-500", Ticket.of(500));
    assertThat(Inspector.header(raw("tickets:T-500")).orElseThrow().compressionName())
        .isEqualTo("zstd-dict-magicless");

    try (Stowage fresh = Stowage.builder().redis(redis.uri()).build()) {
      RedisTemplate<String, Ticket> reader =
          template(StowageRedisSerializer.of(fresh, json.compression(Compression.none())));
      assertThat(reader.opsForValue().get("tickets:T-500")).isEqualTo(Ticket.of(500));
    }
  }
}
