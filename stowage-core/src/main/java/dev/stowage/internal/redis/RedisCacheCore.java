package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncRedisCache;
import dev.stowage.CacheStats;
import dev.stowage.CacheUnavailableException;
import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.Envelope;
import dev.stowage.EnvelopeException;
import dev.stowage.MissingLibraryException;
import dev.stowage.RedisCache;
import dev.stowage.SchemaNotFoundException;
import dev.stowage.StowageException;
import dev.stowage.StowageKeys;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The one implementation of a cache: every operation is asynchronous here, and
 * {@link BlockingRedisCache} waits for it. Raw Redis work ({@link #fetch}, {@link #fetchAll},
 * {@link #prepare} and {@link #send}) is separate from decoding, so the blocking view decodes in the
 * caller's thread rather than on Lettuce's I/O thread.
 *
 * <p>Single-flight loads: {@link #inFlight} maps a Redis key to the future of its load. The caller
 * that inserts the future runs the load; the others wait on it. The load reads Redis again before
 * calling the loader, because a caller whose read missed just before another load stored the value
 * can arrive after that load has finished. The entry is removed only after the value is stored.
 */
public final class RedisCacheCore<K, V> implements AsyncRedisCache<K, V> {
  private static final System.Logger LOG = System.getLogger("dev.stowage.cache");
  /** What {@link #read} answers for a key cached as absent. */
  private static final Object ABSENT = new Object();
  /** Stands for a key that holds another Redis type than a string. */
  private static final byte[] WRONG_TYPE = new byte[0];
  private static final Executor CALLER_THREAD = Runnable::run;
  private static final String RELEASE_LOCK =
      "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
  private static final SecureRandom TOKENS = new SecureRandom();
  /** SET with its own TTL for each key: ARGV holds value and TTL in milliseconds, key by key. */
  private static final LuaScript SET_WITH_TTLS = new LuaScript(
      "for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[2 * i - 1], 'PX', ARGV[2 * i]) end return #KEYS",
      ScriptOutputType.INTEGER);

  private final RedisSession session;
  private final CacheSettings<K, V> settings;
  private final WriteCodec<V> codec;
  private final String owner;
  private final DecodeFailureLog failureLog;
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder decodeFailures = new LongAdder();
  private final LongAdder loads = new LongAdder();
  private final LongAdder loadFailures = new LongAdder();
  private final LongAdder absentHits = new LongAdder();
  private final LongAdder redisErrors = new LongAdder();
  private final LongAdder loadNanos = new LongAdder();
  private final ConcurrentHashMap<String, CompletableFuture<V>> inFlight = new ConcurrentHashMap<>();
  private final BlockingRedisCache<K, V> blocking;
  private final Tracking.@Nullable Reader near;

  public RedisCacheCore(RedisSession session, CacheSettings<K, V> settings) {
    this.session = session;
    this.settings = settings;
    this.codec = settings.codec();
    this.owner = "cache '" + settings.name() + "'";
    this.failureLog = new DecodeFailureLog(owner);
    this.near = settings.near();
    this.blocking = new BlockingRedisCache<>(this);
  }

  /** The blocking view. */
  public RedisCache<K, V> blocking() {
    return blocking;
  }

  @Override
  public RedisCache<K, V> synchronous() {
    return blocking;
  }

  RedisSession session() {
    return session;
  }

  String name() {
    return settings.name();
  }

  CacheStats stats() {
    NearStore store = near == null ? null : near.store();
    return new CacheStats(hits.sum(), misses.sum(), decodeFailures.sum(), loads.sum(), loadFailures.sum(),
        absentHits.sum(), redisErrors.sum(), loadNanos.sum(), store == null ? 0 : store.hits(),
        store == null ? 0 : store.misses());
  }

  // ---------------------------------------------------------------- near cache

  /** The value the near cache keeps for the key (counted as a hit), or null. */
  @Nullable V nearValue(String keyText) {
    if (near == null) {
      return null;
    }
    Object kept = near.store().get(keyText);
    if (kept != null) {
      hits.increment();
    }
    return cast(kept);
  }

  /** The stamp a read takes before it is sent, or -1 without a near cache. */
  long stamp(String keyText) {
    return near == null ? -1 : near.store().stamp(keyText);
  }

  /** Keeps a value just read and decoded, unless the key changed since {@code stamp}. */
  void keep(String keyText, long stamp, @Nullable V value, byte[] bytes) {
    if (near != null && value != null) {
      near.store().keep(keyText, stamp, value, bytes.length);
    }
  }

  /** Drops the near cache's copies of keys this process wrote. */
  void dropNear(Collection<String> keyTexts) {
    if (near != null) {
      keyTexts.forEach(near.store()::invalidate);
    }
  }

  /** Whether this cache has a near cache, whose copies its writes must drop. */
  boolean hasNearCache() {
    return near != null;
  }

  /**
   * {@code write}, followed by dropping the near cache's copies of the keys {@code written} names;
   * the same future when there is no near cache, so that writes pay nothing for it.
   */
  private <T> CompletableFuture<T> droppingNear(CompletableFuture<T> write,
                                                Supplier<? extends Collection<String>> written) {
    return near == null ? write : write.whenComplete((done, failure) -> dropNear(written.get()));
  }

  /** The batch split by the near cache, or null without one. */
  @Nullable NearSplit nearSplit(KeyBatch batch) {
    return near == null ? null : new NearSplit(batch);
  }

  /** A batch split by the near cache: the values it keeps, and the rest to read with their stamps. */
  final class NearSplit {
    final Map<K, V> kept = new LinkedHashMap<>();
    final KeyBatch rest;
    final long[] stamps;

    NearSplit(KeyBatch batch) {
      List<K> toRead = new ArrayList<>();
      for (int i = 0; i < batch.size(); i++) {
        V value = nearValue(batch.texts.get(i));
        if (value != null) {
          kept.put(batch.keys.get(i), value);
        } else {
          toRead.add(batch.keys.get(i));
        }
      }
      this.rest = kept.isEmpty() ? batch : new KeyBatch(toRead);
      this.stamps = new long[rest.size()];
      for (int i = 0; i < stamps.length; i++) {
        stamps[i] = stamp(rest.texts.get(i));
      }
    }

    /** Keeps what was read, and returns every value found, in the batch's order. */
    Map<K, V> found(KeyBatch batch, byte[][] values, Map<K, V> decoded) {
      for (int i = 0; i < values.length; i++) {
        V value = decoded.get(rest.keys.get(i));
        keep(rest.texts.get(i), stamps[i], value, values[i]);
      }
      return kept.isEmpty() ? decoded : merge(batch, kept, decoded);
    }
  }

  /** Counts a call that failed because of Redis, and returns the failure. */
  <E extends Throwable> E countFailure(E failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof CacheUnavailableException || cause instanceof StowageException stowage
        && stowage.getCause() instanceof RedisException) {
      redisErrors.increment();
    }
    return failure;
  }

  /** The same future, with a Redis failure counted. */
  <T> CompletableFuture<T> counted(CompletableFuture<T> operation) {
    return operation.whenComplete((value, failure) -> {
      if (failure != null) {
        countFailure(failure);
      }
    });
  }

  /** Whether loads go to the loader while Redis is unavailable. */
  boolean loadsWhenUnavailable() {
    return settings.loadWhenUnavailable();
  }

  /** The Redis key of {@code key}, as text. */
  String keyText(K key) {
    requireNonNull(key, "key");
    String text = settings.keyToString().apply(key);
    if (text == null) {
      throw new NullPointerException(owner + ": the key function returned null for " + key);
    }
    return settings.keyPrefix() + text;
  }

  int rounds(int keys) {
    return Math.max(1, (keys + settings.chunkSize() - 1) / settings.chunkSize());
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  // ---------------------------------------------------------------- single keys

  /**
   * GET, with a key of another type read as {@link #WRONG_TYPE}. Completes once the dictionary the
   * value names, if any, is loaded (or known to be missing), so that decoding never waits for Redis
   * and may run on Lettuce's I/O thread.
   */
  CompletableFuture<byte[]> fetch(String keyText) {
    byte[] key = utf8(keyText);
    CompletableFuture<byte[]> read = near == null ? session.dispatch(c -> c.get(key)) : near.dispatch(c -> c.get(key));
    return read.exceptionallyCompose(e -> RedisSession.isWrongType(e)
        ? CompletableFuture.completedFuture(WRONG_TYPE)
        : CompletableFuture.failedFuture(session.translate(e, "GET " + keyText + " of " + owner)))
        .thenCompose(bytes -> withDictionaries(new byte[][] {bytes}).thenApply(all -> bytes));
  }

  /** Completes once every dictionary these values name is loaded or known to be missing. */
  private CompletableFuture<byte[][]> withDictionaries(byte[][] values) {
    return settings.preload().load(Arrays.asList(values), value -> value == WRONG_TYPE ? -1 : 0)
        .thenApply(done -> values);
  }

  /** Decodes a read, counting a hit, a miss or an absent hit; a key cached as absent reads as null. */
  @Nullable V decodeOrMiss(String keyText, byte[] bytes) {
    Object value = read(keyText, bytes);
    return value == ABSENT ? null : cast(value);
  }

  /** Decodes a read and counts it: the value, {@link #ABSENT} for a key cached as absent, or null. */
  @Nullable Object read(String keyText, byte[] bytes) {
    if (Envelope.isAbsentMarker(bytes)) {
      absentHits.increment();
      return ABSENT;
    }
    V value = decodeQuietly(keyText, bytes);
    if (value == null) {
      misses.increment();
    } else {
      hits.increment();
    }
    return value;
  }

  @SuppressWarnings("unchecked")
  private @Nullable V cast(@Nullable Object value) {
    return (V) value;
  }

  /** Decodes a read; a value that cannot be decoded is counted, logged once and read as null. */
  private @Nullable V decodeQuietly(String keyText, byte[] bytes) {
    if (bytes == null || Envelope.isAbsentMarker(bytes)) {
      return null;
    }
    if (bytes == WRONG_TYPE) {
      decodeFailures.increment();
      failureLog.report(keyText, "the key holds another Redis type than a string");
      return null;
    }
    try {
      return codec.current().decode(bytes);
    } catch (CodecException | EnvelopeException | DictionaryNotFoundException | SchemaNotFoundException
             | MissingLibraryException e) {
      decodeFailures.increment();
      failureLog.report(keyText, e.getMessage());
      return null;
    } catch (StowageException e) {
      if (e.getCause() instanceof RedisException redis) {
        // Loading the value's dictionary failed: Redis is the problem, not the value.
        throw session.translate(redis, "loading the dictionary of " + keyText);
      }
      throw e;
    }
  }

  boolean hasLoggedFailure(String keyText) {
    return failureLog.hasLogged(keyText);
  }

  @Override
  public CompletableFuture<V> get(K key) {
    String keyText = keyText(key);
    V kept = nearValue(keyText);
    if (kept != null) {
      return CompletableFuture.completedFuture(kept);
    }
    long stamp = stamp(keyText);
    return counted(fetch(keyText).thenApply(bytes -> {
      V value = decodeOrMiss(keyText, bytes);
      keep(keyText, stamp, value, bytes);
      return value;
    }));
  }

  /** Encodes a value, adding the key to a failure. */
  byte[] encode(String keyText, V value) {
    return encode(keyText, value, false);
  }

  /** Encodes a value, adding the key to a failure; {@code bulk} when many are encoded now. */
  byte[] encode(String keyText, V value, boolean bulk) {
    requireNonNull(value, "value");
    try {
      return codec.encode(value, bulk);
    } catch (StowageException e) {
      throw e.addContext("key " + keyText + " of " + owner);
    }
  }

  private long ttlMillis() {
    long max = requireNonNull(settings.ttl(), "ttl").toMillis();
    if (settings.ttlJitter() == 0) {
      return max;
    }
    long min = Math.max(1, max - (long) (max * settings.ttlJitter()));
    return ThreadLocalRandom.current().nextLong(min, max + 1);
  }

  private RedisFuture<String> set(RedisAsyncCommands<byte[], byte[]> commands, byte[] key, byte[] value) {
    return settings.ttl() == null ? commands.set(key, value) : commands.set(key, value, SetArgs.Builder.px(ttlMillis()));
  }

  @Override
  public CompletableFuture<Void> put(K key, V value) {
    String keyText = keyText(key);
    byte[] bytes;
    try {
      bytes = encode(keyText, value);
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    return droppingNear(counted(store(keyText, bytes)), () -> List.of(keyText));
  }

  CompletableFuture<Void> store(String keyText, byte[] bytes) {
    byte[] key = utf8(keyText);
    return session.<String>call("SET " + keyText + " of " + owner, c -> set(c, key, bytes)).thenApply(ok -> null);
  }

  /** Stores the absent marker for each key, with the absent TTL, one script per chunk. */
  CompletableFuture<Void> storeAbsent(List<String> keyTexts) {
    int n = keyTexts.size();
    int chunk = settings.chunkSize();
    byte[] ttl = Long.toString(requireNonNull(settings.absentTtl(), "absentTtl").toMillis()).getBytes(StandardCharsets.US_ASCII);
    byte[] marker = Envelope.absentMarker();
    CompletableFuture<Void> all = ChunkWindow.run(n == 0 ? 0 : rounds(n), index -> {
      int from = index * chunk;
      int to = Math.min(n, from + chunk);
      byte[][] keys = new byte[to - from][];
      byte[][] valuesAndTtls = new byte[2 * (to - from)][];
      for (int i = from; i < to; i++) {
        keys[i - from] = utf8(keyTexts.get(i));
        valuesAndTtls[2 * (i - from)] = marker;
        valuesAndTtls[2 * (i - from) + 1] = ttl;
      }
      return SET_WITH_TTLS.run(session, keys, valuesAndTtls);
    });
    return session.translated(all, "SET PX of " + n + " absent keys of " + owner);
  }

  /** Stores a loaded value, or the absent marker when the loader found none and absent keys are cached. */
  private void storeLoaded(String keyText, V value) {
    if (value == null && settings.absentTtl() == null) {
      return;
    }
    CompletableFuture<Void> stored = (value != null ? store(keyText, encode(keyText, value))
        : storeAbsent(List.of(keyText)));
    stored = droppingNear(stored, () -> List.of(keyText));
    try {
      session.await(stored, 1, "SET " + keyText + " of " + owner);
    } catch (CacheUnavailableException e) {
      countFailure(e);
      LOG.log(Level.WARNING, owner + ": loaded " + keyText + " but could not store it: " + e.getMessage());
    }
  }

  @Override
  public CompletableFuture<Boolean> delete(K key) {
    String keyText = keyText(key);
    byte[] redisKey = utf8(keyText);
    CompletableFuture<Boolean> deleted =
        counted(session.call("DEL " + keyText + " of " + owner, c -> c.del(redisKey)).thenApply(n -> n > 0));
    return droppingNear(deleted, () -> List.of(keyText));
  }

  @Override
  public CompletableFuture<Boolean> exists(K key) {
    String keyText = keyText(key);
    byte[] redisKey = utf8(keyText);
    return counted(session.call("EXISTS " + keyText + " of " + owner, c -> c.exists(redisKey)).thenApply(n -> n > 0));
  }

  // ---------------------------------------------------------------- bulk

  /** Distinct keys, in the order given, with their Redis keys. */
  final class KeyBatch {
    final List<K> keys;
    final List<String> texts;

    KeyBatch(Collection<? extends K> given) {
      requireNonNull(given, "keys");
      LinkedHashMap<K, String> distinct = new LinkedHashMap<>();
      for (K key : given) {
        if (!distinct.containsKey(key)) {
          distinct.put(key, keyText(key));
        }
      }
      this.keys = new ArrayList<>(distinct.keySet());
      this.texts = new ArrayList<>(distinct.values());
    }

    int size() {
      return keys.size();
    }

    byte[][] redisKeys(int from, int to) {
      byte[][] chunk = new byte[to - from][];
      for (int i = from; i < to; i++) {
        chunk[i - from] = utf8(texts.get(i));
      }
      return chunk;
    }
  }

  KeyBatch batch(Collection<? extends K> keys) {
    return new KeyBatch(keys);
  }

  /** MGET, one command per chunk, a few chunks in flight at once; values aligned with the batch. */
  CompletableFuture<byte[][]> fetchAll(KeyBatch batch) {
    int n = batch.size();
    byte[][] values = new byte[n][];
    int chunk = settings.chunkSize();
    CompletableFuture<Void> all = ChunkWindow.run(n == 0 ? 0 : rounds(n), index -> {
      int start = index * chunk;
      byte[][] keys = batch.redisKeys(start, Math.min(n, start + chunk));
      CompletableFuture<List<KeyValue<byte[], byte[]>>> read = near == null ? session.dispatch(c -> c.mget(keys))
          : near.dispatch(c -> c.mget(keys));
      return read.thenAccept(found -> {
        int i = start;
        for (KeyValue<byte[], byte[]> entry : found) {
          values[i++] = entry.hasValue() ? entry.getValue() : null;
        }
      });
    });
    return session.translated(all.thenApply(done -> values), "MGET of " + n + " keys of " + owner)
        .thenCompose(this::withDictionaries);
  }

  Map<K, V> decodeAll(KeyBatch batch, byte[][] values) {
    return decodeAll(batch, values, null);
  }

  /** Decodes a bulk read; the keys cached as absent go to {@code absent} when it is not null. */
  Map<K, V> decodeAll(KeyBatch batch, byte[][] values, @Nullable Set<K> absent) {
    Map<K, V> found = new LinkedHashMap<>();
    for (int i = 0; i < values.length; i++) {
      Object value = read(batch.texts.get(i), values[i]);
      if (value == ABSENT) {
        if (absent != null) {
          absent.add(batch.keys.get(i));
        }
      } else if (value != null) {
        found.put(batch.keys.get(i), cast(value));
      }
    }
    return found;
  }

  @Override
  public CompletableFuture<Map<K, V>> getAll(Collection<? extends K> keys) {
    KeyBatch batch = batch(keys);
    if (near != null) {
      NearSplit split = new NearSplit(batch);
      return counted(fetchAll(split.rest).thenApply(values -> split.found(batch, values, decodeAll(split.rest, values))));
    }
    return counted(fetchAll(batch).thenApply(values -> decodeAll(batch, values)));
  }

  /** Entries encoded and ready to send. */
  static final class Prepared {
    final byte[][] keys;
    final byte[][] values;

    Prepared(int size) {
      this.keys = new byte[size][];
      this.values = new byte[size][];
    }
  }

  /** Encodes every entry in the calling thread. */
  Prepared prepare(Map<? extends K, ? extends V> entries) {
    requireNonNull(entries, "entries");
    return prepare(entries.entrySet().iterator(), entries.size(), entries.size() > 1);
  }

  /** Encodes the next {@code count} entries (fewer if the iterator runs out) in the calling thread. */
  Prepared prepare(Iterator<? extends Map.Entry<? extends K, ? extends V>> entries, int count,
                   boolean bulk) {
    Prepared prepared = new Prepared(count);
    int i = 0;
    while (i < count && entries.hasNext()) {
      Map.Entry<? extends K, ? extends V> entry = entries.next();
      String keyText = keyText(entry.getKey());
      prepared.keys[i] = utf8(keyText);
      prepared.values[i] = encode(keyText, entry.getValue(), bulk);
      i++;
    }
    if (i < count) {
      Prepared shorter = new Prepared(i);
      System.arraycopy(prepared.keys, 0, shorter.keys, 0, i);
      System.arraycopy(prepared.values, 0, shorter.values, 0, i);
      return shorter;
    }
    return prepared;
  }

  int chunkSize() {
    return settings.chunkSize();
  }

  /**
   * Sends prepared entries, one command per chunk, a few chunks in flight at once. Without a TTL the
   * command is {@code MSET}; with one it is a script that runs {@code SET key value PX ttl} for each
   * entry of the chunk, since every entry has its own jittered TTL. Timed against pipelining one
   * {@code SET PX} per entry (on the pipeline connection this class used to keep), the script was
   * faster, and sends one command where the pipeline sent a thousand. With Redis Cluster a chunk's
   * keys will have to share a slot.
   */
  CompletableFuture<Void> send(Prepared prepared) {
    int n = prepared.keys.length;
    int chunk = settings.chunkSize();
    int chunks = n == 0 ? 0 : rounds(n);
    boolean expire = settings.ttl() != null;
    CompletableFuture<Void> all = ChunkWindow.run(chunks, index -> {
      int from = index * chunk;
      int to = Math.min(n, from + chunk);
      return dispatchChunk(prepared, from, to);
    });
    return session.translated(all, describeWrite(n));
  }

  /** The one command that writes entries {@code from} to {@code to} of {@code prepared}, untranslated. */
  CompletableFuture<?> dispatchChunk(Prepared prepared, int from, int to) {
    if (settings.ttl() == null) {
      Map<byte[], byte[]> entries = new LinkedHashMap<>();
      for (int i = from; i < to; i++) {
        entries.put(prepared.keys[i], prepared.values[i]);
      }
      return session.dispatch(c -> c.mset(entries));
    }
    byte[][] keys = Arrays.copyOfRange(prepared.keys, from, to);
    byte[][] valuesAndTtls = new byte[2 * (to - from)][];
    for (int i = from; i < to; i++) {
      valuesAndTtls[2 * (i - from)] = prepared.values[i];
      valuesAndTtls[2 * (i - from) + 1] = Long.toString(ttlMillis()).getBytes(StandardCharsets.US_ASCII);
    }
    return SET_WITH_TTLS.run(session, keys, valuesAndTtls);
  }

  String describeWrite(int n) {
    return (settings.ttl() != null ? "SET PX" : "MSET") + " of " + n + " keys of " + owner;
  }

  @Override
  public CompletableFuture<Void> putAll(Map<? extends K, ? extends V> entries) {
    Prepared prepared;
    try {
      prepared = prepare(entries);
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    return droppingNear(counted(send(prepared)), () -> texts(prepared.keys));
  }

  /** The Redis keys as text. */
  static List<String> texts(byte[][] keys) {
    List<String> texts = new ArrayList<>(keys.length);
    for (byte[] key : keys) {
      texts.add(new String(key, StandardCharsets.UTF_8));
    }
    return texts;
  }

  @Override
  public CompletableFuture<Long> deleteAll(Collection<? extends K> keys) {
    KeyBatch batch = batch(keys);
    int n = batch.size();
    int chunk = settings.chunkSize();
    LongAdder deleted = new LongAdder();
    CompletableFuture<Void> all = ChunkWindow.run(n == 0 ? 0 : rounds(n), index -> {
      byte[][] redisKeys = batch.redisKeys(index * chunk, Math.min(n, (index + 1) * chunk));
      return session.dispatch(c -> c.del(redisKeys)).thenAccept(deleted::add);
    });
    CompletableFuture<Long> deletedAll =
        counted(session.translated(all.thenApply(done -> deleted.sum()), "DEL of " + n + " keys of " + owner));
    return droppingNear(deletedAll, () -> batch.texts);
  }

  // ---------------------------------------------------------------- loads

  @Override
  public CompletableFuture<V> getOrLoad(K key, Function<? super K, ? extends V> loader) {
    String keyText = keyText(key);
    requireNonNull(loader, "loader");
    V kept = nearValue(keyText);
    if (kept != null) {
      return CompletableFuture.completedFuture(kept);
    }
    long stamp = stamp(keyText);
    CompletableFuture<V> result = fetch(keyText).handle((bytes, failure) -> {
      if (failure != null) {
        if (!loadsWhenUnavailable() || !(unwrap(failure) instanceof CacheUnavailableException)) {
          return CompletableFuture.<V>failedFuture(failure);
        }
        countFailure(failure);
        return loadShared(key, keyText, loader, settings.loadExecutor(), true).copy();
      }
      Object value = read(keyText, bytes);
      if (value != null && value != ABSENT) {
        keep(keyText, stamp, cast(value), bytes);
      }
      return value == ABSENT ? CompletableFuture.<V>completedFuture(null)
          : value != null ? CompletableFuture.completedFuture(cast(value))
          : loadShared(key, keyText, loader, settings.loadExecutor(), false).copy();
    }).thenCompose(Function.identity());
    return counted(result);
  }

  private static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /**
   * The blocking view's load while Redis is unavailable and the cache loads anyway: the loader runs
   * in the calling thread when this caller leads, and nothing is read or stored.
   */
  V loadWithoutRedis(K key, String keyText, Function<? super K, ? extends V> loader) {
    return joinLoad(loadShared(key, keyText, loader, CALLER_THREAD, true));
  }

  /** The blocking view's load: the loader runs in the calling thread when this caller leads. */
  /**
   * The blocking view's load after its read: the value read, null for a key cached as absent, or
   * else the loader's value (the loader running in the calling thread when this caller leads).
   */
  @Nullable V valueOrLoad(K key, String keyText, long stamp, byte[] bytes, Function<? super K, ? extends V> loader) {
    Object value = read(keyText, bytes);
    if (value != null && value != ABSENT) {
      keep(keyText, stamp, cast(value), bytes);
    }
    return value == ABSENT ? null : value != null ? cast(value) : loadInCallerThread(key, keyText, loader);
  }

  V loadInCallerThread(K key, String keyText, Function<? super K, ? extends V> loader) {
    return joinLoad(loadShared(key, keyText, loader, CALLER_THREAD, false));
  }

  private CompletableFuture<V> loadShared(K key, String keyText, Function<? super K, ? extends V> loader,
                                          Executor executor, boolean redisDown) {
    CompletableFuture<V> mine = new CompletableFuture<>();
    CompletableFuture<V> running = inFlight.putIfAbsent(keyText, mine);
    if (running != null) {
      return running;
    }
    try {
      executor.execute(() -> runLoad(key, keyText, loader, mine, redisDown));
    } catch (RejectedExecutionException e) {
      inFlight.remove(keyText, mine);
      mine.completeExceptionally(e);
    }
    return mine;
  }

  private void runLoad(K key, String keyText, Function<? super K, ? extends V> loader, CompletableFuture<V> result,
                       boolean redisDown) {
    try {
      V value = redisDown ? callLoader(key, loader)
          : settings.loadLock() == null ? readOrLoad(key, keyText, loader)
          : loadUnderLock(key, keyText, loader, settings.loadLock());
      result.complete(value);
    } catch (Throwable e) {
      result.completeExceptionally(e);
    } finally {
      inFlight.remove(keyText, result);
    }
  }

  /** Reads the key again; if it is still missing, calls the loader and stores its value. */
  private @Nullable V readOrLoad(K key, String keyText, Function<? super K, ? extends V> loader) {
    byte[] bytes;
    try {
      bytes = session.await(fetch(keyText), 1, "GET " + keyText + " of " + owner);
    } catch (CacheUnavailableException e) {
      if (!loadsWhenUnavailable()) {
        throw e;
      }
      countFailure(e);
      return callLoader(key, loader);
    }
    if (Envelope.isAbsentMarker(bytes)) {
      return null;
    }
    V present = decodeQuietly(keyText, bytes);
    if (present != null) {
      return present;
    }
    V value = callLoader(key, loader);
    storeLoaded(keyText, value);
    return value;
  }

  private V callLoader(K key, Function<? super K, ? extends V> loader) {
    long start = System.nanoTime();
    V value;
    try {
      value = loader.apply(key);
    } catch (RuntimeException | Error e) {
      loadFailures.increment();
      throw e;
    } finally {
      loadNanos.add(System.nanoTime() - start);
    }
    loads.increment();
    return value;
  }

  private @Nullable V loadUnderLock(K key, String keyText, Function<? super K, ? extends V> loader, Duration lockTime) {
    String lockKeyText = StowageKeys.loadLock(keyText);
    byte[] lockKey = utf8(lockKeyText);
    byte[] token = new byte[16];
    TOKENS.nextBytes(token);
    long lockMillis = lockTime.toMillis();
    long pollMillis = Math.max(5, Math.min(50, lockMillis / 10));
    long deadline = System.nanoTime() + lockTime.toNanos();
    String what = "SET NX " + lockKeyText + " of " + owner;
    while (true) {
      String acquired = session.await(session.call(what,
          c -> c.set(lockKey, token, SetArgs.Builder.nx().px(lockMillis))), 1, what);
      if ("OK".equals(acquired)) {
        try {
          return readOrLoad(key, keyText, loader);
        } finally {
          release(lockKey, token, keyText);
        }
      }
      sleep(pollMillis, keyText);
      byte[] polled = session.await(fetch(keyText), 1, "GET " + keyText + " of " + owner);
      if (Envelope.isAbsentMarker(polled)) {
        return null;
      }
      V present = decodeQuietly(keyText, polled);
      if (present != null) {
        return present;
      }
      if (System.nanoTime() - deadline > 0) {
        LOG.log(Level.DEBUG, () -> owner + ": " + keyText + " is still locked by another process after "
            + lockMillis + " ms; loading it here");
        return readOrLoad(key, keyText, loader);
      }
    }
  }

  private void release(byte[] lockKey, byte[] token, String keyText) {
    String what = "releasing the load lock of " + keyText + " of " + owner;
    try {
      session.await(session.call(what, c -> c.<Long>eval(RELEASE_LOCK, ScriptOutputType.INTEGER,
          new byte[][] {lockKey}, token)), 1, what);
    } catch (StowageException e) {
      LOG.log(Level.WARNING, owner + ": could not release the load lock of " + keyText
          + "; it expires on its own: " + e.getMessage());
    }
  }

  private static void sleep(long millis, String keyText) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StowageException("interrupted while waiting for another process to load " + keyText, e);
    }
  }

  @Override
  public CompletableFuture<Map<K, V>> getAllOrLoad(Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
    KeyBatch batch = batch(keys);
    requireNonNull(loader, "loader");
    NearSplit split = near == null ? null : new NearSplit(batch);
    KeyBatch toRead = split == null ? batch : split.rest;
    return counted(fetchAll(toRead).thenCompose(values -> {
      Set<K> absent = new LinkedHashSet<>();
      Map<K, V> decoded = decodeAll(toRead, values, absent);
      Map<K, V> found = split == null ? decoded : split.found(batch, values, decoded);
      if (found.size() + absent.size() == batch.size()) {
        return CompletableFuture.completedFuture(found);
      }
      return loadAllShared(batch, found, absent, loader, settings.loadExecutor())
          .thenApply(loaded -> merge(batch, found, loaded));
    }));
  }

  /** The blocking view's bulk load: the loader runs in the calling thread. */
  Map<K, V> loadAllInCallerThread(KeyBatch batch, Map<K, V> found, Set<K> absent,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
    return merge(batch, found, joinLoad(loadAllShared(batch, found, absent, loader, CALLER_THREAD)));
  }

  private Map<K, V> merge(KeyBatch batch, Map<K, V> found, Map<K, V> loaded) {
    Map<K, V> result = new LinkedHashMap<>();
    for (K key : batch.keys) {
      V value = found.get(key);
      if (value == null) {
        value = loaded.get(key);
      }
      if (value != null) {
        result.put(key, value);
      }
    }
    return result;
  }

  private CompletableFuture<Map<K, V>> loadAllShared(KeyBatch batch, Map<K, V> found, Set<K> absent,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader, Executor executor) {
    Map<K, CompletableFuture<V>> waits = new LinkedHashMap<>();
    Map<K, CompletableFuture<V>> mine = new LinkedHashMap<>();
    Map<K, String> texts = new LinkedHashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      K key = batch.keys.get(i);
      if (found.containsKey(key) || absent.contains(key)) {
        continue;
      }
      String keyText = batch.texts.get(i);
      CompletableFuture<V> future = new CompletableFuture<>();
      CompletableFuture<V> running = inFlight.putIfAbsent(keyText, future);
      if (running == null) {
        mine.put(key, future);
        texts.put(key, keyText);
        waits.put(key, future);
      } else {
        waits.put(key, running);
      }
    }
    if (!mine.isEmpty()) {
      try {
        executor.execute(() -> runBulkLoad(mine, texts, loader));
      } catch (RejectedExecutionException e) {
        mine.forEach((key, future) -> {
          inFlight.remove(texts.get(key), future);
          future.completeExceptionally(e);
        });
      }
    }
    return CompletableFuture.allOf(waits.values().toArray(CompletableFuture[]::new)).thenApply(done -> {
      Map<K, V> loaded = new LinkedHashMap<>();
      waits.forEach((key, future) -> {
        V value = future.join();
        if (value != null) {
          loaded.put(key, value);
        }
      });
      return loaded;
    });
  }

  private void runBulkLoad(Map<K, CompletableFuture<V>> mine, Map<K, String> texts,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
    try {
      KeyBatch again = batch(mine.keySet());
      byte[][] values = session.await(fetchAll(again), rounds(again.size()), "MGET of " + again.size()
          + " keys of " + owner);
      Set<K> missing = new LinkedHashSet<>();
      for (int i = 0; i < values.length; i++) {
        K key = again.keys.get(i);
        if (Envelope.isAbsentMarker(values[i])) {
          requireNonNull(mine.get(key)).complete(null);
          continue;
        }
        V present = decodeQuietly(again.texts.get(i), values[i]);
        if (present != null) {
          requireNonNull(mine.get(key)).complete(present);
        } else {
          missing.add(key);
        }
      }
      if (!missing.isEmpty()) {
        Map<? extends K, ? extends V> loaded;
        long start = System.nanoTime();
        try {
          loaded = loader.apply(Collections.unmodifiableSet(missing));
        } catch (RuntimeException | Error e) {
          loadFailures.increment();
          throw e;
        } finally {
          loadNanos.add(System.nanoTime() - start);
        }
        if (loaded == null) {
          loadFailures.increment();
          throw new NullPointerException(owner + ": the bulk loader returned null instead of a map");
        }
        loads.increment();
        Map<K, V> toStore = new LinkedHashMap<>();
        List<String> none = new ArrayList<>();
        for (K key : missing) {
          V value = loaded.get(key);
          if (value != null) {
            toStore.put(key, value);
          } else if (settings.absentTtl() != null) {
            none.add(keyText(key));
          }
        }
        Prepared prepared = prepare(toStore);
        try {
          if (near != null) {
            dropNear(texts(prepared.keys));
          }
          session.await(send(prepared), rounds(toStore.size()), "storing " + toStore.size() + " loaded keys of "
              + owner);
          if (!none.isEmpty()) {
            session.await(storeAbsent(none), rounds(none.size()), "storing " + none.size() + " absent keys of " + owner);
          }
        } catch (CacheUnavailableException e) {
          countFailure(e);
          LOG.log(Level.WARNING, owner + ": loaded " + toStore.size() + " keys but could not store them: "
              + e.getMessage());
        }
        for (K key : missing) {
          requireNonNull(mine.get(key)).complete(toStore.get(key));
        }
      }
    } catch (Throwable e) {
      mine.values().forEach(future -> future.completeExceptionally(e));
    } finally {
      mine.forEach((key, future) -> inFlight.remove(texts.get(key), future));
    }
  }

  /**
   * Waits, with no bound, for a load: a loader runs as long as it runs. The loader's exceptions
   * pass unchanged; Redis failures on the way were translated where they happened.
   */
  static <T> T joinLoad(CompletableFuture<T> load) {
    try {
      return load.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StowageException("interrupted while waiting for a load", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new StowageException("a load failed: " + cause, cause);
    }
  }
}
