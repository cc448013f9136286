package dev.stowage.board;

import dev.stowage.Inspector;
import dev.stowage.Stowage;
import dev.stowage.embedded.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * Stowage mode's feed as Redis holds it, read through core's {@link Inspector} (the index {@value
 * BoardKeys#FEED}, its open and sealed buckets, named by {@link Inspector.Keys}), and changed the
 * way another client would.
 */
final class StoredFeed {
  private static final byte[] INDEX = bytes(BoardKeys.FEED);

  private StoredFeed() {}

  /**
   * The number of posts in the feed, open and sealed buckets alike: a sealed bucket's count is in
   * its index member ({@code <n>:<count>}), an open bucket's is its list's length.
   */
  static long size(RedisServer redis) {
    return with(
        redis,
        sync -> {
          long size = 0;
          for (byte[] member : sync.zrange(INDEX, 0, -1)) {
            String text = new String(member, StandardCharsets.UTF_8);
            int colon = text.indexOf(':');
            size +=
                colon >= 0
                    ? Long.parseLong(text.substring(colon + 1))
                    : sync.llen(
                        bytes(Inspector.Keys.feedBucket(BoardKeys.FEED, Long.parseLong(text))));
          }
          return size;
        });
  }

  /**
   * The post's own envelope, whether its bucket is open or sealed (inside a sealed bucket, as
   * uncompressed as it was sealed), or null when the feed does not hold it.
   */
  static byte[] envelope(RedisServer redis, long score) {
    Inspector.FeedEntry entry = entry(redis, score);
    return entry == null ? null : entry.value();
  }

  /**
   * The stored value of sealed bucket {@code bucket}, whose header says how it is compressed, or
   * null.
   */
  static byte[] sealed(RedisServer redis, long bucket) {
    return with(
        redis, sync -> sync.get(bytes(Inspector.Keys.feedSealedBucket(BoardKeys.FEED, bucket))));
  }

  /** The envelope of the newest post, or null when the feed is empty. */
  static byte[] newestEnvelope(RedisServer redis) {
    List<Inspector.FeedEntry> entries = entries(redis);
    return entries.isEmpty() ? null : entries.get(entries.size() - 1).value();
  }

  /**
   * Removes the post scored {@code score} from its open bucket as another client would; whether the
   * feed held it there.
   *
   * @throws IllegalStateException if its bucket is sealed
   */
  static boolean remove(RedisServer redis, long score) {
    Inspector.FeedEntry entry = entry(redis, score);
    if (entry == null) {
      return false;
    }
    if (entry.sealed()) {
      throw new IllegalStateException(
          "bucket " + entry.bucket() + " is sealed: remove a post of an open bucket");
    }
    byte[] envelope = entry.value();
    byte[] list = bytes(Inspector.Keys.feedBucket(BoardKeys.FEED, entry.bucket()));
    return with(
        redis,
        sync -> {
          // An element is the score's varint (1 to 8 bytes) followed by the envelope.
          for (byte[] element : sync.lrange(list, 0, -1)) {
            int prefix = element.length - envelope.length;
            if (prefix >= 1
                && prefix <= 8
                && Arrays.equals(element, prefix, element.length, envelope, 0, envelope.length)) {
              return sync.lrem(list, 1, element) == 1;
            }
          }
          return false;
        });
  }

  /** Deletes the whole feed, index and buckets, open and sealed. */
  static void delete(RedisServer redis) {
    with(
        redis,
        sync -> {
          for (byte[] member : sync.zrange(INDEX, 0, -1)) {
            String text = new String(member, StandardCharsets.UTF_8);
            int colon = text.indexOf(':');
            long bucket = Long.parseLong(colon < 0 ? text : text.substring(0, colon));
            sync.del(
                bytes(Inspector.Keys.feedBucket(BoardKeys.FEED, bucket)),
                bytes(Inspector.Keys.feedSealedBucket(BoardKeys.FEED, bucket)));
          }
          return sync.del(INDEX);
        });
  }

  private static Inspector.FeedEntry entry(RedisServer redis, long score) {
    for (Inspector.FeedEntry entry : entries(redis)) {
      if (entry.score() == score) {
        return entry;
      }
    }
    return null;
  }

  private static List<Inspector.FeedEntry> entries(RedisServer redis) {
    try (Stowage stowage = Stowage.builder().redis(redis.uri()).build()) {
      return stowage.inspector().feedEntries(BoardKeys.FEED);
    }
  }

  private static <T> T with(RedisServer redis, Function<RedisCommands<byte[], byte[]>, T> work) {
    RedisClient client = RedisClient.create(redis.uri());
    try (StatefulRedisConnection<byte[], byte[]> connection =
        client.connect(ByteArrayCodec.INSTANCE)) {
      return work.apply(connection.sync());
    } finally {
      client.shutdown();
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
