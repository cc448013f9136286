package dev.stowage.internal.redis;

import dev.stowage.internal.nearcache.NearStore;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Where a cache keeps its entries in Redis: the commands of one {@linkplain dev.stowage.CacheLayout
 * layout}, behind the one cache engine ({@code dev.stowage.internal.cache.CacheEngine}), which
 * counts, decodes, loads and keeps the near cache's copies whatever the storage.
 *
 * <p>An entry is named by its key text (the cache's prefix and the key's text), which failures,
 * logs, loads and the near cache use; {@link #redisKey} says which Redis key holds it. Reads answer
 * stored bytes: {@code null} for a missing entry, {@link #WRONG_TYPE} for one whose Redis key holds
 * another type; the storage translates Redis's failures, naming its command. Writes count what
 * Redis confirmed it stored.
 *
 * @param <K> the type of the keys
 * @param <V> the type of the values
 */
public interface CacheStorage<K, V> {
  /** Stands for an entry whose Redis key holds another type than this storage writes. */
  @SuppressWarnings("MutablePublicArray") // empty: nothing to mutate; compared by identity
  byte[] WRONG_TYPE = new byte[0];

  /** The commands this storage reads and writes with, as failures name them. */
  enum Operation {
    READ,
    READ_MANY,
    WRITE,
    DELETE,
    DELETE_MANY,
    EXISTS
  }

  /** How a read of {@code key} is named in a failure: its command and key. */
  String describe(Operation operation, String what);

  /** Why an entry read as {@link #WRONG_TYPE} is not a value, as a decode failure says. */
  String wrongType();

  /** The text that names {@code key}'s entry, the cache's prefix included. */
  String keyText(K key);

  /** The Redis key that holds the entry of {@code keyText}. */
  String redisKey(String keyText);

  /**
   * The near cache's store, with entries named by key text, or null without a near cache. Redis
   * invalidates the Redis keys that hold them; the storage has told the store how to map one to the
   * other.
   */
  @Nullable NearStore near();

  /**
   * Reads an entry. With {@code ttl} (a near cache's read that may be kept), it reads over the
   * tracking connection and the {@code PTTL} of the entry's Redis key goes to {@code ttl}.
   */
  CompletableFuture<byte @Nullable []> fetch(String keyText, @Nullable ReadTtl ttl);

  /**
   * Reads entries, values aligned with {@code keyTexts}. With {@code ttls}, as {@link #fetch} with
   * a {@link ReadTtl}, each entry's time to live goes to {@code ttls}.
   */
  CompletableFuture<byte[][]> fetchAll(List<String> keyTexts, long @Nullable [] ttls);

  CompletableFuture<Boolean> exists(String keyText);

  /** Encodes a value, adding the key to a failure. */
  WriteCodec.Encoded encode(String keyText, V value);

  /** Stores an encoded value with the cache's TTL. */
  CompletableFuture<Void> write(String keyText, WriteCodec.Encoded encoded);

  /** Entries encoded together, ready to send, and the key texts they are stored under. */
  interface Prepared {
    List<String> texts();
  }

  /** Encodes every value in the calling thread; a value that cannot be encoded throws. */
  Prepared prepare(Map<? extends K, ? extends V> entries);

  CompletableFuture<Void> send(Prepared prepared);

  /**
   * Encodes a chunk at a time on {@code encodeOn} while earlier chunks are written; each chunk's
   * key texts go to {@code written}. By default, all of it encoded at once, then sent.
   */
  default CompletableFuture<Void> writeStreaming(
      Map<? extends K, ? extends V> entries, Executor encodeOn, Consumer<List<String>> written) {
    return CompletableFuture.supplyAsync(() -> prepare(entries), encodeOn)
        .thenCompose(
            prepared -> {
              written.accept(prepared.texts());
              return send(prepared);
            });
  }

  /** Stores the absent marker for each key, to live no longer than the cache's absent TTL. */
  CompletableFuture<Void> writeAbsent(List<String> keyTexts);

  /** Deletes entries, answering how many were there. */
  CompletableFuture<Long> delete(List<String> keyTexts);

  /** Removes every entry of this storage, and nothing else, answering how many Redis keys. */
  CompletableFuture<Long> clear();

  /** How a write of {@code n} entries is named in a failure. */
  String describeWrite(int n);

  /** How many round trips an operation on {@code keys} keys takes. */
  int rounds(int keys);

  /** Values Redis confirmed it stored. */
  long puts();

  /** The stored values' sizes before compression, added up. */
  long bytesBeforeCompression();

  /** The stored values' sizes as stored, added up. */
  long bytesWritten();

  /** Stored values too long for their Redis key to stay compact. */
  long oversized();

  /**
   * What a read learnt of its entry's time to live: when the read was sent, and the {@code PTTL}
   * read right after it.
   */
  final class ReadTtl {
    public final long sentAt = System.nanoTime();
    public volatile long millis = NearStore.UNKNOWN_TTL;
  }
}
