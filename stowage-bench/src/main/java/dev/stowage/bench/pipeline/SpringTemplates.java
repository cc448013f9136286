package dev.stowage.bench.pipeline;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.bench.RedisTarget;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisURI;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.GenericJackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.StringRedisSerializer;

/**
 * The second seed's Spring setup: Spring Boot's default client (Lettuce), a {@code
 * RedisTemplate<String, Object>} with string keys and Jackson JSON values with type information
 * ({@code GenericJackson2JsonRedisSerializer}), the usual pairing for a cache module.
 */
final class SpringTemplates {

  private SpringTemplates() {}

  /** A started connection factory for the server at {@code uri}, with Spring's defaults. */
  static LettuceConnectionFactory lettuceFactory(RedisURI uri) {
    RedisTarget target = new RedisTarget(uri);
    LettuceConnectionFactory factory =
        new LettuceConnectionFactory(
            target.springStandalone(),
            target.tls()
                ? LettuceClientConfiguration.builder().useSsl().build()
                : LettuceClientConfiguration.defaultConfiguration());
    factory.afterPropertiesSet();
    factory.start();
    return factory;
  }

  /** The seed's template on {@code factory}. */
  static RedisTemplate<String, Object> seedTemplate(LettuceConnectionFactory factory) {
    RedisTemplate<String, Object> template = new RedisTemplate<>();
    template.setConnectionFactory(factory);
    template.setKeySerializer(new StringRedisSerializer());
    template.setValueSerializer(new GenericJackson2JsonRedisSerializer());
    template.afterPropertiesSet();
    return template;
  }

  /** The value as an item, whether Jackson rebuilt the record or left a map. */
  static Item asItem(Object value, ObjectMapper mapper) {
    if (value == null || value instanceof Item) {
      return (Item) value;
    }
    return mapper.convertValue(value, Item.class);
  }
}
