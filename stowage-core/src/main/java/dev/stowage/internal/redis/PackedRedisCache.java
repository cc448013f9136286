package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncRedisCache;
import dev.stowage.CacheLayout;
import dev.stowage.CacheStats;
import dev.stowage.CacheUnavailableException;
import dev.stowage.RedisCache;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.BooleanOutput;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.ValueListOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * A cache in the {@linkplain CacheLayout#packed(long) packed layout}: entries are fields of a fixed
 * number of Redis hashes. Every operation is asynchronous; {@link #blocking()} waits for them.
 *
 * <p>A bulk operation groups its keys by bucket and sends one command per bucket ({@code HMGET},
 * {@code HSET}, {@code HDEL}); the commands of a batch of about {@code chunkSize} keys are written
 * to the shared connection together, with one flush, and a few batches are in flight at once. On a
 * cluster, Lettuce routes each command to the master of its bucket's slot. With a TTL, each {@code
 * HSET} is followed by {@code PEXPIRE bucket ttl LT}, which gives a bucket that has none the
 * (jittered) TTL, shortens a longer one (a previous version's, or one set by hand) to it, and
 * leaves a shorter one alone: no entry outlives its TTL. Without a TTL a write leaves the bucket's
 * TTL as it is.
 */
public final class PackedRedisCache<K, V> implements AsyncRedisCache<K, V> {
  private static final System.Logger LOG = System.getLogger("dev.stowage.cache");

  /** Stands for a bucket that holds another Redis type than a hash. */
  private static final byte[] WRONG_TYPE = new byte[0];

  private static final Executor DIRECT = Runnable::run;

  /** Redis's defaults, assumed when {@code CONFIG GET} is refused. */
  static final int DEFAULT_LISTPACK_VALUE = 64;

  static final int DEFAULT_LISTPACK_ENTRIES = 128;

  private final RedisSession session;
  private final CacheSettings<K, V> settings;
  private final CacheLayout layout;
  private final WriteCodec<V> codec;
  private final String owner;
  private final byte[] prefixBytes;
  private final int listpackValue;
  private final QuietDecoder<V> decoder;
  private final LoadCounters loadCounters = new LoadCounters();
  private final SingleFlight<V> flights = new SingleFlight<>();
  private final RedisCacheCore<K, V> prefixClearer;
  private final AtomicBoolean warnedOversized = new AtomicBoolean();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();
  private final LongAdder redisErrors = new LongAdder();
  private final LongAdder puts = new LongAdder();
  private final LongAdder deletes = new LongAdder();
  private final LongAdder bytesBeforeCompression = new LongAdder();
  private final LongAdder bytesWritten = new LongAdder();
  private final LongAdder oversized = new LongAdder();
  private final Blocking blocking = new Blocking();

  public PackedRedisCache(RedisSession session, CacheSettings<K, V> settings, CacheLayout layout) {
    if (!layout.isPacked()) {
      throw new IllegalArgumentException("not a packed layout: " + layout);
    }
    this.session = session;
    this.settings = settings;
    this.layout = layout;
    this.codec = settings.codec();
    this.owner = "cache '" + settings.name() + "'";
    this.prefixBytes = utf8(settings.keyPrefix());
    this.decoder = new QuietDecoder<>(codec, session, owner);
    this.prefixClearer = new RedisCacheCore<>(session, settings);
    this.listpackValue = listpackLimits(session, owner, layout);
  }

  /**
   * The server's {@code hash-max-listpack-value}, read with {@code CONFIG GET}; Redis's default
   * when the command is refused (renamed, or not allowed to this user) or Redis is not reached yet.
   * Warns when buckets are sized above {@code hash-max-listpack-entries}.
   */
  private static int listpackLimits(RedisSession session, String owner, CacheLayout layout) {
    int value = DEFAULT_LISTPACK_VALUE;
    int entries = DEFAULT_LISTPACK_ENTRIES;
    try {
      Map<String, String> config =
          session.await(
              session.call(
                  "CONFIG GET hash-max-listpack-*", c -> c.configGet("hash-max-listpack-*")),
              1,
              "CONFIG GET hash-max-listpack-*");
      value = parsedOr(config.get("hash-max-listpack-value"), value);
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
    return value;
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

  /** The blocking view. */
  public RedisCache<K, V> blocking() {
    return blocking;
  }

  @Override
  public RedisCache<K, V> synchronous() {
    return blocking;
  }

  /** The longest value (or field) that keeps a bucket a listpack on this server. */
  public int listpackValueLimit() {
    return listpackValue;
  }

  CacheStats stats() {
    CacheStats cleared = prefixClearer.stats();
    return CacheStats.of(
        hits.sum(),
        misses.sum(),
        decoder.failures(),
        loadCounters.loads(),
        loadCounters.failures(),
        0,
        redisErrors.sum() + cleared.redisErrors(),
        loadCounters.nanos(),
        0,
        0,
        puts.sum(),
        deletes.sum(),
        bytesBeforeCompression.sum(),
        bytesWritten.sum(),
        oversized.sum());
  }

  // ---------------------------------------------------------------- keys and buckets

  /** The key's text: the field of its bucket. */
  String fieldText(K key) {
    requireNonNull(key, "key");
    String text = settings.keyToString().apply(key);
    if (text == null) {
      throw new NullPointerException(owner + ": the key function returned null for " + key);
    }
    return text;
  }

  /** The Redis key of the bucket that holds {@code key}. */
  String redisKey(K key) {
    return CacheLayout.bucketKey(settings.keyPrefix(), layout.bucketOf(fieldText(key)));
  }

  private byte[] bucketKey(int bucket) {
    byte[] number = ("{" + bucket + "}").getBytes(StandardCharsets.US_ASCII);
    byte[] key = Arrays.copyOf(prefixBytes, prefixBytes.length + number.length);
    System.arraycopy(number, 0, key, prefixBytes.length, number.length);
    return key;
  }

  /**
   * Whether {@code key} is {@code <prefix>{n}}, {@code n} a bucket of this layout in decimal
   * without leading zeros.
   */
  private boolean isBucketKey(byte[] key) {
    int p = prefixBytes.length;
    int digits = key.length - p - 2;
    if (digits < 1
        || digits > 8
        || key[p] != '{'
        || key[key.length - 1] != '}'
        || !Arrays.equals(key, 0, p, prefixBytes, 0, p)
        || digits > 1 && key[p + 1] == '0') {
      return false;
    }
    int bucket = 0;
    for (int i = p + 1; i < key.length - 1; i++) {
      if (key[i] < '0' || key[i] > '9') {
        return false;
      }
      bucket = bucket * 10 + key[i] - '0';
    }
    return bucket < layout.buckets();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Distinct keys in the order given, with their fields and buckets, and their indexes grouped by
   * bucket.
   */
  final class Batch {
    final List<K> keys = new ArrayList<>();
    final List<String> texts = new ArrayList<>();
    final List<byte[]> fields = new ArrayList<>();

    /** Per bucket, in order of first appearance: the bucket and the indexes of its keys. */
    final List<int[]> groups = new ArrayList<>();

    final List<Integer> groupBuckets = new ArrayList<>();

    Batch(Collection<? extends K> given) {
      requireNonNull(given, "keys");
      Map<K, Boolean> seen = new LinkedHashMap<>();
      Map<Integer, List<Integer>> byBucket = new LinkedHashMap<>();
      for (K key : given) {
        if (seen.put(requireNonNull(key, "key"), Boolean.TRUE) == null) {
          String text = fieldText(key);
          byBucket.computeIfAbsent(layout.bucketOf(text), b -> new ArrayList<>()).add(keys.size());
          keys.add(key);
          texts.add(text);
          fields.add(utf8(text));
        }
      }
      byBucket.forEach(
          (bucket, indexes) -> {
            groupBuckets.add(bucket);
            groups.add(indexes.stream().mapToInt(Integer::intValue).toArray());
          });
    }

    int size() {
      return keys.size();
    }

    /**
     * The groups cut into batches of about {@code chunkSize} keys: the first group of each batch.
     */
    List<int[]> batches() {
      List<int[]> batches = new ArrayList<>();
      int start = 0;
      int keysInBatch = 0;
      for (int g = 0; g < groups.size(); g++) {
        keysInBatch += groups.get(g).length;
        if (keysInBatch >= settings.chunkSize() || g == groups.size() - 1) {
          batches.add(new int[] {start, g + 1});
          start = g + 1;
          keysInBatch = 0;
        }
      }
      return batches;
    }
  }

  /** A command of ours, ready to dispatch, and its future. */
  private static <T> AsyncCommand<byte[], byte[], T> command(
      CommandType type, CommandOutput<byte[], byte[], T> output, CommandArgs<byte[], byte[]> args) {
    return new AsyncCommand<>(new Command<>(type, output, args));
  }

  private static CommandArgs<byte[], byte[]> args(byte[] bucket) {
    return new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(bucket);
  }

  /**
   * Writes {@code commands} to the shared connection together, one flush. A failure to dispatch
   * completes them with it.
   */
  private void dispatch(List<? extends RedisCommand<byte[], byte[], ?>> commands) {
    try {
      session.shared().dispatch(commands);
    } catch (RuntimeException e) {
      for (RedisCommand<byte[], byte[], ?> command : commands) {
        command.completeExceptionally(e);
      }
    }
  }

  /** Runs the batches of {@code batch}, a few in flight at once. */
  private CompletableFuture<Void> inBatches(
      Batch batch, Function<int[], CompletableFuture<?>> send) {
    List<int[]> batches = batch.batches();
    return ChunkWindow.run(batches.size(), i -> send.apply(batches.get(i)));
  }

  /**
   * The {@code PEXPIRE LT} that makes a bucket expire no later than the entry just written: the
   * cache's TTL, jittered, for a bucket without one (Redis takes that as an infinite TTL) or with a
   * longer one; null without a TTL.
   */
  private @Nullable AsyncCommand<byte[], byte[], Boolean> expiry(byte[] bucket) {
    Duration ttl = settings.ttl();
    if (ttl == null) {
      return null;
    }
    long max = ttl.toMillis();
    long millis =
        settings.ttlJitter() == 0
            ? max
            : ThreadLocalRandom.current()
                .nextLong(Math.max(1, max - (long) (max * settings.ttlJitter())), max + 1);
    return command(
        CommandType.PEXPIRE,
        new BooleanOutput<>(ByteArrayCodec.INSTANCE),
        args(bucket).add(millis).add("LT"));
  }

  // ---------------------------------------------------------------- failures

  /** The same future, with a Redis failure counted. */
  private <T> CompletableFuture<T> counted(CompletableFuture<T> operation) {
    return operation.whenComplete(
        (value, failure) -> {
          if (failure != null) {
            countFailure(failure);
          }
        });
  }

  <E extends Throwable> E countFailure(E failure) {
    Throwable cause = RedisCacheCore.unwrap(failure);
    if (cause instanceof CacheUnavailableException
        || cause instanceof StowageException stowage
            && stowage.getCause() instanceof RedisException) {
      redisErrors.increment();
    }
    return failure;
  }

  // ---------------------------------------------------------------- reading

  /** Completes once every dictionary these values name is loaded or known to be missing. */
  private CompletableFuture<byte[][]> withDictionaries(byte[][] values) {
    return settings
        .preload()
        .load(Arrays.asList(values), value -> value == WRONG_TYPE ? -1 : 0)
        .thenApply(done -> values);
  }

  /** Decodes a value read; one that cannot be decoded is counted, logged once and read as null. */
  private @Nullable V decodeQuietly(String keyText, byte @Nullable [] bytes) {
    if (bytes == null) {
      return null;
    }
    if (bytes == WRONG_TYPE) {
      decoder.fail(keyText, "its bucket holds another Redis type than a hash");
      return null;
    }
    return decoder.decode(keyText, bytes);
  }

  /** Decodes a read and counts it as a hit or a miss. */
  private @Nullable V read(String keyText, byte @Nullable [] bytes) {
    V value = decodeQuietly(keyText, bytes);
    if (value == null) {
      misses.increment();
    } else {
      hits.increment();
    }
    return value;
  }

  /**
   * HGET of the key's field, a bucket of another type read as {@link #WRONG_TYPE}, dictionaries
   * loaded.
   */
  private CompletableFuture<byte @Nullable []> fetch(String keyText) {
    byte[] bucket = bucketKey(layout.bucketOf(keyText));
    byte[] field = utf8(keyText);
    CompletableFuture<byte[]> read = session.dispatch(c -> c.hget(bucket, field));
    return read.exceptionallyCompose(
            e ->
                RedisSession.isWrongType(e)
                    ? CompletableFuture.completedFuture(WRONG_TYPE)
                    : CompletableFuture.failedFuture(
                        session.translate(e, "HGET " + keyText + " of " + owner)))
        .thenCompose(bytes -> withDictionaries(new byte[][] {bytes}).thenApply(all -> bytes));
  }

  @Override
  public CompletableFuture<V> get(K key) {
    return get(key, DIRECT);
  }

  CompletableFuture<V> get(K key, Executor work) {
    String keyText = fieldText(key);
    return counted(fetch(keyText).thenApplyAsync(bytes -> read(keyText, bytes), work));
  }

  @Override
  public CompletableFuture<Boolean> exists(K key) {
    String keyText = fieldText(key);
    byte[] bucket = bucketKey(layout.bucketOf(keyText));
    byte[] field = utf8(keyText);
    return counted(
        session.call("HEXISTS " + keyText + " of " + owner, c -> c.hexists(bucket, field)));
  }

  /** HMGET per bucket, values aligned with the batch; dictionaries loaded. */
  private CompletableFuture<byte[][]> fetchAll(Batch batch) {
    byte[][] values = new byte[batch.size()][];
    CompletableFuture<Void> all =
        inBatches(
            batch,
            range -> {
              List<AsyncCommand<byte[], byte[], List<byte[]>>> commands =
                  new ArrayList<>(range[1] - range[0]);
              for (int g = range[0]; g < range[1]; g++) {
                CommandArgs<byte[], byte[]> args = args(bucketKey(batch.groupBuckets.get(g)));
                for (int index : batch.groups.get(g)) {
                  args.add(batch.fields.get(index));
                }
                commands.add(
                    command(
                        CommandType.HMGET, new ValueListOutput<>(ByteArrayCodec.INSTANCE), args));
              }
              dispatch(commands);
              CompletableFuture<?>[] replies = new CompletableFuture<?>[commands.size()];
              for (int c = 0; c < replies.length; c++) {
                int[] group = batch.groups.get(range[0] + c);
                replies[c] =
                    commands
                        .get(c)
                        .handle(
                            (found, failure) -> {
                              if (failure != null) {
                                if (!RedisSession.isWrongType(failure)) {
                                  throw RedisCacheCore.asCompletion(failure);
                                }
                                for (int index : group) {
                                  values[index] = WRONG_TYPE;
                                }
                                return null;
                              }
                              for (int j = 0; j < group.length; j++) {
                                values[group[j]] = found.get(j);
                              }
                              return null;
                            });
              }
              return CompletableFuture.allOf(replies);
            });
    return session
        .translated(all.thenApply(done -> values), "HMGET of " + batch.size() + " keys of " + owner)
        .thenCompose(this::withDictionaries);
  }

  @Override
  public CompletableFuture<Map<K, V>> getAll(Collection<? extends K> keys) {
    return getAll(keys, DIRECT);
  }

  CompletableFuture<Map<K, V>> getAll(Collection<? extends K> keys, Executor work) {
    Batch batch = new Batch(keys);
    return counted(
        fetchAll(batch)
            .thenApplyAsync(
                values -> {
                  Map<K, V> found = new LinkedHashMap<>();
                  for (int i = 0; i < values.length; i++) {
                    V value = read(batch.texts.get(i), values[i]);
                    if (value != null) {
                      found.put(batch.keys.get(i), value);
                    }
                  }
                  return found;
                },
                work));
  }

  // ---------------------------------------------------------------- writing

  /** Encodes a value, adding the key to a failure. */
  private WriteCodec.Encoded encode(String keyText, V value) {
    requireNonNull(value, "value");
    try {
      return codec.encodeMeasured(value);
    } catch (StowageException e) {
      throw e.addContext("key " + keyText + " of " + owner);
    }
  }

  /** Counts a value Redis stored, and whether it is too long for its bucket to stay a listpack. */
  private void stored(byte[] field, WriteCodec.Encoded encoded) {
    puts.increment();
    bytesBeforeCompression.add(encoded.payloadSize());
    bytesWritten.add(encoded.bytes().length);
    int longest = Math.max(field.length, encoded.bytes().length);
    if (longest > listpackValue) {
      oversized.increment();
      if (warnedOversized.compareAndSet(false, true)) {
        LOG.log(
            Level.WARNING,
            owner
                + ": a stored entry of "
                + longest
                + " bytes is longer than the server's"
                + " hash-max-listpack-value ("
                + listpackValue
                + "), so its bucket is a hashtable, which costs about"
                + " as much per entry as a key; raise hash-max-listpack-value or make the values smaller"
                + " (CacheStats.oversizedValues() counts them; this is logged once)");
      }
    }
  }

  @Override
  public CompletableFuture<Void> put(K key, V value) {
    String keyText = fieldText(key);
    WriteCodec.Encoded encoded;
    try {
      encoded = encode(keyText, value);
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    byte[] field = utf8(keyText);
    byte[] bucket = bucketKey(layout.bucketOf(keyText));
    AsyncCommand<byte[], byte[], Long> set =
        command(
            CommandType.HSET,
            new IntegerOutput<>(ByteArrayCodec.INSTANCE),
            args(bucket).add(field).add(encoded.bytes()));
    AsyncCommand<byte[], byte[], Boolean> expire = expiry(bucket);
    dispatch(expire == null ? List.of(set) : List.of(set, expire));
    CompletableFuture<?> done = expire == null ? set : CompletableFuture.allOf(set, expire);
    return counted(
        session.translated(
            done.thenRun(() -> stored(field, encoded)), "HSET " + keyText + " of " + owner));
  }

  /** Entries encoded together, in the calling thread, and their batch. */
  private final class Prepared {
    private final Batch batch;
    private final List<WriteCodec.Encoded> encoded;

    Prepared(Batch batch, List<WriteCodec.Encoded> encoded) {
      this.batch = batch;
      this.encoded = encoded;
    }

    Batch batch() {
      return batch;
    }

    List<WriteCodec.Encoded> encoded() {
      return encoded;
    }
  }

  private Prepared prepare(Map<? extends K, ? extends V> entries) {
    requireNonNull(entries, "entries");
    Batch batch = new Batch(entries.keySet());
    List<V> values = new ArrayList<>(batch.size());
    for (K key : batch.keys) {
      values.add(requireNonNull(entries.get(key), "value"));
    }
    List<WriteCodec.Encoded> encoded =
        codec.encodeAllMeasured(values, i -> "key " + batch.texts.get(i) + " of " + owner);
    return new Prepared(batch, encoded);
  }

  /**
   * Encodes every value in the calling thread before it sends any: a value that cannot be encoded
   * stores nothing.
   */
  @Override
  public CompletableFuture<Void> putAll(Map<? extends K, ? extends V> entries) {
    Prepared prepared;
    try {
      prepared = prepare(entries);
    } catch (StowageException e) {
      return CompletableFuture.failedFuture(e);
    }
    return counted(send(prepared));
  }

  /** One HSET per bucket (and its PEXPIRE LT), the commands of a batch flushed together. */
  private CompletableFuture<Void> send(Prepared prepared) {
    Batch batch = prepared.batch();
    CompletableFuture<Void> all =
        inBatches(
            batch,
            range -> {
              List<AsyncCommand<byte[], byte[], ?>> commands = new ArrayList<>();
              List<CompletableFuture<?>> sets = new ArrayList<>();
              for (int g = range[0]; g < range[1]; g++) {
                byte[] bucket = bucketKey(batch.groupBuckets.get(g));
                int[] group = batch.groups.get(g);
                CommandArgs<byte[], byte[]> args = args(bucket);
                for (int index : group) {
                  args.add(batch.fields.get(index)).add(prepared.encoded().get(index).bytes());
                }
                AsyncCommand<byte[], byte[], Long> set =
                    command(CommandType.HSET, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args);
                commands.add(set);
                sets.add(
                    set.thenRun(
                        () -> {
                          for (int index : group) {
                            stored(batch.fields.get(index), prepared.encoded().get(index));
                          }
                        }));
                AsyncCommand<byte[], byte[], Boolean> expire = expiry(bucket);
                if (expire != null) {
                  commands.add(expire);
                  sets.add(expire);
                }
              }
              dispatch(commands);
              return CompletableFuture.allOf(sets.toArray(CompletableFuture[]::new));
            });
    return session.translated(all, "HSET of " + batch.size() + " keys of " + owner);
  }

  @Override
  public CompletableFuture<Boolean> delete(K key) {
    String keyText = fieldText(key);
    byte[] bucket = bucketKey(layout.bucketOf(keyText));
    byte[] field = utf8(keyText);
    return counted(
        session
            .call("HDEL " + keyText + " of " + owner, c -> c.hdel(bucket, field))
            .thenApply(
                n -> {
                  deletes.add(n);
                  return n > 0;
                }));
  }

  @Override
  public CompletableFuture<Long> deleteAll(Collection<? extends K> keys) {
    Batch batch = new Batch(keys);
    LongAdder deleted = new LongAdder();
    CompletableFuture<Void> all =
        inBatches(
            batch,
            range -> {
              List<AsyncCommand<byte[], byte[], Long>> commands = new ArrayList<>();
              for (int g = range[0]; g < range[1]; g++) {
                CommandArgs<byte[], byte[]> args = args(bucketKey(batch.groupBuckets.get(g)));
                for (int index : batch.groups.get(g)) {
                  args.add(batch.fields.get(index));
                }
                commands.add(
                    command(CommandType.HDEL, new IntegerOutput<>(ByteArrayCodec.INSTANCE), args));
              }
              dispatch(commands);
              return CompletableFuture.allOf(
                  commands.stream()
                      .map(
                          c ->
                              c.thenAccept(
                                  n -> {
                                    deleted.add(n);
                                    deletes.add(n);
                                  }))
                      .toArray(CompletableFuture[]::new));
            });
    return counted(
        session.translated(
            all.thenApply(done -> deleted.sum()), "HDEL of " + batch.size() + " keys of " + owner));
  }

  /**
   * {@code SCAN} of the hashes {@code <prefix>{*}} and {@code UNLINK} of those that are this
   * cache's buckets, {@code <prefix>{n}} with {@code n} from 0 to the bucket count, written as the
   * layout writes it: whole buckets, and no other key under the prefix.
   */
  @Override
  public CompletableFuture<Long> clear() {
    ScanArgs match =
        KeyScanArgs.Builder.matches(RedisCacheCore.globEscaped(settings.keyPrefix()) + "{*}")
            .type("hash")
            .limit(settings.chunkSize());
    return prefixClearer
        .clear(match, this::isBucketKey)
        .thenApply(
            n -> {
              deletes.add(n);
              return n;
            });
  }

  // ---------------------------------------------------------------- loads

  /** Whether a load goes on without Redis after {@code failure}. */
  private boolean loadsDespite(Throwable failure) {
    return settings.loadWhenUnavailable()
        && RedisCacheCore.unwrap(failure) instanceof CacheUnavailableException;
  }

  /** A loader's call, started on an executor, counted and timed. */
  @FunctionalInterface
  private interface Load<K, V> {
    CompletableFuture<V> start(K key, Executor executor);
  }

  @Override
  public CompletableFuture<V> getOrLoad(K key, Function<? super K, ? extends V> loader) {
    return getOrLoad(key, loader, DIRECT, settings.loadExecutor());
  }

  CompletableFuture<V> getOrLoad(
      K key, Function<? super K, ? extends V> loader, Executor work, Executor loadOn) {
    requireNonNull(loader, "loader");
    return load(
        key,
        (k, executor) ->
            CompletableFuture.supplyAsync(
                () -> loadCounters.timed(() -> loader.apply(k)), executor),
        work,
        loadOn);
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
                    owner
                        + ": the loader of "
                        + fieldText(k)
                        + " returned null instead of a stage"),
        DIRECT,
        settings.loadExecutor());
  }

  private CompletableFuture<V> load(K key, Load<K, V> load, Executor work, Executor loadOn) {
    String keyText = fieldText(key);
    return counted(
        fetch(keyText)
            .handleAsync(
                (bytes, failure) -> {
                  if (failure != null) {
                    if (!loadsDespite(failure)) {
                      return CompletableFuture.<V>failedFuture(failure);
                    }
                    countFailure(failure);
                    return flights.load(keyText, () -> load.start(key, loadOn)).copy();
                  }
                  V value = read(keyText, bytes);
                  if (value != null) {
                    return CompletableFuture.completedFuture(value);
                  }
                  return flights
                      .load(keyText, () -> readOrLoad(key, keyText, load, work, loadOn))
                      .copy();
                },
                work)
            .thenCompose(Function.identity()));
  }

  /**
   * Reads the key again (a load that finished just before this one was claimed has stored it), and
   * when it is still missing calls the loader and stores its value.
   */
  private CompletableFuture<V> readOrLoad(
      K key, String keyText, Load<K, V> load, Executor work, Executor loadOn) {
    return fetch(keyText)
        .handleAsync(
            (bytes, failure) -> {
              if (failure != null) {
                if (!loadsDespite(failure)) {
                  return CompletableFuture.<V>failedFuture(failure);
                }
                countFailure(failure);
                return load.start(key, loadOn);
              }
              V present = decodeQuietly(keyText, bytes);
              if (present != null) {
                return CompletableFuture.completedFuture(present);
              }
              return load.start(key, loadOn)
                  .thenCompose(
                      value ->
                          value == null
                              ? CompletableFuture.completedFuture(value)
                              : notStoredIfUnavailable(
                                      put(key, value),
                                      "loaded " + keyText + " but could not store it")
                                  .thenApply(stored -> value));
            },
            work)
        .thenCompose(Function.identity());
  }

  /**
   * {@code store}, with Redis being unavailable logged instead of failed: the caller has its value.
   */
  private CompletableFuture<Void> notStoredIfUnavailable(
      CompletableFuture<Void> store, String what) {
    return store.exceptionallyCompose(
        failure -> {
          if (!(RedisCacheCore.unwrap(failure) instanceof CacheUnavailableException unavailable)) {
            return CompletableFuture.failedFuture(failure);
          }
          LOG.log(Level.WARNING, owner + ": " + what + ": " + unavailable.getMessage());
          return CompletableFuture.completedFuture(null);
        });
  }

  @Override
  public CompletableFuture<Map<K, V>> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
    return getAllOrLoad(keys, loader, DIRECT, settings.loadExecutor());
  }

  /**
   * Reads the keys; the misses that no other load in this process has in flight go to the loader in
   * one call and are stored; the others are waited for.
   */
  CompletableFuture<Map<K, V>> getAllOrLoad(
      Collection<? extends K> keys,
      Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader,
      Executor work,
      Executor loadOn) {
    requireNonNull(loader, "loader");
    List<K> given = new ArrayList<>(requireNonNull(keys, "keys"));
    return counted(
        getAll(given, work)
            .thenCompose(
                found -> {
                  Map<String, K> wanted = new LinkedHashMap<>();
                  for (K key : given) {
                    if (!found.containsKey(key)) {
                      wanted.put(fieldText(key), key);
                    }
                  }
                  if (wanted.isEmpty()) {
                    return CompletableFuture.completedFuture(found);
                  }
                  Map<String, CompletableFuture<V>> led = new LinkedHashMap<>();
                  Map<String, CompletableFuture<V>> waits = flights.claim(wanted.keySet(), led);
                  if (!led.isEmpty()) {
                    Set<K> mine = new LinkedHashSet<>();
                    led.keySet().forEach(text -> mine.add(wanted.get(text)));
                    CompletableFuture<Map<K, V>> loading =
                        CompletableFuture.supplyAsync(
                                () ->
                                    loadCounters.timed(
                                        () ->
                                            loaded(
                                                loader.apply(Collections.unmodifiableSet(mine)),
                                                mine)),
                                loadOn)
                            .thenCompose(
                                loaded ->
                                    notStoredIfUnavailable(
                                            putAll(loaded),
                                            "loaded "
                                                + loaded.size()
                                                + " keys but could not store them")
                                        .thenApply(stored -> loaded));
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
                            Map<K, V> result = new LinkedHashMap<>();
                            for (K key : given) {
                              V value = found.get(key);
                              if (value == null) {
                                CompletableFuture<V> waited = waits.get(fieldText(key));
                                value = waited == null ? null : waited.join();
                              }
                              if (value != null) {
                                result.put(key, value);
                              }
                            }
                            return result;
                          });
                }));
  }

  /** The loader's map, restricted to the keys asked for. */
  private Map<K, V> loaded(@Nullable Map<? extends K, ? extends V> loaded, Set<K> asked) {
    if (loaded == null) {
      throw new NullPointerException(owner + ": the bulk loader returned null instead of a map");
    }
    Map<K, V> kept = new LinkedHashMap<>();
    for (K key : asked) {
      V value = loaded.get(key);
      if (value != null) {
        kept.put(key, value);
      }
    }
    return kept;
  }

  // ---------------------------------------------------------------- the blocking view

  /**
   * Each call starts the asynchronous operation and waits: decoding and loaders run in the calling
   * thread while it waits, as they do for the key-per-value layout's blocking view.
   */
  private final class Blocking implements RedisCache<K, V> {
    /** Starts an operation whose work runs on the executor given, and waits for it. */
    private interface Operation<T> {
      CompletableFuture<T> start(Executor caller);
    }

    private <T> T await(Operation<T> operation, int roundTrips, String what) {
      CallerRuns caller = new CallerRuns(settings.loadExecutor());
      CompletableFuture<T> running = operation.start(caller);
      long bound = roundTrips == 0 ? -1 : session.awaitNanos(roundTrips);
      boolean done;
      try {
        done = caller.runUntil(running, bound);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw countFailure(
            new StowageException("interrupted while waiting for " + what + " of " + owner, e));
      }
      if (!done) {
        throw countFailure(
            new CacheUnavailableException(
                "Redis at "
                    + session.address()
                    + " did not answer "
                    + what
                    + " within "
                    + TimeUnit.NANOSECONDS.toMillis(bound)
                    + " ms"));
      }
      return running.isCompletedExceptionally() ? session.join(running, what) : running.join();
    }

    private int rounds(int keys) {
      return Math.max(1, (keys + settings.chunkSize() - 1) / settings.chunkSize());
    }

    @Override
    public String name() {
      return settings.name();
    }

    @Override
    public @Nullable V get(K key) {
      return await(work -> PackedRedisCache.this.get(key, work), 1, "HGET " + fieldText(key));
    }

    @Override
    public void put(K key, V value) {
      session.await(PackedRedisCache.this.put(key, value), 1, "HSET " + fieldText(key));
    }

    @Override
    public boolean delete(K key) {
      return session.await(PackedRedisCache.this.delete(key), 1, "HDEL " + fieldText(key));
    }

    @Override
    public boolean exists(K key) {
      return session.await(PackedRedisCache.this.exists(key), 1, "HEXISTS " + fieldText(key));
    }

    @Override
    public Map<K, V> getAll(Collection<? extends K> keys) {
      requireNonNull(keys, "keys");
      return await(
          work -> PackedRedisCache.this.getAll(keys, work),
          rounds(keys.size()),
          "HMGET of " + keys.size() + " keys");
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> entries) {
      requireNonNull(entries, "entries");
      session.await(
          PackedRedisCache.this.putAll(entries),
          rounds(entries.size()),
          "HSET of " + entries.size() + " keys");
    }

    @Override
    public long deleteAll(Collection<? extends K> keys) {
      requireNonNull(keys, "keys");
      return session.await(
          PackedRedisCache.this.deleteAll(keys),
          rounds(keys.size()),
          "HDEL of " + keys.size() + " keys");
    }

    @Override
    public long clear() {
      return session.join(PackedRedisCache.this.clear(), "clearing " + owner);
    }

    @Override
    public @Nullable V getOrLoad(K key, Function<? super K, ? extends V> loader) {
      requireNonNull(loader, "loader");
      return await(
          work -> PackedRedisCache.this.getOrLoad(key, loader, work, work),
          0,
          "loading " + fieldText(key));
    }

    @Override
    public Map<K, V> getAllOrLoad(
        Collection<? extends K> keys,
        Function<? super Set<K>, ? extends Map<? extends K, ? extends V>> loader) {
      requireNonNull(keys, "keys");
      requireNonNull(loader, "loader");
      return await(
          work -> PackedRedisCache.this.getAllOrLoad(keys, loader, work, work),
          0,
          "loading " + keys.size() + " keys");
    }

    @Override
    public AsyncRedisCache<K, V> async() {
      return PackedRedisCache.this;
    }

    @Override
    public CacheStats stats() {
      return PackedRedisCache.this.stats();
    }

    @Override
    public Compression compression() {
      return codec.current().compression();
    }

    @Override
    public String redisKey(K key) {
      return PackedRedisCache.this.redisKey(key);
    }

    @Override
    public String toString() {
      return "RedisCache[" + settings.name() + ", " + layout + "]";
    }
  }
}
