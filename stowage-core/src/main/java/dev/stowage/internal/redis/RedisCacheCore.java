package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncRedisCache;
import dev.stowage.CacheStats;
import dev.stowage.CacheUnavailableException;
import dev.stowage.Envelope;
import dev.stowage.RedisCache;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * A cache: the one implementation of every operation, asynchronous; {@link BlockingRedisCache}
 * waits for it. This class maps keys to Redis keys, reads and decodes (a value that cannot be
 * decoded is a miss, counted and logged once per key), keeps the near cache's copies, and counts;
 * it composes the parts that do the rest: {@link ChunkedWriter} writes, {@link SingleFlight} shares
 * a load within the process and {@link LoadLock} across processes.
 *
 * <p>Each operation runs its own work (decoding, encoding, loaders) where its {@link Threads} say:
 * for the asynchronous view, decoding where Redis's reply completes and loaders on the load
 * executor; for the blocking view, all of it in the calling thread, which runs it while it waits
 * ({@link CallerRuns}).
 *
 * <p>A load reads Redis again before calling the loader, because a caller whose read missed just
 * before another load stored the value can arrive after that load has finished.
 */
public final class RedisCacheCore<K, V> implements AsyncRedisCache<K, V> {
  private static final System.Logger LOG = System.getLogger("dev.stowage.cache");

  /** What {@link #read} answers for a key cached as absent. */
  private static final Object ABSENT = new Object();

  /** Stands for a key that holds another Redis type than a string. */
  private static final byte[] WRONG_TYPE = new byte[0];

  /**
   * A near cache's bulk read: for each key, its value (nil when missing or not a string, as {@code
   * MGET} answers) and then its {@code PTTL}. One command, so that it is batched as an {@code MGET}
   * is; {@code MGET} in slices, as Lua unpacks only so many values at once.
   */
  private static final LuaScript MGET_WITH_TTLS =
      new LuaScript(
          """
      local reply = {}
      for first = 1, #KEYS, 1000 do
        local last = math.min(first + 999, #KEYS)
        local values = redis.call('MGET', unpack(KEYS, first, last))
        for i = first, last do
          reply[2 * i - 1] = values[i - first + 1]
          reply[2 * i] = redis.call('PTTL', KEYS[i])
        end
      end
      return reply
      """,
          ScriptOutputType.MULTI);

  /** Runs a task in the thread that submits it. */
  private static final Executor DIRECT = Runnable::run;

  /**
   * Where an operation runs its own work.
   *
   * @param work decodes replies and encodes values
   * @param loads runs loaders
   */
  record Threads(Executor work, Executor loads) {}

  private final RedisSession session;
  private final CacheSettings<K, V> settings;
  private final WriteCodec<V> codec;
  private final String owner;
  private final QuietDecoder<V> decoder;
  private final LoadCounters loadCounters = new LoadCounters();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder absentHits = new LongAdder();
  private final LongAdder redisErrors = new LongAdder();
  private final LongAdder deletes = new LongAdder();
  private final ChunkedWriter<K, V> writer;
  private final SingleFlight<V> flights = new SingleFlight<>();
  private final @Nullable LoadLock lock;
  private final Threads asyncThreads;
  private final BlockingRedisCache<K, V> blocking;
  private final Tracking.@Nullable Reader near;

