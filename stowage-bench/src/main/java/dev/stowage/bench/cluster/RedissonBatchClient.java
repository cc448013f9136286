package dev.stowage.bench.cluster;

import dev.stowage.bench.RedisTarget;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.redisson.Redisson;
import org.redisson.api.BatchOptions;
import org.redisson.api.BatchResult;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;
import org.redisson.config.ClusterServersConfig;
import org.redisson.config.Config;

/**
 * Redisson's batch: one {@code RBatch} of bucket sets (or gets), executed once, with Redisson's
 * default codec and batch options, except a response timeout of a minute so that a busy machine
 * cannot fail it. On a cluster Redisson's cluster mode splits the batch by master itself.
 */
final class RedissonBatchClient implements BulkClient {

  static final String NAME = "redisson-RBatch";

  private final RedissonClient redisson;
  private final boolean cluster;

  RedissonBatchClient(Topology topology) {
    this.cluster = topology.isCluster();
    this.redisson =
        Redisson.create(
            cluster
                ? clusterConfig(topology.seeds())
                : new RedisTarget(topology.seeds().get(0)).redisson());
  }

  private static Config clusterConfig(List<RedisURI> seeds) {
    Config config = new Config();
    ClusterServersConfig servers = config.useClusterServers();
    for (RedisURI seed : seeds) {
      servers.addNodeAddress(
          (seed.isSsl() ? "rediss://" : "redis://") + seed.getHost() + ":" + seed.getPort());
      RedisCredentials credentials = RedisTarget.credentials(seed);
      if (credentials.getUsername() != null) {
        servers.setUsername(credentials.getUsername());
      }
      if (credentials.getPassword() != null) {
        servers.setPassword(new String(credentials.getPassword()));
      }
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
    params.put("client", "Redisson RBatch" + (cluster ? " (useClusterServers)" : ""));
    params.put(
        "serializer",
        redisson.getConfig().getCodec().getClass().getSimpleName() + " (Redisson's default)");
    return params;
  }

  @Override
  public void putAll(List<Item> items, String keyPrefix) {
    RBatch batch = newBatch();
    for (Item item : items) {
      var unusedReply = batch.<Item>getBucket(keyPrefix + item.id()).setAsync(item);
    }
    batch.execute();
  }

  @Override
  public List<@Nullable Item> getAll(List<Long> ids, String keyPrefix) {
    RBatch batch = newBatch();
    for (long id : ids) {
      var unusedReply2 = batch.<Item>getBucket(keyPrefix + id).getAsync();
    }
    BatchResult<?> result = batch.execute();
    List<@Nullable Item> items = new ArrayList<>(ids.size());
    for (Object value : result.getResponses()) {
      items.add((Item) value);
    }
    return items;
  }

  @Override
  public @Nullable Item get(String keyPrefix, long id) {
    return redisson.<Item>getBucket(keyPrefix + id).get();
  }

  @Override
  public void close() {
    redisson.shutdown();
  }

  private RBatch newBatch() {
    return redisson.createBatch(BatchOptions.defaults().responseTimeout(1, TimeUnit.MINUTES));
  }
}
