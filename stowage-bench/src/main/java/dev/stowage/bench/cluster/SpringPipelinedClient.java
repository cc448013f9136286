package dev.stowage.bench.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.bench.RedisTarget;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.GenericJackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.StringRedisSerializer;

/**
 * Spring Data Redis's pipelining, as the second seed's cache module writes: {@code
 * executePipelined} with a {@code RedisCallback} of {@code SET}s (or {@code GET}s) on the raw
 * connection, keys and values through the template's serializers (strings, and {@code
 * GenericJackson2JsonRedisSerializer}), on Spring's default Lettuce connection factory; on a
 * cluster, the factory is made with a {@code RedisClusterConfiguration} of the seeds.
 */
final class SpringPipelinedClient implements BulkClient {

  static final String NAME = "spring-pipelined";

  private final LettuceConnectionFactory factory;
  private final RedisTemplate<String, Object> template;
  private final ObjectMapper mapper = new ObjectMapper();
  private final boolean cluster;

  SpringPipelinedClient(Topology topology) {
    this.cluster = topology.isCluster();
    RedisURI first = topology.seeds().get(0);
    LettuceClientConfiguration client =
        first.isSsl()
            ? LettuceClientConfiguration.builder().useSsl().build()
            : LettuceClientConfiguration.defaultConfiguration();
    this.factory =
        cluster
            ? new LettuceConnectionFactory(clusterConfiguration(topology.seeds()), client)
            : new LettuceConnectionFactory(new RedisTarget(first).springStandalone(), client);
    factory.afterPropertiesSet();
    factory.start();
    this.template = new RedisTemplate<>();
    template.setConnectionFactory(factory);
    template.setKeySerializer(new StringRedisSerializer());
    template.setValueSerializer(new GenericJackson2JsonRedisSerializer());
    template.afterPropertiesSet();
  }

  private static RedisClusterConfiguration clusterConfiguration(List<RedisURI> seeds) {
    List<String> nodes = seeds.stream().map(seed -> seed.getHost() + ":" + seed.getPort()).toList();
    RedisClusterConfiguration config = new RedisClusterConfiguration(nodes);
    RedisURI first = seeds.get(0);
    RedisCredentials credentials = RedisTarget.credentials(first);
    if (credentials.getUsername() != null) {
      config.setUsername(credentials.getUsername());
    }
    if (credentials.getPassword() != null) {
      config.setPassword(RedisPassword.of(credentials.getPassword()));
    }
    return config;
  }

  @Override
  public String client() {
    return NAME;
  }

  @Override
  public RowRole role() {
    return RowRole.PEER;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put(
        "client",
        "Spring Data Redis executePipelined (Lettuce"
            + (cluster ? ", RedisClusterConfiguration" : "")
            + ", flush after each command)");
    params.put("serializer", "GenericJackson2JsonRedisSerializer");
    return params;
  }

  @Override
  // executePipelined requires its callback to return null (Spring Data Redis 4 declares it
  // non-null).
  @SuppressWarnings({"unchecked", "NullAway"})
  public void putAll(List<Item> items, String keyPrefix) {
    RedisSerializer<String> keys = (RedisSerializer<String>) template.getKeySerializer();
    RedisSerializer<Object> values = (RedisSerializer<Object>) template.getValueSerializer();
    template.executePipelined(
        (RedisCallback<Object>)
            connection -> {
              for (Item item : items) {
                connection
                    .stringCommands()
                    .set(keys.serialize(keyPrefix + item.id()), values.serialize(item));
              }
              return null;
            });
  }

  @Override
  // executePipelined requires its callback to return null (Spring Data Redis 4 declares it
  // non-null).
  @SuppressWarnings({"unchecked", "NullAway"})
  public List<@Nullable Item> getAll(List<Long> ids, String keyPrefix) {
    RedisSerializer<String> keys = (RedisSerializer<String>) template.getKeySerializer();
    List<Object> replies =
        template.executePipelined(
            (RedisCallback<Object>)
                connection -> {
                  for (long id : ids) {
                    connection.stringCommands().get(keys.serialize(keyPrefix + id));
                  }
                  return null;
                });
    List<@Nullable Item> items = new ArrayList<>(replies.size());
    for (Object reply : replies) {
      items.add(asItem(reply));
    }
    return items;
  }

  @Override
  public @Nullable Item get(String keyPrefix, long id) {
    return asItem(template.opsForValue().get(keyPrefix + id));
  }

  @Override
  public void close() {
    factory.destroy();
  }

  /** The value as an item, whether Jackson rebuilt the record or left a map. */
  private @Nullable Item asItem(@Nullable Object value) {
    if (value == null || value instanceof Item) {
      return (Item) value;
    }
    return mapper.convertValue(value, Item.class);
  }
}
