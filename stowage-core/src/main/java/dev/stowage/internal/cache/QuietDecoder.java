package dev.stowage.internal.cache;

import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.EnvelopeException;
import dev.stowage.MissingLibraryException;
import dev.stowage.SchemaNotFoundException;
import dev.stowage.StowageException;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.redis.DecodeFailureLog;
import dev.stowage.internal.redis.WriteCodec;
import io.lettuce.core.RedisException;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Decodes the values a cache reads, whatever its layout: a value that cannot be decoded (corrupt,
 * foreign, of another type, naming a dictionary or schema that is gone) is counted, logged once per
 * key ({@link DecodeFailureLog}) and read as {@code null}, so a bad value is a miss and not an
 * error. A failure to load the value's dictionary from Redis is Redis's, not the value's, and is
 * thrown as the session translates it.
 */
final class QuietDecoder<V> {
  private final WriteCodec<V> codec;
  private final RedisSession session;
  private final DecodeFailureLog log;
  private final LongAdder failures = new LongAdder();

  QuietDecoder(WriteCodec<V> codec, RedisSession session, String owner) {
    this.codec = codec;
    this.session = session;
    this.log = new DecodeFailureLog(owner);
  }

  /**
   * {@code bytes} decoded with the cache's current codec, or null (counted and logged) if they
   * cannot be.
   */
  @Nullable V decode(String keyText, byte[] bytes) {
    try {
      return codec.current().decode(bytes);
    } catch (CodecException
        | EnvelopeException
        | DictionaryNotFoundException
        | SchemaNotFoundException
        | MissingLibraryException e) {
      fail(keyText, e.getMessage());
      return null;
    } catch (StowageException e) {
      if (e.getCause() instanceof RedisException redis) {
        // Loading the value's dictionary failed: Redis is the problem, not the value.
        throw session.translate(redis, "loading the dictionary of " + keyText);
      }
      throw e;
    }
  }

  /** Counts and logs (once) a value of {@code keyText} that is not decoded, for {@code reason}. */
  void fail(String keyText, @Nullable String reason) {
    failures.increment();
    log.report(keyText, reason);
  }

  /** The values that could not be decoded so far. */
  long failures() {
    return failures.sum();
  }

  /** Whether a failure of {@code keyText} has been logged since the log was last emptied. */
  boolean hasLogged(String keyText) {
    return log.hasLogged(keyText);
  }
}
