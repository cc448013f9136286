package dev.stowage.board;

import dev.stowage.EnvelopeCodec;
import dev.stowage.FeedLayout;
import dev.stowage.StowageKeys;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.ZstdDictionary;
import dev.stowage.embedded.RedisServer;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Function;

/**
 * Stowage mode's feed as Redis holds it ({@link FeedLayout}: the index {@value BoardKeys#FEED}, the
 * open buckets {@code board:b:<n>} and the sealed ones {@code board:s:<n>}), read and changed the
 * way another client would.
 */
final class StoredFeed {
  private static final byte[] INDEX = bytes(BoardKeys.FEED);

  private StoredFeed() {}

  /** The number of posts in the feed: a sealed bucket's count is in its index member. */
  static long size(RedisServer redis) {
    return (Long)
        redis.reply(
            "EVAL",
            "local n = 0"
                + " for _, b in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do"
                + " local c = string.match(b, '^%d+:(%d+)$')"
                + " n = n + (c and tonumber(c) or redis.call('LLEN', KEYS[1] .. '"
                + StowageKeys.FEED_BUCKET_INFIX
                + "' .. b))"
                + " end return n",
            "1",
            BoardKeys.FEED);
  }

  /**
   * The post's own envelope, whether its bucket is open or sealed (inside a sealed bucket, as
   * uncompressed as it was sealed), or null when the feed does not hold it.
   */
  static byte[] envelope(RedisServer redis, long score) {
    byte[] member = member(redis, score);
    return member == null ? null : FeedLayout.envelope(member);
  }

  /**
   * The stored value of sealed bucket {@code bucket}, whose header says how it is compressed, or
   * null.
   */
  static byte[] sealed(RedisServer redis, long bucket) {
    return with(redis, sync -> sync.get(sealedKey(bucket)));
  }

  /** The envelope of the newest post, or null when the feed is empty. */
  static byte[] newestEnvelope(RedisServer redis) {
    List<byte[]> members =
        with(
            redis,
            sync -> {
              List<byte[]> newest = sync.zrevrange(INDEX, 0, 0);
              return newest.isEmpty() ? List.<byte[]>of() : members(sync, text(newest.get(0)));
            });
    return members.isEmpty() ? null : FeedLayout.envelope(members.get(members.size() - 1));
  }

  /**
   * Removes the post scored {@code score} from its open bucket as another client would; whether the
   * feed held it there.
   *
   * @throws IllegalStateException if its bucket is sealed
   */
  static boolean remove(RedisServer redis, long score) {
    long bucket = FeedLayout.bucketOf(score);
    if (sealed(redis, bucket) != null) {
      throw new IllegalStateException(
          "bucket " + bucket + " is sealed: remove a post of an open bucket");
    }
    byte[] member = member(redis, score);
    if (member == null) {
      return false;
    }
    return with(redis, sync -> sync.lrem(bucketKey(bucket), 1, member) == 1);
  }

  /** Deletes the whole feed, index and buckets, open and sealed. */
  static void delete(RedisServer redis) {
    redis.reply(
        "EVAL",
        "for _, b in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do"
            + " local n = string.match(b, '^(%d+):%d+$')"
            + " if n then redis.call('DEL', KEYS[1] .. '"
            + StowageKeys.FEED_SEALED_INFIX
            + "' .. n)"
            + " else redis.call('DEL', KEYS[1] .. '"
            + StowageKeys.FEED_BUCKET_INFIX
            + "' .. b) end end"
            + " return redis.call('DEL', KEYS[1])",
        "1",
        BoardKeys.FEED);
  }

  private static byte[] member(RedisServer redis, long score) {
    return with(
        redis,
        sync -> {
          long bucket = FeedLayout.bucketOf(score);
          for (byte[] indexMember : sync.zrangebyscore(INDEX, Range.create(bucket, bucket))) {
            for (byte[] member : members(sync, text(indexMember))) {
              if (FeedLayout.score(member) == score) {
                return member;
              }
            }
          }
          return null;
        });
  }

  /**
   * The members of the bucket an index member names: an open bucket's list, or a sealed bucket's
   * value decompressed, with the dictionaries Redis holds.
   */
  private static List<byte[]> members(RedisCommands<byte[], byte[]> sync, String indexMember) {
    if (FeedLayout.sealedCount(indexMember) < 0) {
      return sync.lrange(bucketKey(Long.parseLong(indexMember)), 0, -1);
    }
    byte[] value =
        sync.get(sealedKey(Long.parseLong(indexMember.substring(0, indexMember.indexOf(':')))));
    if (value == null) {
      return List.of();
    }
    EnvelopeCodec<String> reader =
        EnvelopeCodec.builder(Codecs.string())
            .dictionaries(id -> ZstdDictionary.of(sync.get(bytes(StowageKeys.dictionary(id)))))
            .build();
    return FeedLayout.sealedMembers(reader.decodePayload(value));
  }

  private static byte[] bucketKey(long bucket) {
    return bytes(FeedLayout.bucketKey(BoardKeys.FEED, bucket));
  }

  private static byte[] sealedKey(long bucket) {
    return bytes(FeedLayout.sealedKey(BoardKeys.FEED, bucket));
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

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }
}
