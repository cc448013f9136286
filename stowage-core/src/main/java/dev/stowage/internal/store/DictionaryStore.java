package dev.stowage.internal.store;

import static java.util.Objects.requireNonNull;

import dev.stowage.DictionaryNotFoundException;
import dev.stowage.StowageException;
import dev.stowage.internal.compress.DictionaryResolver;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.connection.SharedCommands;
import dev.stowage.internal.format.StowageKeys;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Stores zstd dictionaries in Redis and resolves them for readers. Each dictionary lives under
 * {@code stowage:dict:<hexId>}, written once with {@code SET NX} and never changed: its key is
 * derived from its content. A dictionary is loaded on first use and then cached in this process, as
 * is every dictionary saved through this store. Loaded bytes are checked against their id.
 *
 * <pre>{@code
 * DictionaryStore store = new DictionaryStore(client.connect(ByteArrayCodec.INSTANCE));
 * store.save(dictionary);
 * EnvelopeCodec.builder(codec).compression(Compression.zstd(dictionary)).dictionaries(store).build();
 * }</pre>
 *
 * <p>The connection is to one server ({@code StatefulRedisConnection}) or to a Redis Cluster
 * ({@code StatefulRedisClusterConnection}): each dictionary is one key, read and written alone, so
 * on a cluster it lives on the master that serves its slot and is found from any node, and {@link
 * #list()} scans every master.
 *
 * <p>Thread-safe. The connection is shared, not owned: closing it is the caller's job. Redis
 * failures are thrown as {@link StowageException}.
 */
public final class DictionaryStore implements DictionaryResolver {
  /** How long an id that Redis did not hold is answered as missing without asking again. */
  public static final Duration MISSING_RECHECK = Duration.ofSeconds(1);

  private final Supplier<? extends StatefulConnection<byte[], byte[]>> connection;
  private final ConcurrentMap<Long, ZstdDictionary> cache = new ConcurrentHashMap<>();
  private final RecentlyMissing<Long> missing = new RecentlyMissing<>(MISSING_RECHECK);

  /**
   * A store over a connection with byte-array keys and values, such as {@code ByteArrayCodec}'s: a
   * {@code StatefulRedisConnection} or a {@code StatefulRedisClusterConnection}.
   *
   * @throws IllegalArgumentException if the connection is neither
   */
  public DictionaryStore(StatefulConnection<byte[], byte[]> connection) {
    SharedCommands.async(connection);
    requireNonNull(connection, "connection");
    this.connection = () -> connection;
  }

  /**
   * A store over the connection {@code connection} gives at each use, for a connection that may not
   * exist yet or may be replaced; the supplier may throw a {@link StowageException} (such as {@link
   * dev.stowage.CacheUnavailableException}) when there is none, which the call then throws.
   */
  public static DictionaryStore over(
      Supplier<? extends StatefulConnection<byte[], byte[]>> connection) {
    return new DictionaryStore(requireNonNull(connection, "connection"));
  }

  private DictionaryStore(Supplier<? extends StatefulConnection<byte[], byte[]>> connection) {
    this.connection = connection;
  }

  /**
   * The Redis key of dictionary {@code id}: {@code stowage:dict:<8 hex digits>}, as {@link
   * StowageKeys#dictionary} names it.
   */
  public static String key(long id) {
    return StowageKeys.dictionary(id);
  }

  /**
   * Stores a dictionary unless its key exists, and caches it.
   *
   * @return {@code true} if this call stored it, {@code false} if Redis already held it
   * @throws StowageException if Redis fails, or the key holds other bytes than the dictionary
   */
  public boolean save(ZstdDictionary dictionary) {
    requireNonNull(dictionary, "dictionary");
    byte[] key = keyBytes(dictionary.id());
    boolean stored;
    try {
      RedisClusterCommands<byte[], byte[]> redis = sync();
      stored = "OK".equals(redis.set(key, dictionary.bytes(), SetArgs.Builder.nx()));
      if (!stored) {
        byte[] existing = redis.get(key);
        if (existing != null && !Arrays.equals(existing, dictionary.bytes())) {
          throw new StowageException(
              key(dictionary.id())
                  + " already holds "
                  + existing.length
                  + " other bytes (hashing to "
                  + ZstdDictionary.hexId(ZstdDictionary.idOf(existing))
                  + "); the stored dictionary is corrupt and was left as it is");
        }
      }
    } catch (RedisException e) {
      throw new StowageException(
          "could not save zstd dictionary " + dictionary.hexId() + " to Redis: " + e.getMessage(),
          e);
    }
    cache.putIfAbsent(dictionary.id(), dictionary);
    missing.found(dictionary.id());
    return stored;
  }

  /**
   * As {@link #save}, without blocking: stores the dictionary unless its key exists, then, if it
   * existed, reads it back to check that it holds the same bytes. The dictionary is cached at once.
   * The future completes with whether this call stored it, and fails as {@code save} throws, with
   * Redis's own exception as the cause of a {@link StowageException} when Redis failed, and a
   * {@code StowageException} without cause when the key holds other bytes (which are left as they
   * are).
   */
  public CompletableFuture<Boolean> saveAsync(ZstdDictionary dictionary) {
    requireNonNull(dictionary, "dictionary");
    cache.putIfAbsent(dictionary.id(), dictionary);
    missing.found(dictionary.id());
    byte[] key = keyBytes(dictionary.id());
    try {
      RedisClusterAsyncCommands<byte[], byte[]> redis = SharedCommands.async(connection.get());
      return redis
          .set(key, dictionary.bytes(), SetArgs.Builder.nx())
          .toCompletableFuture()
          .thenCompose(
              reply ->
                  "OK".equals(reply)
                      ? CompletableFuture.completedFuture(true)
                      : redis
                          .get(key)
                          .toCompletableFuture()
                          .thenCompose(
                              existing -> {
                                if (existing == null) {
                                  // Deleted or expired between the two commands: store it again.
                                  return saveAsync(dictionary);
                                }
                                if (!Arrays.equals(existing, dictionary.bytes())) {
                                  throw new StowageException(
                                      key(dictionary.id())
                                          + " already holds "
                                          + existing.length
                                          + " other bytes (hashing to "
                                          + ZstdDictionary.hexId(ZstdDictionary.idOf(existing))
                                          + "); the stored dictionary is corrupt and was left as it is");
                                }
                                return CompletableFuture.completedFuture(false);
                              }))
          .exceptionallyCompose(
              error -> {
                Throwable e =
                    error instanceof CompletionException && error.getCause() != null
                        ? error.getCause()
                        : error;
                return CompletableFuture.failedFuture(
                    e instanceof StowageException
                        ? e
                        : new StowageException(
                            "could not save zstd dictionary "
                                + dictionary.hexId()
                                + " to Redis: "
                                + e.getMessage(),
                            e));
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The dictionary {@code id}, from this process's cache or else from Redis. An id that Redis did
   * not hold is answered as missing for {@link #MISSING_RECHECK} without asking Redis again, so
   * that many values naming an unknown dictionary cost one lookup.
   *
   * <p><b>Warning:</b> a lookup in Redis blocks; never call this on a Redis client's I/O thread for
   * a dictionary that may not be {@linkplain #isLoaded loaded}: use {@link #resolveAsync}.
   *
   * @throws DictionaryNotFoundException if Redis has no such key, or its bytes do not hash to
   *     {@code id} (the message says which)
   * @throws StowageException if Redis fails
   */
  @Override
  public ZstdDictionary resolve(long id) {
    ZstdDictionary cached = known(id);
    if (cached != null) {
      return cached;
    }
    byte[] bytes;
    try {
      bytes = sync().get(keyBytes(id));
    } catch (RedisException e) {
      throw new StowageException(
          "could not load zstd dictionary "
              + ZstdDictionary.hexId(id)
              + " from Redis: "
              + e.getMessage(),
          e);
    }
    return loaded(id, bytes);
  }

  /**
   * The dictionary {@code id}, without blocking: at once from this process's cache, else once an
   * asynchronous {@code GET} has answered. The future fails as {@link #resolve} throws.
   */
  public CompletableFuture<ZstdDictionary> resolveAsync(long id) {
    try {
      ZstdDictionary cached = known(id);
      if (cached != null) {
        return CompletableFuture.completedFuture(cached);
      }
      return SharedCommands.async(connection.get())
          .get(keyBytes(id))
          .toCompletableFuture()
          .handle(
              (bytes, error) -> {
                if (error != null) {
                  throw new StowageException(
                      "could not load zstd dictionary "
                          + ZstdDictionary.hexId(id)
                          + " from Redis: "
                          + error.getMessage(),
                      error);
                }
                return loaded(id, bytes);
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Whether Redis holds dictionary {@code id} now ({@code EXISTS}), whatever this process has
   * cached: whether other processes can read the values written with it. One command, whatever the
   * size of the keyspace, so a health check can ask it often.
   *
   * @throws StowageException if Redis fails
   */
  public boolean isStored(long id) {
    try {
      Long found = sync().exists(keyBytes(id));
      return found != null && found > 0;
    } catch (RedisException e) {
      throw new StowageException(
          "could not look up zstd dictionary "
              + ZstdDictionary.hexId(id)
              + " in Redis: "
              + e.getMessage(),
          e);
    }
  }

  /** Whether dictionary {@code id} is in this process's cache, so resolving it does not block. */
  public boolean isLoaded(long id) {
    return cache.containsKey(id);
  }

  /** The cached dictionary, null if Redis must be asked; throws if it was missing a moment ago. */
  private @Nullable ZstdDictionary known(long id) {
    ZstdDictionary cached = cache.get(id);
    if (cached != null) {
      return cached;
    }
    if (missing.isMissing(id)) {
      throw (DictionaryNotFoundException)
          new DictionaryNotFoundException(id)
              .addContext("no key " + key(id) + " in Redis a moment ago");
    }
    return null;
  }

  private ZstdDictionary loaded(long id, byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      missing.missing(id);
      throw (DictionaryNotFoundException)
          new DictionaryNotFoundException(id).addContext("no key " + key(id) + " in Redis");
    }
    long actual = ZstdDictionary.idOf(bytes);
    if (actual != id) {
      missing.missing(id);
      throw (DictionaryNotFoundException)
          new DictionaryNotFoundException(id)
              .addContext(
                  key(id)
                      + " is corrupt: its "
                      + bytes.length
                      + " bytes hash to "
                      + ZstdDictionary.hexId(actual));
    }
    ZstdDictionary loaded = ZstdDictionary.of(bytes);
    ZstdDictionary previous = cache.putIfAbsent(id, loaded);
    return previous != null ? previous : loaded;
  }

  /**
   * The ids of the dictionaries stored in Redis, ascending, found with {@code SCAN} (never {@code
   * KEYS}), on a cluster over every master in turn. Keys under the prefix that are not eight hex
   * digits are skipped.
   *
   * @throws StowageException if Redis fails
   */
  public List<Long> list() {
    List<Long> ids = new ArrayList<>();
    ScanArgs match = ScanArgs.Builder.matches(StowageKeys.DICTIONARY_PREFIX + "*").limit(500);
    try {
      RedisClusterCommands<byte[], byte[]> redis = sync();
      ScanCursor cursor = ScanCursor.INITIAL;
      do {
        KeyScanCursor<byte[]> page = redis.scan(cursor, match);
        for (byte[] key : page.getKeys()) {
          String suffix =
              new String(key, StandardCharsets.UTF_8)
                  .substring(StowageKeys.DICTIONARY_PREFIX.length());
          if (suffix.matches("[0-9a-f]{8}")) {
            ids.add(Long.parseLong(suffix, 16));
          }
        }
        cursor = page;
      } while (!cursor.isFinished());
    } catch (RedisException e) {
      throw new StowageException("could not list zstd dictionaries in Redis: " + e.getMessage(), e);
    }
    return ids.stream().distinct().sorted().toList();
  }

  private RedisClusterCommands<byte[], byte[]> sync() {
    return SharedCommands.sync(connection.get());
  }

  private static byte[] keyBytes(long id) {
    return key(id).getBytes(StandardCharsets.UTF_8);
  }
}
