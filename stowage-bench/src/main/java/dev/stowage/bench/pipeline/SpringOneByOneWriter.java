package dev.stowage.bench.pipeline;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisURI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;

/** The seed's "one by one": {@code redisTemplate.opsForValue().set(key, item)} for each item. */
final class SpringOneByOneWriter implements BulkWriter {

  static final String NAME = "spring-one-by-one";

  private final LettuceConnectionFactory factory;
  private final RedisTemplate<String, Object> template;
  private final ObjectMapper mapper = new ObjectMapper();

  SpringOneByOneWriter(RedisURI uri) {
    this.factory = SpringTemplates.lettuceFactory(uri);
    this.template = SpringTemplates.seedTemplate(factory);
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RowRole role() {
    return RowRole.SEED;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("client", "Spring Data Redis RedisTemplate (Lettuce)");
    params.put("serializer", "GenericJackson2JsonRedisSerializer");
    return params;
  }

  @Override
  public void write(List<Item> items, String keyPrefix) {
    for (Item item : items) {
      template.opsForValue().set(keyPrefix + item.id(), item);
    }
  }

  @Override
  public Item read(String key) {
    return SpringTemplates.asItem(template.opsForValue().get(key), mapper);
  }

  @Override
  public void close() {
    factory.destroy();
  }
}
