package dev.stowage.cache;

import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.format.FeedLayout;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Reads and writes raw bytes on the testkit's Redis, behind the cache's back. */
final class RawValues {
  private RawValues() {}

  static byte[] get(RedisServer redis, String key) {
    return with(redis, c -> c.sync().get(utf8(key)));
  }

  static void set(RedisServer redis, String key, byte[] value) {
    with(redis, c -> c.sync().set(utf8(key), value));
  }

  /** A hash field as UTF-8 text, or null. */
  static String hget(RedisServer redis, String key, String field) {
    byte[] value = with(redis, c -> c.sync().hget(utf8(key), utf8(field)));
    return value == null ? null : new String(value, StandardCharsets.UTF_8);
  }

  /** Every member of a feed's buckets, bucket by bucket, as stored ({@link FeedLayout}). */
  static List<byte[]> members(RedisServer redis, String feedKey) {
    return with(
        redis,
        c -> {
          List<byte[]> members = new ArrayList<>();
          for (byte[] bucket : c.sync().zrange(utf8(feedKey), 0, -1)) {
            long number = Long.parseLong(new String(bucket, StandardCharsets.US_ASCII));
            members.addAll(c.sync().lrange(utf8(FeedLayout.bucketKey(feedKey, number)), 0, -1));
          }
          return members;
        });
  }

  /** Runs {@code work} on a connection of its own that reads and writes bytes. */
  static <T> T with(RedisServer redis, Function<StatefulRedisConnection<byte[], byte[]>, T> work) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      return work.apply(connection);
    } finally {
      client.shutdown();
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
