package dev.stowage.internal.cache;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncRedisCache;
import dev.stowage.CacheStats;
import dev.stowage.CacheUnavailableException;
import dev.stowage.RedisCache;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import dev.stowage.internal.Futures;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.nearcache.NearStore;
import dev.stowage.internal.redis.CacheSettings;
import dev.stowage.internal.redis.CacheStorage;
import dev.stowage.internal.redis.KeyPerValueStorage;
import io.lettuce.core.RedisException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A cache: the one implementation of every operation, asynchronous, over a {@link CacheStorage}
 * (the layout's Redis commands); {@link BlockingCache} waits for it. The engine reads and decodes
 * (a value that cannot be decoded is a miss, counted and logged once per key), caches absent
 * values, keeps the near cache's copies, and counts; {@link CacheLoads} loads what is missing.
 *
 * <p>Each operation runs its own work (decoding, encoding, loaders) where its {@link Threads} say:
 * for the asynchronous view, decoding where Redis's reply completes and loaders on the load
 * executor; for the blocking view, all of it in the calling thread, which runs it while it waits.
 */
public final class CacheEngine<K, V> implements AsyncRedisCache<K, V> {
  /** What {@link #read} answers for a key cached as absent. */
  static final Object ABSENT = new Object();

  /** Runs a task in the thread that submits it. */
  private static final Executor DIRECT = Runnable::run;

  /**
   * Where an operation runs its own work.
   *
   * @param work decodes replies and encodes values
   * @param loads runs loaders
   */
  record Threads(Executor work, Executor loads) {}

  final RedisSession session;
  final CacheSettings<K, V> settings;
  final CacheStorage<K, V> storage;
  final String owner;
  private final QuietDecoder<V> decoder;
  private final @Nullable NearStore near;

  /** Hits answered by Redis; the near cache counts its own. */
  private final LongAdder hits = new LongAdder();

  private final LongAdder misses = new LongAdder();
  private final LongAdder absentHits = new LongAdder();
  private final LongAdder redisErrors = new LongAdder();
  private final LongAdder deletes = new LongAdder();

  private final Threads asyncThreads;
  private final CacheLoads<K, V> loads;
  private final BlockingCache<K, V> blocking;

  public CacheEngine(
      RedisSession session, CacheSettings<K, V> settings, CacheStorage<K, V> storage) {
    this.session = session;
    this.settings = settings;
    this.storage = storage;
    this.owner = "cache '" + settings.name() + "'";
    this.decoder = new QuietDecoder<>(settings.codec(), session, owner);
    this.near = storage.near();
    this.asyncThreads = new Threads(DIRECT, settings.loadExecutor());
    this.loads = new CacheLoads<>(this);
    this.blocking = new BlockingCache<>(this);
  }

  /** The blocking view. */
  public RedisCache<K, V> blocking() {
    return blocking;
  }

  @Override
  public RedisCache<K, V> synchronous() {
    return blocking;
  }

  @Override
  public String name() {
    return settings.name();
  }

  @Override
  public CacheStats stats() {
    return CacheStats.of(
        hits.sum() + (near == null ? 0 : near.hits()),
        misses.sum(),
        decoder.failures(),
        loads.counters().loads(),
        loads.counters().failures(),
        absentHits.sum(),
        redisErrors.sum(),
        loads.counters().nanos(),
        near == null ? 0 : near.hits(),
        near == null ? 0 : near.misses(),
        storage.puts(),
        deletes.sum(),
        storage.bytesBeforeCompression(),
        storage.bytesWritten(),
        storage.oversized());
  }

  /** The compression values are written with now. */
  @Override
  public Compression compression() {
    return settings.codec().current().compression();
  }

  @Override
  public String redisKey(K key) {
    return storage.redisKey(keyText(key));
  }

  /** Where the blocking view's work goes once its caller stopped waiting: the load executor. */
  Executor fallback() {
    return settings.loadExecutor();
  }

  String keyText(K key) {
    return storage.keyText(key);
  }

  /** A key's text after the cache's prefix: what the near cache knows its entry by. */
  String entryText(K key) {
    return KeyPerValueStorage.entryTextOf(settings, owner, key);
  }

  /** The key text of an entry's text: the cache's prefix before it. */
  String keyTextOfEntry(String entryText) {
    return settings.keyPrefix() + entryText;
  }

  // ---------------------------------------------------------------- near cache

  /**
   * The value the near cache keeps for the entry {@code entryText} (counted as a hit, once: stats()
   * adds the store's hits to the Redis ones), or null: a hit without building the key text.
   */
  @Nullable V nearEntry(String entryText) {
    return near == null ? null : cast(near.getEntry(entryText));
  }

  /** The stamp a read takes before it is sent, or -1 without a near cache. */
  long stamp(String keyText) {
    return near == null ? -1 : near.stamp(keyText);
  }

  /** A near cache's read's record of the entry's time to live, or null without a near cache. */
  CacheStorage.@Nullable ReadTtl readTtl() {
    return near == null ? null : new CacheStorage.ReadTtl();
  }

  /** Keeps a value just read, unless its key changed since {@code stamp}, within its TTL. */
  void keep(
      String keyText, long stamp, @Nullable V value, byte[] bytes, long sentAt, long ttlMillis) {
    if (near != null && value != null) {
      near.keep(keyText, stamp, value, bytes.length, sentAt, ttlMillis);
    }
  }

  /** {@code write}, then the near cache's copies of what it wrote dropped; free without one. */
  <T> CompletableFuture<T> droppingNear(
      CompletableFuture<T> write, Supplier<? extends Collection<String>> written) {
    NearStore store = near;
    return store == null
        ? write
        : write.whenComplete((done, failure) -> written.get().forEach(store::drop));
  }

  boolean hasNear() {
    return near != null;
  }

  // ---------------------------------------------------------------- failures

  /** Counts a call that failed because of Redis, and returns the failure. */
  <E extends Throwable> E countFailure(E failure) {
    Throwable cause = Futures.unwrap(failure);
    if (cause instanceof CacheUnavailableException
        || (cause instanceof StowageException stowage
            && stowage.getCause() instanceof RedisException)) {
      redisErrors.increment();
    }
    return failure;
  }

  /** The same future, with a Redis failure counted. */
  <T> CompletableFuture<T> counted(CompletableFuture<T> operation) {
    return operation.whenComplete(
        (value, failure) -> {
          if (failure != null) {
            countFailure(failure);
          }
        });
  }

  /** Whether a load goes on without Redis after {@code failure}. */
  boolean loadsDespite(Throwable failure) {
    return settings.loadWhenUnavailable()
        && Futures.unwrap(failure) instanceof CacheUnavailableException;
  }

  // ---------------------------------------------------------------- reading and decoding

  /**
   * Reads one entry, then loads the dictionary its value names, if any, so that decoding never
   * waits for Redis and may run on Lettuce's I/O thread.
   */
  CompletableFuture<byte @Nullable []> fetch(String keyText, CacheStorage.@Nullable ReadTtl ttl) {
    return storage
        .fetch(keyText, ttl)
        .thenCompose(bytes -> withDictionaries(new byte[][] {bytes}).thenApply(all -> bytes));
  }

  /** Reads entries, then loads the dictionaries their values name. */
  CompletableFuture<byte[][]> fetchAll(List<String> keyTexts, long @Nullable [] ttls) {
    return storage.fetchAll(keyTexts, ttls).thenCompose(this::withDictionaries);
  }

  @SuppressWarnings("ReferenceEquality") // a sentinel array
  private CompletableFuture<byte[][]> withDictionaries(byte[][] values) {
    return settings
        .preload()
        .load(Arrays.asList(values), value -> value == CacheStorage.WRONG_TYPE ? -1 : 0)
        .thenApply(done -> values);
  }

  /**
   * Decodes a read and counts it: the value, {@link #ABSENT} for a key cached as absent, or null.
   */
  @Nullable Object read(String keyText, byte @Nullable [] bytes) {
    if (bytes != null && Envelope.isAbsentMarker(bytes)) {
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
  @Nullable V cast(@Nullable Object value) {
    return (V) value;
  }

  /** Decodes a read, uncounted; a value that cannot be decoded is logged once and read as null. */
  @SuppressWarnings("ReferenceEquality") // a sentinel array
  @Nullable V decodeQuietly(String keyText, byte @Nullable [] bytes) {
    if (bytes == null || Envelope.isAbsentMarker(bytes)) {
      return null;
    }
    if (bytes == CacheStorage.WRONG_TYPE) {
      decoder.fail(keyText, storage.wrongType());
      return null;
    }
    return decoder.decode(keyText, bytes);
  }

  // ---------------------------------------------------------------- single keys

  @Override
  public CompletableFuture<@Nullable V> get(K key) {
    return get(key, asyncThreads);
  }

  CompletableFuture<V> get(K key, Threads threads) {
    String entryText = entryText(key);
    V kept = nearEntry(entryText);
    if (kept != null) {
      return CompletableFuture.completedFuture(kept);
    }
    return fetchOne(keyTextOfEntry(entryText), threads);
  }

  /** Reads an entry the near cache does not hold (or without one) from Redis. */
  CompletableFuture<V> fetchOne(String keyText, Threads threads) {
    long stamp = stamp(keyText);
    CacheStorage.ReadTtl ttl = readTtl();
    return counted(
        fetch(keyText, ttl)
            .thenApplyAsync(
                bytes -> {
                  Object value = read(keyText, bytes);
                  if (value == ABSENT) {
                    return null;
                  }
                  if (ttl != null && bytes != null) {
                    keep(keyText, stamp, cast(value), bytes, ttl.sentAt, ttl.millis);
                  }
                  return cast(value);
                },
                threads.work()));
  }

  /** Encodes the value in the calling thread, then stores it. */
  @Override
  public CompletableFuture<Void> put(K key, V value) {
    String keyText = keyText(key);
    CompletableFuture<Void> written;
    try {
      written = storage.write(keyText, storage.encode(keyText, value));
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    return droppingNear(counted(written), () -> List.of(keyText));
  }

  @Override
  public CompletableFuture<Boolean> delete(K key) {
    String keyText = keyText(key);
    return droppingNear(
        counted(storage.delete(List.of(keyText)).thenApply(n -> deleted(n) > 0)),
        () -> List.of(keyText));
  }

  private long deleted(long n) {
    deletes.add(n);
    return n;
  }

  @Override
  public CompletableFuture<Boolean> exists(K key) {
    return counted(storage.exists(keyText(key)));
  }

  // ---------------------------------------------------------------- bulk

  /** Distinct keys, in the order given, with their key texts and entry texts. */
  final class KeyBatch {
    final List<K> keys;
    final List<String> texts;

    /** The texts after the prefix, which the near cache knows entries by. */
    final List<String> entryTexts;

    KeyBatch(Collection<? extends K> given) {
      requireNonNull(given, "keys");
      LinkedHashMap<K, String> distinct = new LinkedHashMap<>();
      for (K key : given) {
        if (!distinct.containsKey(key)) {
          distinct.put(key, entryText(key));
        }
      }
      this.keys = new ArrayList<>(distinct.keySet());
      this.entryTexts = new ArrayList<>(distinct.values());
      this.texts = new ArrayList<>(entryTexts.size());
      entryTexts.forEach(entry -> texts.add(keyTextOfEntry(entry)));
    }

    int size() {
      return keys.size();
    }
  }

  /** What a bulk read found, near cache included, and the keys cached as absent. */
  record BulkRead<K, V>(Map<K, V> found, Set<K> absent) {}

  /** Reads a batch: the near cache's copies, then the storage's bulk read for the rest. */
  CompletableFuture<BulkRead<K, V>> readAll(KeyBatch batch, Threads threads) {
    NearSplit<K, V> split = near == null ? null : new NearSplit<>(this, batch);
    KeyBatch toRead = split == null ? batch : split.rest;
    return fetchAll(toRead.texts, split == null ? null : split.ttls)
        .thenApplyAsync(
            values -> {
              Set<K> absent = new LinkedHashSet<>();
              Map<K, V> decoded = new LinkedHashMap<>();
              for (int i = 0; i < values.length; i++) {
                Object value = read(toRead.texts.get(i), values[i]);
                if (value == ABSENT) {
                  absent.add(toRead.keys.get(i));
                } else if (value != null) {
                  decoded.put(toRead.keys.get(i), cast(value));
                }
              }
              return new BulkRead<>(
                  split == null ? decoded : split.found(batch, values, decoded), absent);
            },
            threads.work());
  }

  /** The values of {@code found}, else of {@code loaded}, in the batch's order. */
  Map<K, V> merge(KeyBatch batch, Map<K, V> found, Map<K, V> loaded) {
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

  @Override
  public CompletableFuture<Map<K, V>> getAll(Collection<? extends K> keys) {
    return getAll(keys, asyncThreads);
  }

  CompletableFuture<Map<K, V>> getAll(Collection<? extends K> keys, Threads threads) {
    return counted(readAll(new KeyBatch(keys), threads).thenApply(BulkRead::found));
  }

  /**
   * Encodes every value in the calling thread before it sends any: a value that cannot be encoded
   * stores nothing.
   */
  @Override
  public CompletableFuture<Void> putAll(Map<? extends K, ? extends V> entries) {
    CacheStorage.Prepared prepared;
    try {
      prepared = storage.prepare(entries);
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    return droppingNear(counted(storage.send(prepared)), prepared::texts);
  }

  /** Encodes a chunk at a time on {@code encodeOn} while earlier chunks are written. */
  CompletableFuture<Void> putAllStreaming(
      Map<? extends K, ? extends V> entries, Executor encodeOn) {
    List<String> written = Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<Void> all =
        counted(storage.writeStreaming(entries, encodeOn, written::addAll));
    return droppingNear(all, () -> List.copyOf(written));
  }

  @Override
  public CompletableFuture<Long> deleteAll(Collection<? extends K> keys) {
    KeyBatch batch = new KeyBatch(keys);
    if (batch.size() == 0) {
      return CompletableFuture.completedFuture(0L);
    }
    return droppingNear(
        counted(storage.delete(batch.texts).thenApply(this::deleted)), () -> batch.texts);
  }

  /** Removes the layout's keys, and with them the near cache's copies. */
  @Override
  public CompletableFuture<Long> clear() {
    CompletableFuture<Long> cleared = counted(storage.clear().thenApply(this::deleted));
    NearStore store = near;
    return store == null ? cleared : cleared.whenComplete((done, failure) -> store.invalidateAll());
  }

  // ---------------------------------------------------------------- loads

  @Override
  public CompletableFuture<@Nullable V> getOrLoad(K key, Function<? super K, ? extends V> loader) {
    return loads.getOrLoad(key, loader, asyncThreads);
  }

  CompletableFuture<V> getOrLoad(K key, Function<? super K, ? extends V> loader, Threads threads) {
    return loads.getOrLoad(key, loader, threads);
  }

  @Override
  public CompletableFuture<@Nullable V> getOrLoadAsync(
      K key, Function<? super K, ? extends CompletionStage<? extends V>> loader) {
    return loads.getOrLoadAsync(key, loader, asyncThreads);
  }

  @Override
  public CompletableFuture<Map<K, V>> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
    return loads.getAllOrLoad(keys, loader, asyncThreads);
  }

  CompletableFuture<Map<K, V>> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader,
      Threads threads) {
    return loads.getAllOrLoad(keys, loader, threads);
  }
}
