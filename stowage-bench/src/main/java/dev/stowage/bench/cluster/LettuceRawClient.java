package dev.stowage.bench.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The limit: the items' JSON bytes, encoded once before the timed runs, sent as {@code SET}s (or
 * {@code GET}s) on one Lettuce connection with automatic flushing off, one flush, then waiting for
 * every reply. On a cluster the connection is Lettuce's cluster connection, which sends each
 * command to the master of its slot. Single reads go through the same connection, flushing each.
 */
final class LettuceRawClient implements BulkClient {

  static final String NAME = "lettuce-raw";

  private static final Duration TIMEOUT = Duration.ofMinutes(1);

  private final AbstractRedisClient client;
  private final StatefulConnection<byte[], byte[]> connection;
  private final RedisStringAsyncCommands<byte[], byte[]> async;
  private final boolean cluster;
  private final ObjectMapper mapper = new ObjectMapper();

  @SuppressWarnings(
      "IdentityHashMapUsage") // each template instance's encoding: identity is the point
  private final Map<Item, byte[]> encoded = new IdentityHashMap<>();

  LettuceRawClient(Topology topology) {
    this.cluster = topology.isCluster();
    if (cluster) {
      RedisClusterClient clusterClient = RedisClusterClient.create(topology.seeds());
      StatefulRedisClusterConnection<byte[], byte[]> clusterConnection =
          clusterClient.connect(ByteArrayCodec.INSTANCE);
      // Opens the connection to every master before automatic flushing is turned off: a command
      // routed to a master whose connection Lettuce opens only then is queued on that connection
      // after the one flush, and waits there for good (the run failed with no reply in a minute).
      // Slot routing keys its connections by host and port, as getConnection(host, port) does.
      for (RedisClusterNode node : clusterConnection.getPartitions()) {
        if (node.is(RedisClusterNode.NodeFlag.UPSTREAM)) {
          clusterConnection.getConnection(node.getUri().getHost(), node.getUri().getPort());
        }
      }
      this.client = clusterClient;
      this.connection = clusterConnection;
      this.async = clusterConnection.async();
    } else {
      RedisClient redisClient = RedisClient.create(topology.seeds().get(0));
      StatefulRedisConnection<byte[], byte[]> redisConnection =
          redisClient.connect(ByteArrayCodec.INSTANCE);
      this.client = redisClient;
      this.connection = redisConnection;
      this.async = redisConnection.async();
    }
  }

  /** Encodes the items ahead of the timed runs; a write of an item not prepared encodes it then. */
  void prepare(List<Item> items) {
    for (Item item : items) {
      encoded.computeIfAbsent(item, this::encode);
    }
  }

  @Override
  public String client() {
    return NAME;
  }

  @Override
  public RowRole role() {
    return RowRole.LIMIT;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put(
        "client",
        "Lettuce "
            + (cluster ? "cluster connection" : "connection")
            + ", auto-flush off, one flush");
    params.put("serializer", "Jackson JSON, encoded before timing");
    return params;
  }

  @Override
  public void putAll(List<Item> items, String keyPrefix) {
    List<RedisFuture<?>> replies = new ArrayList<>(items.size());
    connection.setAutoFlushCommands(false);
    try {
      for (Item item : items) {
        replies.add(
            async.set(key(keyPrefix, item.id()), encoded.computeIfAbsent(item, this::encode)));
      }
      connection.flushCommands();
    } finally {
      connection.setAutoFlushCommands(true);
    }
    await(replies, "SET");
  }

  @Override
  public List<@Nullable Item> getAll(List<Long> ids, String keyPrefix) throws Exception {
    List<RedisFuture<byte[]>> replies = new ArrayList<>(ids.size());
    connection.setAutoFlushCommands(false);
    try {
      for (long id : ids) {
        replies.add(async.get(key(keyPrefix, id)));
      }
      connection.flushCommands();
    } finally {
      connection.setAutoFlushCommands(true);
    }
    await(new ArrayList<>(replies), "GET");
    List<@Nullable Item> items = new ArrayList<>(ids.size());
    for (RedisFuture<byte[]> reply : replies) {
      items.add(decode(reply.get()));
    }
    return items;
  }

  @Override
  public @Nullable Item get(String keyPrefix, long id) throws Exception {
    return decode(async.get(key(keyPrefix, id)).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }

  private static byte[] key(String keyPrefix, long id) {
    return (keyPrefix + id).getBytes(StandardCharsets.UTF_8);
  }

  private static void await(List<RedisFuture<?>> replies, String command) {
    if (!LettuceFutures.awaitAll(TIMEOUT, replies.toArray(RedisFuture[]::new))) {
      throw new IllegalStateException(
          "Redis did not answer " + replies.size() + " " + command + "s within a minute");
    }
  }

  private @Nullable Item decode(byte @Nullable [] value) throws IOException {
    return value == null ? null : mapper.readValue(value, Item.class);
  }

  private byte[] encode(Item item) {
    try {
      return mapper.writeValueAsBytes(item);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
