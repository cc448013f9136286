package dev.stowage.migration;

import dev.stowage.Codec;
import dev.stowage.codec.Codecs;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;

/**
 * The one-off step of docs/MIGRATION.md for keys that a default {@code RedisTemplate} wrote with
 * JDK serialization: each is read behind the JDK codec's allowlist and renamed to the key a Stowage
 * cache uses for it. A key that already exists under the new name (a newer value) wins, and the old
 * one is deleted.
 */
final class JdkKeyMigration {
  private JdkKeyMigration() {}

  /**
   * Renames every JDK-serialized key to {@code newKey} of its value; returns how many were renamed.
   */
  static int renameJdkKeys(
      RedisConnectionFactory connections, Function<Serializable, String> newKey) {
    Codec<Serializable> keys =
        Codecs.jdk(Serializable.class); // String, Long, UUID, ...: JDK data classes only
    int renamed = 0;
    try (RedisConnection connection = connections.getConnection();
        Cursor<byte[]> scan =
            connection.keyCommands().scan(ScanOptions.scanOptions().count(1000).build())) {
      while (scan.hasNext()) {
        byte[] key = scan.next();
        if (key.length > 2 && (key[0] & 0xff) == 0xac && (key[1] & 0xff) == 0xed) {
          byte[] target = newKey.apply(keys.decode(key)).getBytes(StandardCharsets.UTF_8);
          if (Boolean.TRUE.equals(connection.keyCommands().renameNX(key, target))) {
            renamed++;
          } else {
            connection.keyCommands().del(key);
          }
        }
      }
    }
    return renamed;
  }
}
