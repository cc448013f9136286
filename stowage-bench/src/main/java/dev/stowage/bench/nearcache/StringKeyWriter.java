package dev.stowage.bench.nearcache;

import dev.stowage.Encoding;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.util.concurrent.CompletionStage;

/**
 * The writer of the rows that read Redis strings: a {@code SET} of the item's envelope on a plain
 * Lettuce connection of its own (RESP2, not tracking), as another process would write.
 */
final class StringKeyWriter implements ItemWriter {

  private final KeySpace keys;
  private final Encoding.Serializer<Item> envelope;
  private final RedisClient client;
  private final StatefulRedisConnection<byte[], byte[]> connection;

  StringKeyWriter(RedisURI uri, KeySpace keys, Encoding.Serializer<Item> envelope) {
    this.keys = keys;
    this.envelope = envelope;
    this.client = RedisClient.create(uri);
    try {
      this.connection = client.connect(ByteArrayCodec.INSTANCE);
    } catch (RuntimeException e) {
      client.shutdown();
      throw e;
    }
  }

  @Override
  public CompletionStage<?> write(int index, Item item) {
    return connection.async().set(keys.keyBytes(index), envelope.encode(item));
  }

  @Override
  public String describe() {
    return "SET of the envelope on a plain Lettuce connection of its own";
  }

  @Override
  public void close() {
    try {
      connection.close();
    } finally {
      client.shutdown();
    }
  }
}
