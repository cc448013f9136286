package dev.stowage.bench.clients;

import dev.stowage.Encoding;
import dev.stowage.bench.RedisTarget;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.StringRedisSerializer;
import redis.clients.jedis.JedisPoolConfig;

/**
 * The fourth seed's three configurations, each a Spring connection factory under a {@code
 * RedisTemplate} that GETs the value's bytes, which are then decoded with the same envelope codec
 * as Stowage's row, so that the rows differ only in how they reach Redis.
 */
final class SpringGetClient implements GetClient {

  /**
   * Spring's {@code JedisConnectionFactory} as the seed built it for "no pool": no pool settings
   * given.
   */
  static final String JEDIS_DEFAULT = "jedis-spring-default";

  /** The seed's Jedis pool of 128, with its borrow, return and idle tests. */
  static final String JEDIS_POOL_128 = "jedis-pool-128";

  /** Spring's {@code LettuceConnectionFactory}: one shared native connection. */
  static final String LETTUCE_SHARED = "lettuce-shared";

  private final String name;
  private final RedisConnectionFactory factory;
  private final RedisTemplate<String, byte[]> template;
  private final Encoding.Serializer<Item> codec;
  private final String keyPrefix;
  private final Map<String, Object> params = new LinkedHashMap<>();

  SpringGetClient(String name, RedisURI uri, Encoding.Serializer<Item> codec, String keyPrefix) {
    this.name = name;
    this.codec = codec;
    this.keyPrefix = keyPrefix;
    RedisTarget target = new RedisTarget(uri);
    RedisStandaloneConfiguration config = target.springStandalone();
    switch (name) {
      case JEDIS_DEFAULT -> {
        JedisConnectionFactory jedis =
            target.tls()
                ? new JedisConnectionFactory(
                    config, JedisClientConfiguration.builder().useSsl().and().usePooling().build())
                : new JedisConnectionFactory(config);
        start(jedis);
        params.put("client", "Jedis through Spring's JedisConnectionFactory, no pool settings");
        GenericObjectPoolConfig<?> pool = jedis.getPoolConfig();
        params.put(
            "pool",
            jedis.getUsePool() && pool != null
                ? "Spring's default: max " + pool.getMaxTotal()
                : "none");
        factory = jedis;
      }
      case JEDIS_POOL_128 -> {
        JedisClientConfiguration.JedisClientConfigurationBuilder client =
            JedisClientConfiguration.builder();
        if (target.tls()) {
          client.useSsl();
        }
        JedisConnectionFactory jedis =
            new JedisConnectionFactory(
                config, client.usePooling().poolConfig(seedPoolConfig()).build());
        start(jedis);
        params.put("client", "Jedis through Spring's JedisConnectionFactory");
        params.put("pool", "max 128, min idle 36, test on borrow/return/idle (the seed's)");
        factory = jedis;
      }
      case LETTUCE_SHARED -> {
        LettuceConnectionFactory lettuce =
            new LettuceConnectionFactory(
                config,
                target.tls()
                    ? LettuceClientConfiguration.builder().useSsl().build()
                    : LettuceClientConfiguration.defaultConfiguration());
        lettuce.afterPropertiesSet();
        lettuce.start();
        params.put("client", "Lettuce through Spring's LettuceConnectionFactory");
        params.put("pool", "none: one shared native connection");
        factory = lettuce;
      }
      default -> throw new IllegalArgumentException("no Spring client " + name);
    }
    template = new RedisTemplate<>();
    template.setConnectionFactory(factory);
    template.setKeySerializer(new StringRedisSerializer());
    template.setValueSerializer(RedisSerializer.byteArray());
    template.afterPropertiesSet();
  }

  @SuppressWarnings("deprecation")
  private static JedisPoolConfig seedPoolConfig() {
    JedisPoolConfig pool = new JedisPoolConfig();
    pool.setMaxTotal(128);
    pool.setMaxIdle(128);
    pool.setMinIdle(36);
    pool.setTestOnBorrow(true);
    pool.setTestOnReturn(true);
    pool.setTestWhileIdle(true);
    pool.setMinEvictableIdleTime(Duration.ofSeconds(60));
    pool.setTimeBetweenEvictionRuns(Duration.ofSeconds(30));
    pool.setNumTestsPerEvictionRun(3);
    pool.setBlockWhenExhausted(true);
    return pool;
  }

  private static void start(JedisConnectionFactory factory) {
    factory.afterPropertiesSet();
    factory.start();
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
    return params;
  }

  @Override
  public @Nullable Object get(long index) {
    byte[] bytes = template.opsForValue().get(keyPrefix + ClientsBench.keySuffix(index));
    return bytes == null ? null : codec.decode(bytes);
  }

  @Override
  public void close() {
    if (factory instanceof JedisConnectionFactory jedis) {
      jedis.destroy();
    } else if (factory instanceof LettuceConnectionFactory lettuce) {
      lettuce.destroy();
    }
  }
}
