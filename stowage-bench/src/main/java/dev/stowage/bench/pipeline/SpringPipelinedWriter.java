package dev.stowage.bench.pipeline;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisURI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.RedisSerializer;

/**
 * The seed's pipelined write, as its cache module does it: {@code executePipelined} with a {@code
 * RedisCallback} that serializes each key and value with the template's own serializers and calls
 * {@code set} on the raw connection. Spring's default flush policy (flush after each command) is
 * kept, as the seed did not change it.
 */
final class SpringPipelinedWriter implements BulkWriter {

  static final String NAME = "spring-executePipelined";

  private final LettuceConnectionFactory factory;
  private final RedisTemplate<String, Object> template;
  private final ObjectMapper mapper = new ObjectMapper();

  SpringPipelinedWriter(RedisURI uri) {
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
    params.put("client", "Spring Data Redis executePipelined (Lettuce, flush after each command)");
    params.put("serializer", "GenericJackson2JsonRedisSerializer");
    return params;
  }

  @Override
  // executePipelined requires its callback to return null (Spring Data Redis 4 declares it
  // non-null).
  @SuppressWarnings({"unchecked", "NullAway"})
  public void write(List<Item> items, String keyPrefix) {
    RedisSerializer<String> keySerializer = (RedisSerializer<String>) template.getKeySerializer();
    RedisSerializer<Object> valueSerializer =
        (RedisSerializer<Object>) template.getValueSerializer();
    template.executePipelined(
        (RedisCallback<Object>)
            connection -> {
              for (Item item : items) {
                connection
                    .stringCommands()
                    .set(
                        keySerializer.serialize(keyPrefix + item.id()),
                        valueSerializer.serialize(item));
              }
              return null;
            });
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
