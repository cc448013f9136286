package dev.stowage.board;

import dev.stowage.FeedLayout;
import dev.stowage.StowageKeys;
import dev.stowage.embedded.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/**
 * Stowage mode's feed as Redis holds it ({@link FeedLayout}: the index {@value BoardKeys#FEED} and
 * the buckets {@code board:b:<n>}), read and changed the way another client would.
 */
final class StoredFeed {
  private static final byte[] INDEX = bytes(BoardKeys.FEED);

  private StoredFeed() {}

  /** The number of posts in the feed. */
  static long size(RedisServer redis) {
    return (Long) redis.reply("EVAL", "local n = 0"
        + " for _, b in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do"
        + " n = n + redis.call('LLEN', KEYS[1] .. '" + StowageKeys.FEED_BUCKET_INFIX + "' .. b) end"
        + " return n", "1", BoardKeys.FEED);
  }

  /** The envelope of the post scored {@code score}, or null when the feed does not hold it. */
  static byte[] envelope(RedisServer redis, long score) {
    byte[] member = member(redis, score);
    return member == null ? null : FeedLayout.envelope(member);
  }

  /** The envelope of the newest post, or null when the feed is empty. */
  static byte[] newestEnvelope(RedisServer redis) {
    return with(redis, sync -> {
      List<byte[]> newest = sync.zrevrange(INDEX, 0, 0);
      if (newest.isEmpty()) {
        return null;
      }
      byte[] member = sync.lindex(bucketKey(Long.parseLong(text(newest.get(0)))), -1);
      return member == null ? null : FeedLayout.envelope(member);
    });
  }

  /** Removes the post scored {@code score} as another client would; whether the feed held it. */
  static boolean remove(RedisServer redis, long score) {
    byte[] member = member(redis, score);
    if (member == null) {
      return false;
    }
    return with(redis, sync -> sync.lrem(bucketKey(FeedLayout.bucketOf(score)), 1, member) == 1);
  }

  /** Deletes the whole feed, index and buckets. */
  static void delete(RedisServer redis) {
    redis.reply("EVAL", "for _, b in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do"
        + " redis.call('DEL', KEYS[1] .. '" + StowageKeys.FEED_BUCKET_INFIX + "' .. b) end"
        + " return redis.call('DEL', KEYS[1])", "1", BoardKeys.FEED);
  }

  private static byte[] member(RedisServer redis, long score) {
    return with(redis, sync -> {
      for (byte[] member : sync.lrange(bucketKey(FeedLayout.bucketOf(score)), 0, -1)) {
        if (FeedLayout.score(member) == score) {
          return member;
        }
      }
      return null;
    });
  }

  private static byte[] bucketKey(long bucket) {
    return bytes(FeedLayout.bucketKey(BoardKeys.FEED, bucket));
  }

  private static <T> T with(RedisServer redis, Function<RedisCommands<byte[], byte[]>, T> work) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
      return work.apply(connection.sync());
    } finally {
      client.shutdown();
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
