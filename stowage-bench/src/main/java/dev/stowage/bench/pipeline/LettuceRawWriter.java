package dev.stowage.bench.pipeline;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
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
import org.jspecify.annotations.Nullable;

/**
 * The limit: the items' JSON bytes, encoded before the clock starts, sent as SET commands on one
 * Lettuce connection with automatic flushing off, one flush, then waiting for every reply. No
 * client writes the same bytes faster.
 */
final class LettuceRawWriter implements BulkWriter {

  static final String NAME = "lettuce-raw-pipeline";

  private final RedisClient client;
  private final StatefulRedisConnection<byte[], byte[]> connection;
  private final ObjectMapper mapper = new ObjectMapper();

  @SuppressWarnings(
      "IdentityHashMapUsage") // each template instance's encoding: identity is the point
  private final Map<Item, byte[]> encoded = new IdentityHashMap<>();

  LettuceRawWriter(RedisURI uri) {
    this.client = RedisClient.create(uri);
    this.connection = client.connect(ByteArrayCodec.INSTANCE);
  }

  /**
   * Encodes the items ahead of the timed writes; a write of an item not prepared encodes it then.
   */
  void prepare(List<Item> items) {
    for (Item item : items) {
      encoded.computeIfAbsent(item, this::encode);
    }
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RowRole role() {
    return RowRole.LIMIT;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("client", "Lettuce, auto-flush off, one flush");
    params.put("serializer", "Jackson JSON, encoded before timing");
    return params;
  }

  @Override
  public void write(List<Item> items, String keyPrefix) {
    RedisAsyncCommands<byte[], byte[]> async = connection.async();
    List<RedisFuture<String>> replies = new ArrayList<>(items.size());
    connection.setAutoFlushCommands(false);
    try {
      for (Item item : items) {
        byte[] value = encoded.computeIfAbsent(item, this::encode);
        replies.add(async.set((keyPrefix + item.id()).getBytes(StandardCharsets.UTF_8), value));
      }
      connection.flushCommands();
    } finally {
      connection.setAutoFlushCommands(true);
    }
    if (!LettuceFutures.awaitAll(Duration.ofMinutes(1), replies.toArray(RedisFuture[]::new))) {
      throw new IllegalStateException(
          "Redis did not acknowledge " + items.size() + " SETs within a minute");
    }
  }

  @Override
  public @Nullable Item read(String key) throws IOException {
    byte[] value = connection.sync().get(key.getBytes(StandardCharsets.UTF_8));
    return value == null ? null : mapper.readValue(value, Item.class);
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown();
  }

  private byte[] encode(Item item) {
    try {
      return mapper.writeValueAsBytes(item);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
