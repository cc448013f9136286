package dev.stowage.bench.pipeline;

import dev.stowage.bench.RedisTarget;
import dev.stowage.bench.RowRole;
import dev.stowage.samples.Item;
import io.lettuce.core.RedisURI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.redisson.Redisson;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RedissonClient;

/**
 * Redisson's batch: one {@code RBatch} of bucket sets, executed once, with Redisson's default codec
 * and batch options, except a response timeout of a minute so that a busy machine cannot fail it.
 */
final class RedissonBatchWriter implements BulkWriter {

  static final String NAME = "redisson-RBatch";

  private final RedissonClient redisson;

  RedissonBatchWriter(RedisURI uri) {
    this.redisson = Redisson.create(new RedisTarget(uri).redisson());
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public RowRole role() {
    return RowRole.PEER;
  }

  @Override
  public Map<String, Object> params() {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("client", "Redisson RBatch");
    params.put(
        "serializer",
        redisson.getConfig().getCodec().getClass().getSimpleName() + " (Redisson's default)");
    return params;
  }

  @Override
  public void write(List<Item> items, String keyPrefix) {
    RBatch batch =
        redisson.createBatch(BatchOptions.defaults().responseTimeout(1, TimeUnit.MINUTES));
    for (Item item : items) {
      var unusedReply = batch.<Item>getBucket(keyPrefix + item.id()).setAsync(item);
    }
    batch.execute();
  }

  @Override
  public Item read(String key) {
    return redisson.<Item>getBucket(key).get();
  }

  @Override
  public void close() {
    redisson.shutdown();
  }
}
