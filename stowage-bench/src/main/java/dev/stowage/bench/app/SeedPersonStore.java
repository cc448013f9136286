package dev.stowage.bench.app;

import dev.stowage.bench.BenchRedis;
import dev.stowage.bench.RedisTarget;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Person;
import io.lettuce.core.RedisURI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.SerializationException;
import org.springframework.data.redis.serializer.StringRedisSerializer;
import redis.clients.jedis.JedisPoolConfig;

/**
 * The fifth seed's two apps. Both ran on Spring Boot 1.4, whose Redis client was Jedis with the
 * pool its {@code application.properties} set ({@code maxActive=8}, {@code maxIdle=8}, {@code
 * minIdle=0}, {@code maxWait=-1}); both do one SET per person in {@code /add} and one GET per
 * person in {@code /check}, in sequence.
 *
 * <ul>
 *   <li>{@code fastjson-string}: {@code StringRedisTemplate}, values are fastjson text.
 *   <li>{@code kryo}: a {@code RedisTemplate<String, Object>} whose value serializer is Kryo, one
 *       instance per thread, the class registered, {@code writeClassAndObject}.
 * </ul>
 */
final class SeedPersonStore implements PersonStore {

  static final String FASTJSON = "fastjson-string";
  static final String KRYO = "kryo";

  private final String name;
  private final String keyPrefix;
  private final BenchRedis redis;
  private final JedisConnectionFactory factory;
  private final @Nullable StringRedisTemplate strings;
  private final @Nullable RedisTemplate<String, Object> objects;

  SeedPersonStore(String name, BenchRedis redis, String keyPrefix) {
    this(name, redis.redisUri(), keyPrefix, redis);
  }

  private SeedPersonStore(String name, RedisURI uri, String keyPrefix, BenchRedis redis) {
    if (!name.equals(FASTJSON) && !name.equals(KRYO)) {
      throw new IllegalArgumentException("no seed store " + name);
    }
    this.name = name;
    this.keyPrefix = keyPrefix;
    this.redis = redis;
    JedisPoolConfig pool = new JedisPoolConfig();
    pool.setMaxTotal(8);
    pool.setMaxIdle(8);
    pool.setMinIdle(0);
    pool.setMaxWait(Duration.ofMillis(-1));
    RedisTarget target = new RedisTarget(uri);
    JedisClientConfiguration.JedisClientConfigurationBuilder builder =
        JedisClientConfiguration.builder();
    if (target.tls()) {
      builder.useSsl();
    }
    JedisClientConfiguration client = builder.usePooling().poolConfig(pool).build();
    this.factory = new JedisConnectionFactory(target.springStandalone(), client);
    factory.afterPropertiesSet();
    factory.start();
    if (name.equals(FASTJSON)) {
      this.strings = new StringRedisTemplate(factory);
      this.objects = null;
    } else {
      this.strings = null;
      this.objects = new RedisTemplate<>();
      objects.setConnectionFactory(factory);
      objects.setKeySerializer(new StringRedisSerializer());
      objects.setValueSerializer(new KryoRedisSerializer());
      objects.afterPropertiesSet();
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public RowRole role() {
    return RowRole.SEED;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put(
        "client",
        name.equals(FASTJSON)
            ? "StringRedisTemplate, Jedis pool of 8"
            : "RedisTemplate with a Kryo serializer, Jedis pool of 8");
    params.put(
        "serializer",
        name.equals(FASTJSON)
            ? "fastjson2 JSON text"
            : "Kryo writeClassAndObject, class registered");
    params.put("commands", "one SET / GET per person, in sequence");
    return params;
  }

  @Override
  public void add(List<Person> people) {
    for (Person person : people) {
      if (strings != null) {
        strings.opsForValue().set(keyPrefix + person.id(), PersonSerializers.toFastjson(person));
      } else if (objects != null) {
        objects.opsForValue().set(keyPrefix + person.id(), person);
      }
    }
  }

  /**
   * The bytes {@link #add} stores (the fastjson text in UTF-8, as {@code StringRedisTemplate}
   * writes it, or the Kryo bytes), one {@code MSET} for them all: the same keys and values as the
   * seed's one {@code SET} per person, without a round trip each, which at 15,000,000 people would
   * take hours.
   */
  @Override
  @SuppressWarnings(
      "ArrayAsKeyOfSetOrMap") // distinct keys by construction, handed to Lettuce's mset as they are
  public CompletionStage<?> load(List<Person> people) {
    Map<byte[], byte[]> entries = new LinkedHashMap<>(people.size() * 2);
    for (Person person : people) {
      byte[] value =
          name.equals(FASTJSON)
              ? PersonSerializers.toFastjson(person).getBytes(StandardCharsets.UTF_8)
              : PersonSerializers.toKryo(person);
      entries.put((keyPrefix + person.id()).getBytes(StandardCharsets.UTF_8), value);
    }
    return redis.mset(entries);
  }

  @Override
  public List<Person> read(long[] ids) {
    List<Person> people = new ArrayList<>(ids.length);
    for (long id : ids) {
      if (strings != null) {
        String raw = strings.opsForValue().get(keyPrefix + id);
        people.add(raw == null ? null : PersonSerializers.fromFastjson(raw));
      } else if (objects != null) {
        people.add((Person) objects.opsForValue().get(keyPrefix + id));
      }
    }
    return people;
  }

  @Override
  public void close() {
    factory.destroy();
  }

  /** The seed's Kryo value serializer for Spring. */
  private static final class KryoRedisSerializer implements RedisSerializer<Object> {
    @Override
    public byte[] serialize(@Nullable Object value) throws SerializationException {
      return value == null ? new byte[0] : PersonSerializers.toKryo(value);
    }

    @Override
    public @Nullable Object deserialize(byte @Nullable [] bytes) throws SerializationException {
      return bytes == null || bytes.length == 0 ? null : PersonSerializers.fromKryo(bytes);
    }
  }
}
