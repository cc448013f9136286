package dev.stowage;

import static java.util.Objects.requireNonNull;

import dev.stowage.compress.Compression;
import dev.stowage.internal.cache.CacheEngine;
import dev.stowage.internal.format.StowageKeys;
import dev.stowage.internal.redis.CacheSettings;
import dev.stowage.internal.redis.CacheStorage;
import dev.stowage.internal.redis.KeyNamespaces;
import dev.stowage.internal.redis.KeyPerValueStorage;
import dev.stowage.internal.redis.PackedStorage;
import dev.stowage.internal.redis.WriteCodec;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A cache of values in Redis, one Redis string per key (or, with a {@linkplain
 * CacheLayout#packed(long) packed layout}, many entries per Redis hash), written inside an envelope
 * (a header naming codec and compression) so that readers pick the codec and compression from the
 * value itself. Caches come from {@link Stowage#cache(String, Class)}.
 *
 * <pre>{@code
 * RedisCache<String, User> users = stowage.cache("users", User.class).ttl(Duration.ofMinutes(10)).build();
 * User user = users.getOrLoad("42", id -> database.findUser(id));
 * }</pre>
 *
 * <p><b>Reads.</b> A value that cannot be decoded (corrupt bytes, a value some other program wrote,
 * an unknown codec, a missing dictionary) is a miss: it is counted in {@link
 * CacheStats#decodeFailures()} and logged once per key (of the last 1,024 keys logged), and never
 * thrown. A key holding another Redis type than a string is such a value for {@link #get}; for
 * {@link #getAll}, whose {@code MGET} cannot tell it from an absent key, it is an uncounted miss.
 *
 * <p><b>Bulk operations</b> split their keys into chunks of {@link Builder#chunkSize(int)}; each
 * chunk is one command ({@code MGET}, {@code DEL}, {@code MSET} without a TTL, and with one a
 * script that sets each key of the chunk with its own TTL), so a call costs one round trip per
 * chunk, never one per key. A few chunks are in flight at once, pipelined on the shared connection.
 * Bulk operations are not atomic: when one fails, other chunks may have been applied.
 *
 * <p><b>Loads</b> are single-flight: concurrent {@link #getOrLoad} calls for one key in this
 * process share one loader call, and all of them see its value or its exception. With {@link
 * Builder#distributedLoadLock(Duration)} processes share loads too.
 *
 * <p><b>Failures.</b> When Redis cannot be reached or does not answer within the {@linkplain
 * Stowage.Builder#commandTimeout(Duration) command timeout}, a call throws {@link
 * CacheUnavailableException}; once Redis is back, the same cache works again. Other Redis errors
 * are {@link StowageException}s naming the command. Exceptions thrown by a loader pass through
 * unchanged.
 *
 * <p>Keys and values are never {@code null}. Implementations are thread-safe. Every method here
 * waits for {@link #async()}'s counterpart: there is one implementation.
 *
 * @param <K> the type of the keys
 * @param <V> the type of the values
 */
public interface RedisCache<K, V> {
  /** How long an entry lives unless {@link Builder#ttl(Duration)} says otherwise: one hour. */
  Duration DEFAULT_TTL = Duration.ofHours(1);

  /**
   * The longest TTL or load lock time: 36,500 days (100 years), far inside what Redis keeps in
   * milliseconds. For entries that never expire, use {@link Builder#noExpiry()}.
   */
  Duration MAX_TTL = Duration.ofDays(36_500);

  /**
   * The default jitter: each entry's time to live is drawn uniformly from 90% to 100% of the TTL,
   * so that entries written together do not expire together.
   */
  double DEFAULT_TTL_JITTER = 0.1;

  /** The default number of keys per bulk command. */
  int DEFAULT_CHUNK_SIZE = 1000;

  /** The largest chunk size. */
  int MAX_CHUNK_SIZE = 100_000;

  /** The cache's name, as given to {@link Stowage#cache(String, Class)}. */
  String name();

  /**
   * The value for {@code key}, or {@code null} if Redis holds none or holds one that cannot be
   * decoded.
   *
   * @throws CacheUnavailableException if Redis is unreachable or too slow
   */
  @Nullable V get(K key);

  /**
   * Stores a value, replacing any other, with this cache's TTL and jitter.
   *
   * @throws CodecException if the codec cannot encode the value
   * @throws CacheUnavailableException if Redis is unreachable or too slow
   */
  void put(K key, V value);

  /**
   * Removes a key.
   *
   * @return whether Redis held it
   * @throws CacheUnavailableException if Redis is unreachable or too slow
   */
  boolean delete(K key);

  /**
   * Whether Redis holds the key, decodable or not.
   *
   * @throws CacheUnavailableException if Redis is unreachable or too slow
   */
  boolean exists(K key);

  /**
   * The values of the keys that Redis holds and that decode, in the order of {@code keys}
   * (duplicates once). Misses are absent from the map.
   *
   * @throws CacheUnavailableException if Redis is unreachable or too slow
   */
  Map<K, V> getAll(Collection<? extends K> keys);

  /**
   * Stores every entry, each with its own jittered TTL, one round trip per chunk. Values are
   * encoded in the calling thread, a chunk at a time: while Redis stores one chunk, the next is
   * encoded. For all or nothing on an encoding failure, use {@link AsyncRedisCache#putAll}, which
   * encodes every value before it sends any.
   *
   * @throws CodecException if a value cannot be encoded. The chunks before the value's chunk are
   *     stored when this is thrown (the entries before it in the map's iteration order, a multiple
   *     of {@link Builder#chunkSize(int)}, and the message says how many); the value's chunk and
   *     those after it are not sent. With the value in the first chunk, nothing was sent.
   * @throws CacheUnavailableException if Redis is unreachable or too slow; some chunks may have
   *     been stored
   */
  void putAll(Map<? extends K, ? extends V> entries);

  /**
   * Removes the keys.
   *
   * @return how many of them Redis held
   * @throws CacheUnavailableException if Redis is unreachable or too slow
   */
  long deleteAll(Collection<? extends K> keys);

  /**
   * Removes every key under the cache's {@linkplain Builder#keyPrefix key prefix} that its layout
   * could have written, whoever wrote it: on the key-per-value layout, every string {@code
   * <prefix><anything>} ({@code SCAN MATCH <prefix>* TYPE string COUNT <chunk size>}, the prefix's
   * glob characters escaped); on the packed layout, every hash {@code <prefix>{n}} whose {@code n}
   * is one of its buckets ({@code SCAN MATCH <prefix>{*} TYPE hash}, each key checked); then one
   * {@code UNLINK} per page found, never {@code KEYS}. Other types, and other keys under the
   * prefix, stay. Not atomic: a key written while it runs may stay or go, and when it fails some
   * keys are already gone. Empties the near cache.
   *
   * @return how many keys were removed
   * @throws CacheUnavailableException if Redis is unreachable or too slow
   */
  long clear();

  /**
   * The value for {@code key}; on a miss, the loader's value, which is then stored. Concurrent
   * calls for one key share one loader call (and across processes, with a {@linkplain
   * Builder#distributedLoadLock(Duration) distributed lock}). The loader runs in the calling thread
   * of whichever caller starts the load. A loader that returns {@code null} stores nothing (or,
   * with {@link Builder#cacheAbsent}, marks the key absent), and this method returns {@code null};
   * so does a key marked absent, without calling the loader. With {@link
   * Builder#loadWhenUnavailable()}, the loader also answers while Redis is unavailable.
   *
   * @throws CacheUnavailableException if Redis is unreachable or too slow for the first read,
   *     unless the cache {@linkplain Builder#loadWhenUnavailable() loads when it is}
   * @throws RuntimeException whatever the loader threw, unchanged, to every caller that shared the
   *     load; nothing is stored
   */
  @Nullable V getOrLoad(K key, Function<? super K, ? extends V> loader);

  /**
   * The values of {@code keys}; the misses are passed to {@code loader} in one call, and what it
   * returns is stored with {@link #putAll}. Keys already being loaded by another call in this
   * process are waited for instead of loaded again. Keys the loader leaves out are absent from the
   * result. The distributed lock does not apply to bulk loads.
   *
   * @throws CacheUnavailableException if Redis is unreachable or too slow for the first read
   * @throws RuntimeException whatever the loader threw, unchanged
   */
  Map<K, V> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader);

  /**
   * The same cache, with every operation returning a {@link
   * java.util.concurrent.CompletableFuture}.
   */
  AsyncRedisCache<K, V> async();

  /** The counters since this cache was built. */
  CacheStats stats();

  /**
   * The compression values are written with now. For a cache that learns its dictionary (the
   * default encoding), the standard compression until it has learned one, then zstd with the
   * dictionary learned or adopted, whose id {@code compression().dictionaryId()} gives; for a cache
   * that {@linkplain Encoding#writeLegacy writes legacy values}, none. Never {@code null}.
   */
  Compression compression();

  /** The Redis key that holds {@code key}'s value: the key prefix and the key as a string. */
  String redisKey(K key);

  /**
   * Configures a {@link RedisCache}, from {@link Stowage#cache(String, Class)}. Not thread-safe.
   * {@link #build()} validates the settings.
   *
   * @param <K> the type of the keys
   * @param <V> the type of the values
   */
  final class Builder<K, V> {
    private final Stowage owner;
    private final String name;
    private final TypeRef<V> type;
    private @Nullable Encoding<V> encoding;
    private Function<? super K, String> keyToString;
    private String keyPrefix;
    private @Nullable Duration ttl = DEFAULT_TTL;
    private double ttlJitter = DEFAULT_TTL_JITTER;
    private int chunkSize = DEFAULT_CHUNK_SIZE;
    private @Nullable Duration loadLock;
    private Executor loadExecutor = ForkJoinPool.commonPool();
    private @Nullable Duration absentTtl;
    private boolean loadWhenUnavailable;
    private @Nullable NearCache nearCache;
    private CacheLayout layout = CacheLayout.keyPerValue();

    Builder(Stowage owner, String name, TypeRef<V> type, Function<? super K, String> keyToString) {
      this.owner = owner;
      this.name = name;
      this.type = type;
      this.keyToString = keyToString;
      this.keyPrefix = name + ":";
    }

    /**
     * Uses keys of another type, turned into strings by {@code keyToString} (which must be
     * consistent with the key's {@code equals}). Strings are the default.
     */
    @SuppressWarnings("unchecked")
    public <K2> Builder<K2, V> keys(Function<? super K2, String> keyToString) {
      requireNonNull(keyToString, "keyToString");
      Builder<K2, V> self = (Builder<K2, V>) this;
      self.keyToString = keyToString;
      return self;
    }

    /**
     * How values are written and read: the codec, the compression policy and the codecs also read;
     * {@link Encoding#defaultFor(TypeRef) Encoding.defaultFor(type)} by default, which learns a
     * zstd dictionary from the cache's own values and records it under {@code
     * stowage:learned:cache:<name>} ({@link Inspector.Keys#learnedByCache}).
     */
    public Builder<K, V> encoding(Encoding<V> encoding) {
      this.encoding = requireNonNull(encoding, "encoding");
      return this;
    }

    /**
     * What every Redis key of the cache starts with; the cache's name and a colon by default. The
     * prefix is the cache's namespace: {@link RedisCache#clear()} removes every key under it that
     * the cache's layout could have written, whoever wrote it. So it should end with a separator
     * (such as {@code ':'}), and must not be empty or blank, nor cover the keys Stowage writes on
     * its own account ({@code stowage:schema:}, {@code stowage:dict:}, ... as {@link
     * Inspector.Keys} names them, and so {@code stowage:} itself): {@link #build()} refuses those.
     *
     * <p><b>Warning:</b> the namespaces of caches and feeds in different processes (or different
     * {@code Stowage}s) must not overlap either: no prefix may start with another cache's prefix or
     * cover a feed's keys. Within one {@code Stowage}, {@link #build()} refuses a cache whose
     * namespace overlaps another live cache's or feed's; across processes nothing can check it, and
     * {@code clear()} of {@code items:} removes the string keys of a cache under {@code items:x:}.
     */
    public Builder<K, V> keyPrefix(String keyPrefix) {
      this.keyPrefix = requireNonNull(keyPrefix, "keyPrefix");
      return this;
    }

    /**
     * The longest time an entry lives, from 1 ms to {@link RedisCache#MAX_TTL}; {@link
     * RedisCache#DEFAULT_TTL} by default.
     */
    public Builder<K, V> ttl(Duration ttl) {
      this.ttl = requireNonNull(ttl, "ttl");
      return this;
    }

    /** Entries never expire. */
    public Builder<K, V> noExpiry() {
      this.ttl = null;
      return this;
    }

    /**
     * The share of the TTL, from 0 (none) up to but excluding 1, taken off at random: each entry
     * lives from {@code ttl * (1 - jitter)} to {@code ttl}. {@link RedisCache#DEFAULT_TTL_JITTER}
     * by default.
     */
    public Builder<K, V> ttlJitter(double ttlJitter) {
      this.ttlJitter = ttlJitter;
      return this;
    }

    /** Keys per bulk command; {@link RedisCache#DEFAULT_CHUNK_SIZE} by default. */
    public Builder<K, V> chunkSize(int chunkSize) {
      this.chunkSize = chunkSize;
      return this;
    }

    /**
     * Shares loads across processes: the process that loads a key holds a Redis lock (a {@code SET
     * NX PX} with a random token, released only by its holder) for at most {@code lockTime}; the
     * others poll for the value meanwhile, and load it themselves if neither the value nor the
     * lock's release has come within {@code lockTime}. From 1 ms to {@link RedisCache#MAX_TTL}; off
     * by default.
     */
    public Builder<K, V> distributedLoadLock(Duration lockTime) {
      this.loadLock = requireNonNull(lockTime, "lockTime");
      return this;
    }

    /**
     * Where {@link AsyncRedisCache#getOrLoad} runs loaders; the common fork-join pool by default.
     * The blocking methods run loaders in the calling thread.
     */
    public Builder<K, V> loadExecutor(Executor executor) {
      this.loadExecutor = requireNonNull(executor, "executor");
      return this;
    }

    /**
     * Caches "not found": when a loader of {@link RedisCache#getOrLoad} or {@link
     * RedisCache#getAllOrLoad} finds no value for a key (returns {@code null}, or leaves the key
     * out), the key is stored as absent for {@code absentTtl}, and reads of it answer {@code null}
     * without calling the loader until then; {@link CacheStats#absentHits()} counts them. {@link
     * RedisCache#put} replaces the marker. Keys found absent are not cached by default. The marker
     * is four bytes that {@link Inspector#isAbsentMarker(byte[])} recognises. On the {@linkplain
     * CacheLayout#packed packed layout} the marker is a field of its bucket, whose TTL it shortens
     * to {@code absentTtl}, so the bucket's other entries expire with it: a hash field has no TTL
     * of its own.
     */
    public Builder<K, V> cacheAbsent(Duration absentTtl) {
      this.absentTtl = requireNonNull(absentTtl, "absentTtl");
      return this;
    }

    /**
     * Lets {@link RedisCache#getOrLoad} call the loader when Redis is unavailable (unreachable, or
     * slower than the command timeout), instead of throwing {@link CacheUnavailableException}: the
     * application keeps answering from its database while Redis is away, and nothing is stored.
     * Loads stay single-flight per key in this process. While the connection is down calls fail at
     * once, so Redis is not waited on for every call; once it is back, values are cached again.
     * {@link CacheStats#redisErrors()} counts each failure. Off by default: then the exception
     * reaches the caller, who decides.
     */
    public Builder<K, V> loadWhenUnavailable() {
      this.loadWhenUnavailable = true;
      return this;
    }

    /**
     * Keeps decoded values in the process too, while Redis says they have not changed; see {@link
     * NearCache}. Reads answered there are counted in {@link CacheStats#nearHits()}. Off by
     * default. On the {@linkplain CacheLayout#packed packed layout} Redis tracks buckets, not
     * entries: a write to one entry drops the near copies of its whole bucket in every process.
     *
     * @throws MissingLibraryException at {@link #build()}, without Caffeine
     */
    public Builder<K, V> nearCache(NearCache options) {
      this.nearCache = requireNonNull(options, "options");
      return this;
    }

    /**
     * How entries are laid out in Redis: {@link CacheLayout#keyPerValue()} (one string per entry)
     * by default, or {@link CacheLayout#packed(long)} for many small values, packed into hashes. On
     * the packed layout the TTL applies per bucket; an absent marker shortens its bucket's TTL to
     * the absent TTL, and the near cache is invalidated a bucket at a time; see {@link
     * CacheLayout}.
     */
    public Builder<K, V> layout(CacheLayout layout) {
      this.layout = requireNonNull(layout, "layout");
      return this;
    }

    /**
     * Builds the cache. A dictionary of the {@linkplain #encoding encoding}'s is trained and saved
     * in Redis here.
     *
     * @throws IllegalArgumentException naming the setting at fault: a TTL or lock time outside 1 ms
     *     to {@link RedisCache#MAX_TTL}, a jitter outside 0 to 1, a chunk size outside 1 to {@link
     *     RedisCache#MAX_CHUNK_SIZE}, an absent TTL under a millisecond, an empty or blank
     *     {@linkplain #keyPrefix key prefix} or one that overlaps the keys Stowage writes on its
     *     own account ({@link Inspector.Keys}); or, naming both, a prefix whose keys overlap those
     *     of another live cache or feed of the same {@code Stowage} (the same cache, by name,
     *     prefix and layout, built again is allowed)
     * @throws MissingLibraryException if the codec's or compression's library is absent
     */
    public RedisCache<K, V> build() {
      if (ttl != null && outsideMillisToMaxTtl(ttl)) {
        throw new IllegalArgumentException(
            "cache '"
                + name
                + "': ttl must be from 1 ms to "
                + MAX_TTL.toDays()
                + " days (RedisCache.MAX_TTL), got "
                + ttl
                + "; noExpiry() makes entries that never expire");
      }
      if (!(ttlJitter >= 0 && ttlJitter < 1)) {
        throw new IllegalArgumentException(
            "cache '"
                + name
                + "': ttlJitter must be from 0 up to but excluding 1, got "
                + ttlJitter);
      }
      if (chunkSize < 1 || chunkSize > MAX_CHUNK_SIZE) {
        throw new IllegalArgumentException(
            "cache '"
                + name
                + "': chunkSize must be 1 to "
                + MAX_CHUNK_SIZE
                + ", got "
                + chunkSize);
      }
      if (loadLock != null && outsideMillisToMaxTtl(loadLock)) {
        throw new IllegalArgumentException(
            "cache '"
                + name
                + "': distributedLoadLock must be from 1 ms to "
                + MAX_TTL.toDays()
                + " days (RedisCache.MAX_TTL), got "
                + loadLock);
      }
      if (absentTtl != null && (absentTtl.isNegative() || absentTtl.toMillis() < 1)) {
        throw new IllegalArgumentException(
            "cache '" + name + "': cacheAbsent must be at least 1 ms, got " + absentTtl);
      }
      if (keyPrefix.isBlank()) {
        throw new IllegalArgumentException(
            "cache '"
                + name
                + "': keyPrefix must not be empty or blank, got '"
                + keyPrefix
                + "': clear() would remove the keys of the whole database; use one that ends with a"
                + " separator, such as '"
                + name
                + ":'");
      }
      KeyNamespaces.Reservation namespace =
          owner
              .keyNamespaces()
              .reserve(
                  KeyNamespaces.Namespace.ofCache(
                      name, keyPrefix, layout.toString(), layout.isPacked()));
      try {
        WriteCodec<V> codec =
            (encoding != null ? encoding : Encoding.defaultFor(type))
                .writeCodec(
                    owner, StowageKeys.learnedByCache(name), loadExecutor, "cache '" + name + "'");
        CacheSettings<K, V> settings =
            new CacheSettings<>(
                name,
                keyPrefix,
                keyToString,
                codec,
                owner.preload(),
                ttl,
                ttlJitter,
                chunkSize,
                loadLock,
                loadExecutor,
                absentTtl,
                loadWhenUnavailable,
                nearCache == null
                    ? null
                    : owner.nearCaches(nearCache, keyPrefix, false, "cache '" + name + "'"));
        CacheStorage<K, V> storage =
            layout.isPacked()
                ? new PackedStorage<>(owner.session(), settings, layout)
                : new KeyPerValueStorage<>(owner.session(), settings);
        return namespace.heldBy(new CacheEngine<>(owner.session(), settings, storage).blocking());
      } catch (RuntimeException | Error e) {
        namespace.release();
        throw e;
      }
    }

    /** Compared, not converted: {@code toMillis()} overflows past 292 million years. */
    private static boolean outsideMillisToMaxTtl(Duration duration) {
      return duration.compareTo(Duration.ofMillis(1)) < 0 || duration.compareTo(MAX_TTL) > 0;
    }
  }
}
