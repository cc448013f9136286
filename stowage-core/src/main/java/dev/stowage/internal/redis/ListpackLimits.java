package dev.stowage.internal.redis;

import dev.stowage.CacheLayout;
import dev.stowage.internal.connection.RedisSession;
import java.lang.System.Logger.Level;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * The server's {@code hash-max-listpack-*} as a packed cache sees them: the longest value that
 * keeps a bucket a listpack, and the count of stored values longer than that (their bucket is a
 * hashtable, which costs about as much per entry as a key), warned about once.
 */
final class ListpackLimits {
  private static final System.Logger LOG = System.getLogger("dev.stowage.cache");

  /** Redis's defaults, assumed when {@code CONFIG GET} is refused. */
  static final int DEFAULT_LISTPACK_VALUE = 64;

  static final int DEFAULT_LISTPACK_ENTRIES = 128;

  private final String owner;
  private final int value;
  private final AtomicBoolean warned = new AtomicBoolean();
  private final LongAdder oversized = new LongAdder();

  /**
   * Reads {@code hash-max-listpack-*} with {@code CONFIG GET}; Redis's defaults when the command is
   * refused (renamed, or not allowed to this user) or Redis is not reached yet. Warns when buckets
   * are sized above {@code hash-max-listpack-entries}.
   */
  ListpackLimits(RedisSession session, String owner) {
    this.owner = owner;
    int valueLimit = DEFAULT_LISTPACK_VALUE;
    int entries = DEFAULT_LISTPACK_ENTRIES;
    try {
      Map<String, String> config =
          session.await(
              session.call(
                  "CONFIG GET hash-max-listpack-*", c -> c.configGet("hash-max-listpack-*")),
              1,
              "CONFIG GET hash-max-listpack-*");
      valueLimit = parsedOr(config.get("hash-max-listpack-value"), valueLimit);
      entries = parsedOr(config.get("hash-max-listpack-entries"), entries);
    } catch (RuntimeException e) {
      LOG.log(
          Level.DEBUG,
          owner
              + ": could not read hash-max-listpack-* ("
              + e.getMessage()
              + "); assuming "
              + DEFAULT_LISTPACK_VALUE
              + " bytes and "
              + DEFAULT_LISTPACK_ENTRIES
              + " entries, Redis's defaults");
    }
    if (entries < CacheLayout.FIELDS_PER_BUCKET * 3 / 2) {
      LOG.log(
          Level.WARNING,
          owner
              + ": hash-max-listpack-entries is "
              + entries
              + ", but buckets hold about "
              + CacheLayout.FIELDS_PER_BUCKET
              + " entries; fuller buckets become hashtables and lose the packed"
              + " layout's saving (raise it to 128 or more)");
    }
    this.value = valueLimit;
  }

  private static int parsedOr(@Nullable String text, int fallback) {
    if (text == null) {
      return fallback;
    }
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  /** The longest value (or field) that keeps a bucket a listpack on this server. */
  int value() {
    return value;
  }

  long oversized() {
    return oversized.sum();
  }

  /** Counts a stored field and value if either is too long for its bucket to stay a listpack. */
  void stored(int fieldLength, int valueLength) {
    int longest = Math.max(fieldLength, valueLength);
    if (longest <= value) {
      return;
    }
    oversized.increment();
    if (warned.compareAndSet(false, true)) {
      LOG.log(
          Level.WARNING,
          owner
              + ": a stored entry of "
              + longest
              + " bytes is longer than the server's"
              + " hash-max-listpack-value ("
              + value
              + "), so its bucket is a hashtable, which costs about"
              + " as much per entry as a key; raise hash-max-listpack-value or make the values smaller"
              + " (CacheStats.oversizedValues() counts them; this is logged once)");
    }
  }
}
