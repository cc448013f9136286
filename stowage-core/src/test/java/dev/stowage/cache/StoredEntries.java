package dev.stowage.cache;

import dev.stowage.CacheLayout;
import dev.stowage.embedded.RedisServer;
import java.nio.charset.StandardCharsets;

/**
 * A cache's entries where its layout keeps them ({@link CacheLayout}), read and written behind the
 * cache's back: on the key-per-value layout the string {@code <prefix><key>}, on the packed layout
 * the field {@code <key>} of the hash {@code <prefix>{n}}. The place is worked out from the
 * layout's specification, not asked of the cache, so a test that compares it with {@link
 * dev.stowage.RedisCache#redisKey} checks the layout too.
 */
public final class StoredEntries {
  /** Entries under a prefix: keys of the pattern's type, one per string, a hash's fields. */
  private static final String COUNT =
      """
      local n = 0
      for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
        if redis.call('TYPE', key).ok == ARGV[2] then
          n = n + (ARGV[2] == 'hash' and redis.call('HLEN', key) or 1)
        end
      end
      return n
      """;

  private final RedisServer redis;
  private final CacheLayout layout;
  private final String prefix;

  private StoredEntries(RedisServer redis, CacheLayout layout, String prefix) {
    this.redis = redis;
    this.layout = layout;
    this.prefix = prefix;
  }

  /** The entries of a cache whose key prefix is {@code keyPrefix}, laid out as {@code layout}. */
  public static StoredEntries of(RedisServer redis, CacheLayout layout, String keyPrefix) {
    return new StoredEntries(redis, layout, keyPrefix);
  }

  /** The Redis key that holds the entry of {@code keyText}: its string, or its bucket. */
  public String redisKey(String keyText) {
    return layout.isPacked()
        ? CacheLayout.bucketKey(prefix, layout.bucketOf(keyText))
        : prefix + keyText;
  }

  /** The entry's bytes as stored, or null if Redis holds none. */
  public byte[] get(String keyText) {
    return layout.isPacked()
        ? RawValues.with(redis, c -> c.sync().hget(utf8(redisKey(keyText)), utf8(keyText)))
        : RawValues.get(redis, redisKey(keyText));
  }

  /** Stores {@code value} as the entry's bytes, whatever they are. */
  public void set(String keyText, byte[] value) {
    if (layout.isPacked()) {
      RawValues.with(redis, c -> c.sync().hset(utf8(redisKey(keyText)), utf8(keyText), value));
    } else {
      RawValues.set(redis, redisKey(keyText), value);
    }
  }

  /** Whether Redis holds the entry. */
  public boolean exists(String keyText) {
    Object reply =
        layout.isPacked()
            ? redis.reply("HEXISTS", redisKey(keyText), keyText)
            : redis.reply("EXISTS", redisKey(keyText));
    return Long.valueOf(1).equals(reply);
  }

  /** How many entries Redis holds under the prefix: strings, or fields of buckets. */
  public long count() {
    String escaped = prefix.replaceAll("([*?\\[\\]\\\\])", "\\\\$1");
    Object reply =
        layout.isPacked()
            ? redis.reply("EVAL", COUNT, "0", escaped + "{*}", "hash")
            : redis.reply("EVAL", COUNT, "0", escaped + "*", "string");
    return (Long) reply;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
