package dev.stowage.internal.store;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import dev.stowage.SchemaNotFoundException;
import dev.stowage.Stowage;
import dev.stowage.StowageException;
import dev.stowage.internal.connection.SharedCommands;
import dev.stowage.internal.format.Schemas;
import io.lettuce.core.RedisException;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Keeps the schemas of {@linkplain Codec.Evolving evolving codecs} in Redis, each under {@code
 * stowage:schema:<fingerprint>} as UTF-8 text, written once with {@code SET NX} and never changed,
 * and resolves them for readers. A schema is cached in this process once saved or loaded, and
 * loaded text is checked against its fingerprint. Every {@link Stowage} has one; its caches and
 * feeds keep the schema they write with in Redis ({@link KeptKeys}): saved when they are built, and
 * again after every reconnection until Redis takes it.
 *
 * <p>Thread-safe. Redis failures are thrown as {@link StowageException}.
 */
public final class SchemaStore implements SchemaResolver {
  /** How long a fingerprint that Redis did not hold is answered as missing without asking again. */
  public static final Duration MISSING_RECHECK = Duration.ofSeconds(1);

  private final Supplier<? extends StatefulConnection<byte[], byte[]>> connection;
  private final ConcurrentMap<Integer, String> cache = new ConcurrentHashMap<>();
  private final RecentlyMissing<Integer> missing = new RecentlyMissing<>(MISSING_RECHECK);

  /**
   * A store over the connection {@code connection} gives at each use, to one server or a cluster.
   */
  public SchemaStore(Supplier<? extends StatefulConnection<byte[], byte[]>> connection) {
    this.connection = requireNonNull(connection, "connection");
  }

  /**
   * Stores a schema unless its key exists, and caches it.
   *
   * @return its fingerprint
   * @throws StowageException if Redis fails
   */
  public int save(String schema) {
    requireNonNull(schema, "schema");
    int fingerprint = Schemas.fingerprint(schema);
    try {
      SharedCommands.sync(connection.get())
          .set(key(fingerprint), schema.getBytes(StandardCharsets.UTF_8), SetArgs.Builder.nx());
    } catch (RedisException e) {
      throw new StowageException(
          "could not save schema " + Schemas.hex(fingerprint) + " to Redis: " + e.getMessage(), e);
    }
    remember(fingerprint, schema);
    return fingerprint;
  }

  /**
   * As {@link #save}, without blocking, and confirmed: stores the schema unless its key exists,
   * then, if it existed, reads it back to check that its text has the same fingerprint. The future
   * completes with the fingerprint, and fails with Redis's own exception as the cause of a {@link
   * StowageException} when Redis failed, and a {@code StowageException} without cause when the key
   * holds text of another fingerprint (which is left as it is).
   */
  public CompletableFuture<Integer> saveAsync(String schema) {
    requireNonNull(schema, "schema");
    int fingerprint = Schemas.fingerprint(schema);
    remember(fingerprint, schema);
    byte[] key = key(fingerprint);
    try {
      RedisClusterAsyncCommands<byte[], byte[]> redis = SharedCommands.async(connection.get());
      return redis
          .set(key, schema.getBytes(StandardCharsets.UTF_8), SetArgs.Builder.nx())
          .toCompletableFuture()
          .thenCompose(
              reply ->
                  "OK".equals(reply)
                      ? CompletableFuture.completedFuture(fingerprint)
                      : redis
                          .get(key)
                          .toCompletableFuture()
                          .thenCompose(
                              existing -> {
                                if (existing == null) {
                                  // Deleted or expired between the two commands: store it again.
                                  return saveAsync(schema);
                                }
                                if (Schemas.fingerprint(
                                        new String(existing, StandardCharsets.UTF_8))
                                    != fingerprint) {
                                  throw new StowageException(
                                      Schemas.key(fingerprint)
                                          + " already holds "
                                          + existing.length
                                          + " bytes of another schema; they were left as they are");
                                }
                                return CompletableFuture.completedFuture(fingerprint);
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
                            "could not save schema "
                                + Schemas.hex(fingerprint)
                                + " to Redis: "
                                + e.getMessage(),
                            e));
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Caches a schema in this process only, as if it had been loaded. */
  public void remember(int fingerprint, String schema) {
    cache.putIfAbsent(fingerprint, schema);
    missing.found(fingerprint);
  }

  /**
   * The schema with this fingerprint, from this process's cache or else from Redis (blocking). A
   * fingerprint Redis did not hold is answered as missing for {@link #MISSING_RECHECK}.
   *
   * @throws SchemaNotFoundException if Redis has no such key, or its text has another fingerprint
   * @throws StowageException if Redis fails
   */
  @Override
  public String resolve(int fingerprint) {
    String known = known(fingerprint);
    if (known != null) {
      return known;
    }
    try {
      return loaded(fingerprint, SharedCommands.sync(connection.get()).get(key(fingerprint)));
    } catch (RedisException e) {
      throw new StowageException(
          "could not load schema " + Schemas.hex(fingerprint) + " from Redis: " + e.getMessage(),
          e);
    }
  }

  /** As {@link #resolve}, without blocking; the future fails as {@code resolve} throws. */
  public CompletableFuture<String> resolveAsync(int fingerprint) {
    try {
      String known = known(fingerprint);
      if (known != null) {
        return CompletableFuture.completedFuture(known);
      }
      return SharedCommands.async(connection.get())
          .get(key(fingerprint))
          .toCompletableFuture()
          .handle(
              (bytes, error) -> {
                if (error != null) {
                  throw new StowageException(
                      "could not load schema "
                          + Schemas.hex(fingerprint)
                          + " from Redis: "
                          + error.getMessage(),
                      error);
                }
                return loaded(fingerprint, bytes);
              });
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Whether the schema is cached in this process, so resolving it does not block. */
  public boolean isLoaded(int fingerprint) {
    return cache.containsKey(fingerprint);
  }

  private @Nullable String known(int fingerprint) {
    String cached = cache.get(fingerprint);
    if (cached != null) {
      return cached;
    }
    if (missing.isMissing(fingerprint)) {
      throw (SchemaNotFoundException)
          new SchemaNotFoundException(fingerprint)
              .addContext("no key " + Schemas.key(fingerprint) + " in Redis a moment ago");
    }
    return null;
  }

  private String loaded(int fingerprint, byte[] bytes) {
    String text = bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    if (text == null || Schemas.fingerprint(text) != fingerprint) {
      missing.missing(fingerprint);
      throw (SchemaNotFoundException)
          new SchemaNotFoundException(fingerprint)
              .addContext(
                  text == null
                      ? "no key " + Schemas.key(fingerprint) + " in Redis"
                      : Schemas.key(fingerprint) + " holds text with another fingerprint");
    }
    String previous = cache.putIfAbsent(fingerprint, text);
    return previous != null ? previous : text;
  }

  private static byte[] key(int fingerprint) {
    return Schemas.key(fingerprint).getBytes(StandardCharsets.UTF_8);
  }
}