  public RedisCacheCore(RedisSession session, CacheSettings<K, V> settings) {
    this.session = session;
    this.settings = settings;
    this.codec = settings.codec();
    this.owner = "cache '" + settings.name() + "'";
    this.decoder = new QuietDecoder<>(codec, session, owner);
    this.near = settings.near();
    this.writer = new ChunkedWriter<>(session, settings, this::keyText, owner);
    this.lock =
        settings.loadLock() == null ? null : new LoadLock(session, settings.loadLock(), owner);
    this.asyncThreads = new Threads(DIRECT, settings.loadExecutor());
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

  /** Where the blocking view's work goes once its caller stopped waiting: the load executor. */
  Executor fallback() {
    return settings.loadExecutor();
  }

  ChunkedWriter<K, V> writer() {
    return writer;
  }

  CacheStats stats() {
    NearStore store = near == null ? null : near.store();
    return CacheStats.of(
        hits.sum(),
        misses.sum(),
        decoder.failures(),
        loadCounters.loads(),
        loadCounters.failures(),
        absentHits.sum(),
        redisErrors.sum(),
        loadCounters.nanos(),
        store == null ? 0 : store.hits(),
        store == null ? 0 : store.misses(),
        writer.puts(),
        deletes.sum(),
        writer.bytesBeforeCompression(),
        writer.bytesWritten(),
        0);
  }

  /** The compression values are written with now. */
  Compression compression() {
    return codec.current().compression();
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

  /**
   * Keeps a value just read and decoded, unless the key changed since {@code stamp}, for no longer
   * than the key's time to live as read with it ({@code ttlMillis}, from {@code sentAt}).
   */
  void keep(
      String keyText, long stamp, @Nullable V value, byte[] bytes, long sentAt, long ttlMillis) {
    if (near != null && value != null) {
      near.store().keep(keyText, stamp, value, bytes.length, sentAt, ttlMillis);
    }
  }

  /**
   * What a near cache's read of one key learnt of its time to live: when the read was sent, and the
   * answer of the {@code PTTL} sent right after its {@code GET}.
   */
  private static final class ReadTtl {
    final long sentAt = System.nanoTime();
    volatile long millis = NearStore.UNKNOWN_TTL;
  }

  /** Drops the near cache's copies of keys this process wrote. */
  void dropNear(Collection<String> keyTexts) {
    if (near != null) {
      keyTexts.forEach(near.store()::invalidate);
    }
  }

  /**
   * {@code write}, followed by dropping the near cache's copies of the keys {@code written} names;
   * the same future when there is no near cache, so that writes pay nothing for it.
   */
  private <T> CompletableFuture<T> droppingNear(
      CompletableFuture<T> write, Supplier<? extends Collection<String>> written) {
    return near == null ? write : write.whenComplete((done, failure) -> dropNear(written.get()));
  }

  /**
   * A batch split by the near cache: the values it keeps, and the rest to read with their stamps,
   * when their read was sent and (once read) their times to live.
   */
  final class NearSplit {
    final Map<K, V> kept = new LinkedHashMap<>();
    final KeyBatch rest;
    final long[] stamps;
    final long[] ttls;
    final long sentAt;

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
      this.ttls = new long[rest.size()];
      Arrays.fill(ttls, NearStore.UNKNOWN_TTL);
      // Before any chunk is sent: the earliest time a chunk's TTLs can be counted from.
      this.sentAt = System.nanoTime();
    }

    /** Keeps what was read, and returns every value found, in the batch's order. */
    Map<K, V> found(KeyBatch batch, byte[][] values, Map<K, V> decoded) {
      for (int i = 0; i < values.length; i++) {
        V value = decoded.get(rest.keys.get(i));
        keep(rest.texts.get(i), stamps[i], value, values[i], sentAt, ttls[i]);
      }
      return kept.isEmpty() ? decoded : merge(batch, kept, decoded);
    }
  }

  /** Counts a call that failed because of Redis, and returns the failure. */
  <E extends Throwable> E countFailure(E failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof CacheUnavailableException
        || cause instanceof StowageException stowage
            && stowage.getCause() instanceof RedisException) {
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
    return writer.rounds(keys);
  }

  /** The failure itself, out of the {@link CompletionException}s around it. */
  static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** {@code failure}, thrown from a stage so that the stage fails with it. */
  static CompletionException asCompletion(Throwable failure) {
    return failure instanceof CompletionException completion
        ? completion
        : new CompletionException(failure);
  }

  /**
   * Whether a load goes on without Redis after {@code failure}: the cache loads while Redis is
   * unavailable.
   */
  private boolean loadsDespite(Throwable failure) {
    return settings.loadWhenUnavailable() && unwrap(failure) instanceof CacheUnavailableException;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  // ---------------------------------------------------------------- reading and decoding

  /**
   * GET, with a key of another type read as {@link #WRONG_TYPE}. Completes once the dictionary the
   * value names, if any, is loaded (or known to be missing), so that decoding never waits for Redis
   * and may run on Lettuce's I/O thread. With {@code ttl} (a near cache's read that may be kept), a
   * {@code PTTL} follows the {@code GET} on the same connection, in the same round trip, and its
   * answer goes to {@code ttl}; a change of the key between the two is an invalidation, which fails
   * the read's stamp.
   */
  private CompletableFuture<byte[]> fetch(String keyText, @Nullable ReadTtl ttl) {
    byte[] key = utf8(keyText);
    CompletableFuture<byte[]> read;
    if (near == null) {
      read = session.dispatch(c -> c.get(key));
    } else {
      NearStore store = near.store();
      Runnable untracked = () -> store.untracked(keyText);
      read = near.dispatch(c -> c.get(key), untracked);
      if (ttl != null) {
        CompletableFuture<Long> pttl = near.dispatch(c -> c.pttl(key), untracked);
        read =
            read.thenCombine(
                pttl.exceptionally(e -> NearStore.UNKNOWN_TTL),
                (bytes, millis) -> {
                  ttl.millis = millis == null ? NearStore.UNKNOWN_TTL : millis;
                  return bytes;
                });
      }
    }
    return read.exceptionallyCompose(
            e ->
                RedisSession.isWrongType(e)
                    ? CompletableFuture.completedFuture(WRONG_TYPE)
                    : CompletableFuture.failedFuture(
                        session.translate(e, "GET " + keyText + " of " + owner)))
        .thenCompose(bytes -> withDictionaries(new byte[][] {bytes}).thenApply(all -> bytes));
  }

  /** Completes once every dictionary these values name is loaded or known to be missing. */
  private CompletableFuture<byte[][]> withDictionaries(byte[][] values) {
    return settings
        .preload()
        .load(Arrays.asList(values), value -> value == WRONG_TYPE ? -1 : 0)
        .thenApply(done -> values);
  }

  /**
   * Decodes a read and counts it: the value, {@link #ABSENT} for a key cached as absent, or null.
   */
  private @Nullable Object read(String keyText, byte[] bytes) {
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
      decoder.fail(keyText, "the key holds another Redis type than a string");
      return null;
    }
    return decoder.decode(keyText, bytes);
  }

  boolean hasLoggedFailure(String keyText) {
    return decoder.hasLogged(keyText);
  }

  /**
   * Reads a key again for a load, uncounted: the value, null for a key cached as absent, or
   * nothing.
   */
  private CompletableFuture<LoadLock.Found<V>> lookUp(String keyText, Threads threads) {
    return fetch(keyText, null)
        .thenApplyAsync(
            bytes -> {
              if (Envelope.isAbsentMarker(bytes)) {
                return LoadLock.Found.value(null);
              }
              V present = decodeQuietly(keyText, bytes);
              return present != null ? LoadLock.Found.value(present) : LoadLock.Found.nothing();
            },
            threads.work());
  }

  // ---------------------------------------------------------------- single keys

  @Override
  public CompletableFuture<V> get(K key) {
    return get(key, asyncThreads);
  }

  CompletableFuture<V> get(K key, Threads threads) {
    String keyText = keyText(key);
    V kept = nearValue(keyText);
    if (kept != null) {
      return CompletableFuture.completedFuture(kept);
    }
    long stamp = stamp(keyText);
    ReadTtl ttl = near == null ? null : new ReadTtl();
    return counted(
        fetch(keyText, ttl)
            .thenApplyAsync(
                bytes -> {
                  Object value = read(keyText, bytes);
                  if (value == ABSENT) {
                    return null;
                  }
                  if (ttl != null) {
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
    WriteCodec.Encoded bytes;
    try {
      bytes = writer.encode(keyText, value);
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    return droppingNear(counted(writer.write(keyText, bytes)), () -> List.of(keyText));
  }

  @Override
  public CompletableFuture<Boolean> delete(K key) {
    String keyText = keyText(key);
    byte[] redisKey = utf8(keyText);
    CompletableFuture<Boolean> deleted =
        counted(
            session
                .call("DEL " + keyText + " of " + owner, c -> c.del(redisKey))
                .thenApply(
                    n -> {
                      deletes.add(n);
                      return n > 0;
                    }));
    return droppingNear(deleted, () -> List.of(keyText));
  }

  @Override
  public CompletableFuture<Boolean> exists(K key) {
    String keyText = keyText(key);
    byte[] redisKey = utf8(keyText);
    return counted(
        session
            .call("EXISTS " + keyText + " of " + owner, c -> c.exists(redisKey))
            .thenApply(n -> n > 0));
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

    /** The Redis keys, in the batch's order. */
    byte[][] redisKeys() {
      byte[][] all = new byte[texts.size()][];
      for (int i = 0; i < all.length; i++) {
        all[i] = utf8(texts.get(i));
      }
      return all;
    }
  }

  /** The Redis keys at the indexes {@code group} holds. */
  private static byte[][] select(byte[][] keys, int[] group) {
    byte[][] selected = new byte[group.length][];
    for (int j = 0; j < group.length; j++) {
      selected[j] = keys[group[j]];
    }
    return selected;
  }

  /**
   * MGET, one command per chunk (and slot), a few chunks in flight at once (per master, each chunk
   * one batch to its master); values aligned with the batch, each command's stored as it arrives.
   * With {@code ttls} (a near cache's read), each key's {@code PTTL} is read with its value, in the
   * same command ({@link #MGET_WITH_TTLS}), into {@code ttls}.
   */
  private CompletableFuture<byte[][]> fetchAll(KeyBatch batch, long @Nullable [] ttls) {
    int n = batch.size();
    byte[][] values = new byte[n][];
    byte[][] redisKeys = batch.redisKeys();
    SlotPlan plan = session.plan(redisKeys, settings.chunkSize());
    Tracking.Reader reader = near;
    CompletableFuture<Void> all;
    if (reader == null || ttls == null) {
      all =
          ChunkWindow.run(
              plan,
              session,
              new GroupCommand<List<KeyValue<byte[], byte[]>>>(
                  group -> BuiltCommands.mget(select(redisKeys, group)),
                  group -> {
                    byte[][] keys = select(redisKeys, group);
                    return session.dispatch(c -> c.mget(keys));
                  },
                  (group, found) -> {
                    int j = 0;
                    for (KeyValue<byte[], byte[]> entry : found) {
                      values[group[j++]] = entry.hasValue() ? entry.getValue() : null;
                    }
                  }));
    } else {
      NearStore store = reader.store();
      all =
          ChunkWindow.run(
              plan,
              session,
              new GroupCommand<List<Object>>(
                  // A near cache in the default mode reads through its own connection, which tracks
                  // the
                  // keys it reads; in broadcast mode (on a cluster) reads are batched like any
                  // other.
                  reader.readsAnywhere()
                      ? group -> MGET_WITH_TTLS.builtMulti(select(redisKeys, group))
                      : null,
                  group -> {
                    byte[][] keys = select(redisKeys, group);
                    Runnable untracked =
                        () -> {
                          for (int i : group) {
                            store.untracked(batch.texts.get(i));
                          }
                        };
                    return MGET_WITH_TTLS.<List<Object>>run(
                        command -> reader.dispatch(command, untracked), keys);
                  },
                  (group, reply) -> {
                    for (int j = 0; j < group.length; j++) {
                      values[group[j]] = reply.get(2 * j) instanceof byte[] value ? value : null;
                      ttls[group[j]] =
                          reply.get(2 * j + 1) instanceof Long millis
                              ? millis
                              : NearStore.UNKNOWN_TTL;
                    }
                  }));
    }
    return session
        .translated(all.thenApply(done -> values), "MGET of " + n + " keys of " + owner)
        .thenCompose(this::withDictionaries);
  }

  /** Decodes a bulk read; the keys cached as absent go to {@code absent}. */
  private Map<K, V> decodeAll(KeyBatch batch, byte[][] values, Set<K> absent) {
    Map<K, V> found = new LinkedHashMap<>();
    for (int i = 0; i < values.length; i++) {
      Object value = read(batch.texts.get(i), values[i]);
      if (value == ABSENT) {
        absent.add(batch.keys.get(i));
      } else if (value != null) {
        found.put(batch.keys.get(i), cast(value));
      }
    }
    return found;
  }

  /** What a bulk read found, near cache included, and the keys cached as absent. */
  private record BulkRead<K, V>(Map<K, V> found, Set<K> absent) {}

  /** Reads a batch: the near cache's copies, then one MGET per chunk for the rest. */
  private CompletableFuture<BulkRead<K, V>> readAll(KeyBatch batch, Threads threads) {
    NearSplit split = near == null ? null : new NearSplit(batch);
    KeyBatch toRead = split == null ? batch : split.rest;
    return fetchAll(toRead, split == null ? null : split.ttls)
        .thenApplyAsync(
            values -> {
              Set<K> absent = new LinkedHashSet<>();
              Map<K, V> decoded = decodeAll(toRead, values, absent);
              return new BulkRead<>(
                  split == null ? decoded : split.found(batch, values, decoded), absent);
            },
            threads.work());
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
    ChunkedWriter.Prepared prepared;
    try {
      prepared = writer.prepare(entries);
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    return droppingNear(counted(writer.send(prepared)), prepared::texts);
  }

  /**
   * Encodes a chunk at a time on {@code encodeOn} while earlier chunks are written; see {@link
   * ChunkedWriter#writeStreaming}.
   */
  CompletableFuture<Void> putAllStreaming(
      Map<? extends K, ? extends V> entries, Executor encodeOn) {
    List<String> written = Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<Void> all =
        counted(
            writer.writeStreaming(
                entries,
                encodeOn,
                near == null ? chunk -> {} : chunk -> written.addAll(chunk.texts())));
    return droppingNear(all, () -> List.copyOf(written));
  }

  @Override
  public CompletableFuture<Long> deleteAll(Collection<? extends K> keys) {
    KeyBatch batch = new KeyBatch(keys);
    int n = batch.size();
    LongAdder deleted = new LongAdder();
    byte[][] allKeys = batch.redisKeys();
    CompletableFuture<Void> all =
        ChunkWindow.run(
            session.plan(allKeys, settings.chunkSize()),
            session,
            new GroupCommand<Long>(
                group -> BuiltCommands.del(select(allKeys, group)),
                group -> {
                  byte[][] redisKeys = select(allKeys, group);
                  return session.dispatch(c -> c.del(redisKeys));
                },
                (group, removed) -> {
                  deleted.add(removed);
                  deletes.add(removed);
                }));
    CompletableFuture<Long> deletedAll =
        counted(
            session.translated(
                all.thenApply(done -> deleted.sum()), "DEL of " + n + " keys of " + owner));
    return droppingNear(deletedAll, () -> batch.texts);
  }

  /**
   * {@code SCAN} of the strings under the prefix ({@code MATCH <prefix>* TYPE string}, the prefix's
   * glob characters escaped: the only keys this layout writes), then an {@code UNLINK} of each page
   * found. On a cluster, every master is scanned on its own connection, in parallel, and each
   * page's keys are unlinked one command per slot, the page's commands for a master written to it
   * as one batch (what a master redirects is sent again through the shared connection, which
   * follows a key that moved); the pages are handled on Lettuce's computation threads, not on a
   * connection's I/O thread.
   */
  @Override
  public CompletableFuture<Long> clear() {
    return clear(
        KeyScanArgs.Builder.matches(globEscaped(settings.keyPrefix()) + "*")
            .type("string")
            .limit(settings.chunkSize()),
        key -> true);
  }

  /**
   * {@link #clear()} of what {@code match} finds and {@code ours} accepts: how the packed layout
   * removes its buckets and nothing else under its prefix.
   */
  CompletableFuture<Long> clear(ScanArgs match, Predicate<byte[]> ours) {
    LongAdder removed = new LongAdder();
    CompletableFuture<Void> all;
    try {
      List<RedisSession.Node> masters = session.masters();
      CompletableFuture<?>[] each = new CompletableFuture<?>[masters.size()];
      for (int i = 0; i < each.length; i++) {
        RedisSession.Node master = masters.get(i);
        each[i] =
            master
                .commands()
                .thenComposeAsync(
                    commands -> clearFrom(commands, ScanCursor.INITIAL, match, ours, removed),
                    session.decodeExecutor());
      }
      all = CompletableFuture.allOf(each);
    } catch (RuntimeException e) {
      all = CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Long> cleared =
        counted(
            session.translated(
                all.thenApply(done -> removed.sum()),
                "SCAN and UNLINK of the keys under " + settings.keyPrefix() + " of " + owner));
    return near == null
        ? cleared
        : cleared.whenComplete((done, failure) -> near.store().invalidateAll());
  }

  /**
   * One SCAN of a master from {@code cursor}, an UNLINK of what it found (per slot on a cluster),
   * then the next, until the cursor ends.
   */
  private CompletableFuture<Void> clearFrom(
      RedisClusterAsyncCommands<byte[], byte[]> master,
      ScanCursor cursor,
      ScanArgs match,
      Predicate<byte[]> ours,
      LongAdder removed) {
    return session
        .<KeyScanCursor<byte[]>>dispatchOn(master, c -> c.scan(cursor, match))
        .thenComposeAsync(
            page -> {
              byte[][] keys = page.getKeys().stream().filter(ours).toArray(byte[][]::new);
              CompletableFuture<Void> unlinked =
                  ChunkWindow.run(
                      session.plan(keys, settings.chunkSize()),
                      session,
                      new GroupCommand<Long>(
                          group -> BuiltCommands.unlink(select(keys, group)),
                          group -> {
                            byte[][] unlinking = select(keys, group);
                            return session.dispatch(c -> c.unlink(unlinking));
                          },
                          (group, n) -> {
                            removed.add(n);
                            deletes.add(n);
                          }));
              return page.isFinished()
                  ? unlinked
                  : unlinked.thenCompose(done -> clearFrom(master, page, match, ours, removed));
            },
            session.decodeExecutor());
  }

  /** {@code text} with the characters that Redis's glob patterns give a meaning escaped. */
  static String globEscaped(String text) {
    StringBuilder escaped = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        escaped.append('\\');
      }
      escaped.append(c);
    }
    return escaped.toString();
  }

  // ---------------------------------------------------------------- loads

  @Override
  public CompletableFuture<V> getOrLoad(K key, Function<? super K, ? extends V> loader) {
    return getOrLoad(key, loader, asyncThreads);
  }

  CompletableFuture<V> getOrLoad(K key, Function<? super K, ? extends V> loader, Threads threads) {
    requireNonNull(loader, "loader");
    return load(
        key,
        (k, executor) ->
            CompletableFuture.supplyAsync(
                () -> loadCounters.timed(() -> loader.apply(k)), executor),
        threads);
  }

  @Override
  public CompletableFuture<V> getOrLoadAsync(
      K key, Function<? super K, ? extends CompletionStage<? extends V>> loader) {
    requireNonNull(loader, "loader");
    return load(
        key,
        (k, executor) ->
            loadCounters.timedAsync(
                () -> loader.apply(k),
                executor,
                () ->
                    owner + ": the loader of " + keyText(k) + " returned null instead of a stage"),
        asyncThreads);
  }

  /** A loader's call, started on the executor: its value when it completes, counted and timed. */
  @FunctionalInterface
  private interface Load<K, V> {
    CompletableFuture<V> start(K key, Executor executor);
  }

  /**
   * The value of {@code key}: from the near cache or Redis, or else loaded once in this process
   * (and, with the distributed lock, once across processes) and stored.
   */
  private CompletableFuture<V> load(K key, Load<K, V> load, Threads threads) {
    String keyText = keyText(key);
    V kept = nearValue(keyText);
    if (kept != null) {
      return CompletableFuture.completedFuture(kept);
    }
    long stamp = stamp(keyText);
    ReadTtl ttl = near == null ? null : new ReadTtl();
    return counted(
        fetch(keyText, ttl)
            .handleAsync(
                (bytes, failure) -> {
                  if (failure != null) {
                    if (!loadsDespite(failure)) {
                      return CompletableFuture.<V>failedFuture(failure);
                    }
                    countFailure(failure);
                    return flights.load(keyText, () -> load.start(key, threads.loads())).copy();
                  }
                  Object value = read(keyText, bytes);
                  if (value == ABSENT) {
                    return CompletableFuture.<V>completedFuture(null);
                  }
                  if (value != null) {
                    if (ttl != null) {
                      keep(keyText, stamp, cast(value), bytes, ttl.sentAt, ttl.millis);
                    }
                    return CompletableFuture.completedFuture(cast(value));
                  }
                  return flights
                      .load(
                          keyText,
                          () ->
                              lock == null
                                  ? readOrLoad(key, keyText, load, threads)
                                  : lock.run(
                                      keyText,
                                      () -> readOrLoad(key, keyText, load, threads),
                                      () -> lookUp(keyText, threads)))
                      .copy();
                },
                threads.work())
            .thenCompose(Function.identity()));
  }

  /** Reads the key again; if it is still missing, calls the loader and stores its value. */
  private CompletableFuture<V> readOrLoad(K key, String keyText, Load<K, V> load, Threads threads) {
    return lookUp(keyText, threads)
        .handle(
            (found, failure) -> {
              if (failure != null) {
                if (!loadsDespite(failure)) {
                  return CompletableFuture.<V>failedFuture(failure);
                }
                countFailure(failure);
                return load.start(key, threads.loads());
              }
              if (found.found()) {
                return CompletableFuture.completedFuture(found.value());
              }
              return load.start(key, threads.loads())
                  .thenCompose(value -> storeLoaded(keyText, value).thenApply(stored -> value));
            })
        .thenCompose(Function.identity());
  }

  /**
   * Stores a loaded value, or the absent marker when the loader found none and absent keys are
   * cached. Redis being unavailable is logged, not failed: the caller has its value.
   */
  private CompletableFuture<Void> storeLoaded(String keyText, V value) {
    if (value == null && settings.absentTtl() == null) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<Void> stored;
    try {
      stored =
          value != null
              ? writer.write(keyText, writer.encode(keyText, value))
              : writer.writeAbsent(List.of(keyText));
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    return droppingNear(stored, () -> List.of(keyText))
        .exceptionallyCompose(
            failure -> notStored(failure, "loaded " + keyText + " but could not store it"));
  }

  /** Logs and counts a store that Redis being unavailable stopped; fails with any other failure. */
  private CompletableFuture<Void> notStored(Throwable failure, String what) {
    if (!(unwrap(failure) instanceof CacheUnavailableException unavailable)) {
      return CompletableFuture.failedFuture(failure);
    }
    countFailure(unavailable);
    LOG.log(Level.WARNING, owner + ": " + what + ": " + unavailable.getMessage());
    return CompletableFuture.completedFuture(null);
  }

  @Override
  public CompletableFuture<Map<K, V>> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
    return getAllOrLoad(keys, loader, asyncThreads);
  }

  CompletableFuture<Map<K, V>> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader,
      Threads threads) {
    KeyBatch batch = new KeyBatch(keys);
    requireNonNull(loader, "loader");
    return counted(
        readAll(batch, threads)
            .thenCompose(
                read -> {
                  if (read.found().size() + read.absent().size() == batch.size()) {
                    return CompletableFuture.completedFuture(read.found());
                  }
                  return loadAll(batch, read, loader, threads)
                      .thenApply(loaded -> merge(batch, read.found(), loaded));
                }));
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

  /**
   * Loads the keys a bulk read missed: those no other load has in flight in one loader call, and
   * waits for the others' loads.
   */
  private CompletableFuture<Map<K, V>> loadAll(
      KeyBatch batch,
      BulkRead<K, V> read,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader,
      Threads threads) {
    Map<String, K> wanted = new LinkedHashMap<>();
    for (int i = 0; i < batch.size(); i++) {
      K key = batch.keys.get(i);
      if (!read.found().containsKey(key) && !read.absent().contains(key)) {
        wanted.put(batch.texts.get(i), key);
      }
    }
    Map<String, CompletableFuture<V>> led = new LinkedHashMap<>();
    Map<String, CompletableFuture<V>> waits = flights.claim(wanted.keySet(), led);
    if (!led.isEmpty()) {
      List<K> mine = new ArrayList<>();
      led.keySet().forEach(text -> mine.add(wanted.get(text)));
      CompletableFuture<Map<K, V>> loading;
      try {
        loading = bulkLoad(mine, loader, threads);
      } catch (RuntimeException | Error e) {
        loading = CompletableFuture.failedFuture(e);
      }
      loading.whenComplete(
          (loaded, failure) ->
              led.forEach(
                  (text, future) ->
                      flights.settle(
                          text,
                          future,
                          failure == null ? loaded.get(wanted.get(text)) : null,
                          failure)));
    }
    return CompletableFuture.allOf(waits.values().toArray(CompletableFuture[]::new))
        .thenApply(
            done -> {
              Map<K, V> loaded = new LinkedHashMap<>();
              waits.forEach(
                  (text, future) -> {
                    V value = future.join();
                    if (value != null) {
                      loaded.put(wanted.get(text), value);
                    }
                  });
              return loaded;
            });
  }

  /**
   * Reads the keys again, loads those still missing in one loader call, and stores what it returns.
   */
  private CompletableFuture<Map<K, V>> bulkLoad(
      List<K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader,
      Threads threads) {
    KeyBatch again = new KeyBatch(keys);
    return fetchAll(again, null)
        .thenApplyAsync(
            values -> {
              Map<K, V> present = new LinkedHashMap<>();
              Set<K> missing = new LinkedHashSet<>();
              for (int i = 0; i < values.length; i++) {
                K key = again.keys.get(i);
                V value =
                    Envelope.isAbsentMarker(values[i])
                        ? null
                        : decodeQuietly(again.texts.get(i), values[i]);
                if (value != null) {
                  present.put(key, value);
                } else if (!Envelope.isAbsentMarker(values[i])) {
                  missing.add(key);
                }
              }
              return new BulkRead<>(present, missing);
            },
            threads.work())
        .thenCompose(
            reread -> {
              Set<K> missing = reread.absent();
              if (missing.isEmpty()) {
                return CompletableFuture.completedFuture(reread.found());
              }
              return CompletableFuture.supplyAsync(
                      () ->
                          loadCounters.timed(
                              () -> loaded(loader.apply(Collections.unmodifiableSet(missing)))),
                      threads.loads())
                  .thenCompose(loaded -> storeBulkLoaded(missing, loaded))
                  .thenApply(
                      stored -> {
                        Map<K, V> all = new LinkedHashMap<>(reread.found());
                        all.putAll(stored);
                        return all;
                      });
            });
  }

  private Map<? extends K, ? extends V> loaded(Map<? extends K, ? extends V> loaded) {
    if (loaded == null) {
      throw new NullPointerException(owner + ": the bulk loader returned null instead of a map");
    }
    return loaded;
  }

  /**
   * Stores what a bulk loader returned for {@code missing}, and absent markers for the rest if
   * cached.
   */
  private CompletableFuture<Map<K, V>> storeBulkLoaded(
      Set<K> missing, Map<? extends K, ? extends V> loaded) {
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
    ChunkedWriter.Prepared prepared;
    try {
      prepared = writer.prepare(toStore);
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    CompletableFuture<Void> stored =
        writer
            .send(prepared)
            .thenCompose(
                done ->
                    none.isEmpty()
                        ? CompletableFuture.completedFuture(null)
                        : writer.writeAbsent(none));
    List<String> written = new ArrayList<>(prepared.texts());
    written.addAll(none);
    return droppingNear(stored, () -> written)
        .exceptionallyCompose(
            failure ->
                notStored(failure, "loaded " + toStore.size() + " keys but could not store them"))
        .thenApply(done -> toStore);
  }
}
