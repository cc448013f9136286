package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.CacheLayout;
import dev.stowage.StowageException;
import dev.stowage.internal.Futures;
import dev.stowage.internal.connection.RedisErrors;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.nearcache.NearStore;
import dev.stowage.internal.nearcache.Tracking;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyValue;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The {@linkplain CacheLayout#packed(long) packed layout}: entries are fields of a fixed number of
 * Redis hashes, the buckets {@code <prefix>{n}}, the field the key's text.
 *
 * <p>A bulk operation groups its keys by bucket and sends one command per bucket ({@code HMGET},
 * {@code HSET}, {@code HDEL}); the commands of a batch of about {@code chunkSize} keys are written
 * to the shared connection together, with one flush, and a few batches are in flight at once. On a
 * cluster, Lettuce routes each command to the master of its bucket's slot.
 *
 * <p><b>Expiry.</b> A hash field has no TTL of its own, so an entry lives as long as its bucket.
 * With a TTL each {@code HSET} is followed by {@code PEXPIRE bucket ttl LT}, which gives a bucket
 * that has none the (jittered) TTL, shortens a longer one to it, and leaves a shorter one alone: no
 * entry outlives its TTL. An absent marker is a field too, followed by {@code PEXPIRE bucket
 * absentTtl LT}: it lives no longer than the absent TTL, and the bucket's other entries expire with
 * it.
 *
 * <p><b>Near cache.</b> Client tracking invalidates Redis keys, here whole buckets: the near
 * cache's entries are named by key text and grouped by bucket ({@link NearStore#groupBy}), so an
 * invalidation of a bucket drops every entry of it, and a read keeps an entry no longer than its
 * bucket's {@code PTTL}.
 */
public final class PackedStorage<K, V> implements CacheStorage<K, V> {
  private final RedisSession session;
  private final CacheSettings<K, V> settings;
  private final CacheLayout layout;
  private final WriteCodec<V> codec;
  private final String owner;
  private final String prefix;
  private final byte[] prefixBytes;
  private final ListpackLimits listpack;
  private final Tracking.@Nullable Reader near;
  private final LongAdder puts = new LongAdder();
  private final LongAdder bytesBeforeCompression = new LongAdder();
  private final LongAdder bytesWritten = new LongAdder();

  public PackedStorage(RedisSession session, CacheSettings<K, V> settings, CacheLayout layout) {
    if (!layout.isPacked()) {
      throw new IllegalArgumentException("not a packed layout: " + layout);
    }
    this.session = session;
    this.settings = settings;
    this.layout = layout;
    this.codec = settings.codec();
    this.owner = "cache '" + settings.name() + "'";
    this.prefix = settings.keyPrefix();
    this.prefixBytes = utf8(prefix);
    this.listpack = new ListpackLimits(session, owner);
    this.near = settings.near();
    if (near != null) {
      near.store().groupBy(this::redisKey);
    }
  }

  @Override
  public String describe(Operation operation, String what) {
    return switch (operation) {
      case READ -> "HGET " + what;
      case READ_MANY -> "HMGET of " + what;
      case WRITE -> "HSET " + what;
      case DELETE -> "HDEL " + what;
      case DELETE_MANY -> "HDEL of " + what;
      case EXISTS -> "HEXISTS " + what;
    };
  }

  @Override
  public String describeWrite(int n) {
    return "HSET of " + n + " keys of " + owner;
  }

  @Override
  public String wrongType() {
    return "its bucket holds another Redis type than a hash";
  }

  @Override
  public String keyText(K key) {
    return KeyPerValueStorage.keyTextOf(settings, owner, key);
  }

  /** The field of an entry: its key text without the prefix. */
  private String field(String keyText) {
    return keyText.substring(prefix.length());
  }

  @Override
  public String redisKey(String keyText) {
    return CacheLayout.bucketKey(prefix, layout.bucketOf(field(keyText)));
  }

  @Override
  public @Nullable NearStore near() {
    return near == null ? null : near.store();
  }

  private byte[] bucketKey(int bucket) {
    byte[] number = ("{" + bucket + "}").getBytes(StandardCharsets.US_ASCII);
    byte[] key = Arrays.copyOf(prefixBytes, prefixBytes.length + number.length);
    System.arraycopy(number, 0, key, prefixBytes.length, number.length);
    return key;
  }

  private byte[] bucketOf(String keyText) {
    return bucketKey(layout.bucketOf(field(keyText)));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private PackedBatch newBatch(List<String> texts) {
    return new PackedBatch(
        texts,
        this::field,
        text -> layout.bucketOf(field(text)),
        this::bucketKey,
        settings.chunkSize());
  }

  private static <T> AsyncCommand<byte[], byte[], T> command(
      CommandType type, CommandOutput<byte[], byte[], T> output, CommandArgs<byte[], byte[]> args) {
    return new AsyncCommand<>(new Command<>(type, output, args));
  }

  private static CommandArgs<byte[], byte[]> args(byte[] bucket) {
    return new CommandArgs<>(ByteArrayCodec.INSTANCE).addKey(bucket);
  }

  /** Writes {@code commands} to the shared connection together, one flush. */
  private void dispatch(List<? extends RedisCommand<byte[], byte[], ?>> commands) {
    try {
      session.shared().dispatch(commands);
    } catch (RuntimeException e) {
      for (RedisCommand<byte[], byte[], ?> command : commands) {
        command.completeExceptionally(e);
      }
    }
  }

  /**
   * The {@code PEXPIRE LT} that makes a bucket expire no later than what was just written into it:
   * {@code maxMillis} (jittered) for a bucket without a TTL or with a longer one.
   */
  private AsyncCommand<byte[], byte[], Boolean> expiry(
      byte[] bucket, long maxMillis, double jitter) {
    long millis =
        jitter == 0
            ? maxMillis
            : ThreadLocalRandom.current()
                .nextLong(Math.max(1, maxMillis - (long) (maxMillis * jitter)), maxMillis + 1);
    return command(
        CommandType.PEXPIRE,
        new BooleanOutput<>(ByteArrayCodec.INSTANCE),
        args(bucket).add(millis).add("LT"));
  }

  /** The expiry of a value's bucket, or null without a TTL. */
  private @Nullable AsyncCommand<byte[], byte[], Boolean> valueExpiry(byte[] bucket) {
    Duration ttl = settings.ttl();
    return ttl == null ? null : expiry(bucket, ttl.toMillis(), settings.ttlJitter());
  }

  // ---------------------------------------------------------------- reading

  /** A bucket of another type read as {@link #WRONG_TYPE}, any other failure translated. */
  private <T> CompletableFuture<T> wrongTypeAs(
      CompletableFuture<T> read, T wrongType, String what) {
    return read.exceptionallyCompose(
        e ->
            RedisErrors.isWrongType(e)
                ? CompletableFuture.completedFuture(wrongType)
                : CompletableFuture.failedFuture(session.translate(e, what)));
  }

  /** HGET of the entry's field; with {@code ttl}, and the bucket's PTTL, over the tracking one. */
  @Override
  public CompletableFuture<byte @Nullable []> fetch(String keyText, @Nullable ReadTtl ttl) {
    byte[] bucket = bucketOf(keyText);
    byte[] field = utf8(field(keyText));
    CompletableFuture<byte[]> read;
    if (near == null) {
      read = session.dispatch(c -> c.hget(bucket, field));
    } else {
      NearStore store = near.store();
      Runnable untracked = () -> store.untracked(keyText);
      read = near.dispatch(c -> c.hget(bucket, field), untracked);
      if (ttl != null) {
        CompletableFuture<Long> pttl = near.dispatch(c -> c.pttl(bucket), untracked);
        read =
            read.thenCombine(
                pttl.exceptionally(e -> NearStore.UNKNOWN_TTL),
                (bytes, millis) -> {
                  ttl.millis = millis == null ? NearStore.UNKNOWN_TTL : millis;
                  return bytes;
                });
      }
    }
    return wrongTypeAs(read, WRONG_TYPE, "HGET " + keyText + " of " + owner);
  }

  /** HMGET per bucket (with its PTTL for a near cache's read), values aligned with the keys. */
  @Override
  public CompletableFuture<byte[][]> fetchAll(List<String> keyTexts, long @Nullable [] ttls) {
    PackedBatch batch = newBatch(keyTexts);
    byte[][] values = new byte[batch.size()][];
    CompletableFuture<Void> all =
        near != null && ttls != null
            ? batch.inBatches(range -> tracked(batch, range, values, ttls))
            : batch.inBatches(range -> untracked(batch, range, values));
    return session.translated(
        all.thenApply(done -> values), "HMGET of " + batch.size() + " keys of " + owner);
  }

  /** The HMGETs of a batch's groups, written together to the shared connection. */
  private CompletableFuture<?> untracked(PackedBatch batch, int[] range, byte[][] values) {
    List<AsyncCommand<byte[], byte[], List<byte[]>>> commands = new ArrayList<>();
    for (int g = range[0]; g < range[1]; g++) {
      commands.add(
          command(
              CommandType.HMGET,
              new ValueListOutput<>(ByteArrayCodec.INSTANCE),
              batch.args(g, null)));
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
                    if (failure != null && !RedisErrors.isWrongType(failure)) {
                      throw Futures.asCompletion(failure);
                    }
                    for (int j = 0; j < group.length; j++) {
                      values[group[j]] = failure != null ? WRONG_TYPE : found.get(j);
                    }
                    return null;
                  });
    }
    return CompletableFuture.allOf(replies);
  }

  /** Each group's HMGET and its bucket's PTTL, over the near cache's reading connection. */
  private CompletableFuture<?> tracked(
      PackedBatch batch, int[] range, byte[][] values, long[] ttls) {
    Tracking.Reader reader = requireNonNull(near);
    CompletableFuture<?>[] replies = new CompletableFuture<?>[range[1] - range[0]];
    for (int g = range[0]; g < range[1]; g++) {
      int[] group = batch.groups.get(g);
      byte[] bucket = batch.buckets.get(g);
      byte[][] fields = new byte[group.length][];
      for (int j = 0; j < group.length; j++) {
        fields[j] = batch.fields.get(group[j]);
      }
      Runnable untracked =
          () -> {
            for (int index : group) {
              reader.store().untracked(batch.texts.get(index));
            }
          };
      CompletableFuture<List<KeyValue<byte[], byte[]>>> read =
          reader.dispatch(c -> c.hmget(bucket, fields), untracked);
      CompletableFuture<Long> pttl =
          reader
              .<Long>dispatch(c -> c.pttl(bucket), untracked)
              .exceptionally(e -> NearStore.UNKNOWN_TTL);
      replies[g - range[0]] =
          read.handle(
                  (found, failure) -> {
                    if (failure != null && !RedisErrors.isWrongType(failure)) {
                      throw Futures.asCompletion(failure);
                    }
                    for (int j = 0; j < group.length; j++) {
                      values[group[j]] = failure != null ? WRONG_TYPE : valueOf(found.get(j));
                    }
                    return null;
                  })
              .thenCombine(
                  pttl,
                  (done, millis) -> {
                    for (int index : group) {
                      ttls[index] = millis == null ? NearStore.UNKNOWN_TTL : millis;
                    }
                    return null;
                  });
    }
    return CompletableFuture.allOf(replies);
  }

  private static byte @Nullable [] valueOf(KeyValue<byte[], byte[]> entry) {
    return entry.hasValue() ? entry.getValue() : null;
  }

  @Override
  public CompletableFuture<Boolean> exists(String keyText) {
    byte[] bucket = bucketOf(keyText);
    byte[] field = utf8(field(keyText));
    return session.call("HEXISTS " + keyText + " of " + owner, c -> c.hexists(bucket, field));
  }

  // ---------------------------------------------------------------- writing

  @Override
  public WriteCodec.Encoded encode(String keyText, V value) {
    requireNonNull(value, "value");
    try {
      return codec.encodeMeasured(value);
    } catch (StowageException e) {
      throw e.addContext("key " + keyText + " of " + owner);
    }
  }

  /** Counts a value Redis stored. */
  private void stored(byte[] field, WriteCodec.Encoded encoded) {
    puts.increment();
    bytesBeforeCompression.add(encoded.payloadSize());
    bytesWritten.add(encoded.bytes().length);
    listpack.stored(field.length, encoded.bytes().length);
  }

  @Override
  public CompletableFuture<Void> write(String keyText, WriteCodec.Encoded encoded) {
    Prepared prepared = new Prepared(newBatch(List.of(keyText)), List.of(encoded));
    return send(prepared);
  }

  /** Entries encoded together, in the calling thread, and their batch. */
  private static final class Prepared implements CacheStorage.Prepared {
    private final PackedBatch batch;
    private final List<WriteCodec.Encoded> encoded;

    Prepared(PackedBatch batch, List<WriteCodec.Encoded> encoded) {
      this.batch = batch;
      this.encoded = encoded;
    }

    @Override
    public List<String> texts() {
      return batch.texts;
    }
  }

  @Override
  public CacheStorage.Prepared prepare(Map<? extends K, ? extends V> entries) {
    requireNonNull(entries, "entries");
    Map<String, V> byText = new LinkedHashMap<>();
    for (Map.Entry<? extends K, ? extends V> entry : entries.entrySet()) {
      byText.put(keyText(entry.getKey()), requireNonNull(entry.getValue(), "value"));
    }
    List<String> texts = new ArrayList<>(byText.keySet());
    List<WriteCodec.Encoded> encoded =
        codec.encodeAllMeasured(
            new ArrayList<>(byText.values()), i -> "key " + texts.get(i) + " of " + owner);
    return new Prepared(newBatch(texts), encoded);
  }

  /** One HSET per bucket (and its PEXPIRE LT), the commands of a batch flushed together. */
  @Override
  public CompletableFuture<Void> send(CacheStorage.Prepared entries) {
    Prepared prepared = (Prepared) entries;
    PackedBatch batch = prepared.batch;
    List<byte[]> values = new ArrayList<>(batch.size());
    prepared.encoded.forEach(encoded -> values.add(encoded.bytes()));
    CompletableFuture<Void> all =
        batch.inBatches(
            range ->
                setAll(
                    batch,
                    range,
                    values,
                    this::valueExpiry,
                    index -> stored(batch.fields.get(index), prepared.encoded.get(index))));
    String what =
        batch.size() == 1
            ? "HSET " + batch.texts.get(0) + " of " + owner
            : describeWrite(batch.size());
    return session.translated(all, what);
  }

  /** A consumer of an index. */
  private interface Stored {
    void at(int index);
  }

  /** The HSETs of a batch's groups and their expiries, flushed together. */
  private CompletableFuture<?> setAll(
      PackedBatch batch,
      int[] range,
      List<byte[]> values,
      Function<byte[], @Nullable AsyncCommand<byte[], byte[], Boolean>> expiry,
      Stored stored) {
    List<AsyncCommand<byte[], byte[], ?>> commands = new ArrayList<>();
    List<CompletableFuture<?>> done = new ArrayList<>();
    for (int g = range[0]; g < range[1]; g++) {
      int[] group = batch.groups.get(g);
      AsyncCommand<byte[], byte[], Long> set =
          command(
              CommandType.HSET,
              new IntegerOutput<>(ByteArrayCodec.INSTANCE),
              batch.args(g, values));
      commands.add(set);
      done.add(
          set.thenRun(
              () -> {
                for (int index : group) {
                  stored.at(index);
                }
              }));
      AsyncCommand<byte[], byte[], Boolean> expire = expiry.apply(batch.buckets.get(g));
      if (expire != null) {
        commands.add(expire);
        done.add(expire);
      }
    }
    dispatch(commands);
    return CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
  }

  /**
   * HSET of the absent marker, then {@code PEXPIRE bucket absentTtl LT}: the marker lives no longer
   * than the absent TTL, and shortens its bucket's TTL to it.
   */
  @Override
  public CompletableFuture<Void> writeAbsent(List<String> keyTexts) {
    PackedBatch batch = newBatch(keyTexts);
    long absentMillis = requireNonNull(settings.absentTtl(), "absentTtl").toMillis();
    byte[] marker = Envelope.absentMarker();
    List<byte[]> markers = new ArrayList<>();
    keyTexts.forEach(text -> markers.add(marker));
    CompletableFuture<Void> all =
        batch.inBatches(
            range ->
                setAll(
                    batch, range, markers, bucket -> expiry(bucket, absentMillis, 0), index -> {}));
    return session.translated(
        all, "HSET of " + batch.size() + " absent keys with PEXPIRE LT of " + owner);
  }

  @Override
  public CompletableFuture<Long> delete(List<String> keyTexts) {
    if (keyTexts.size() == 1) {
      String keyText = keyTexts.get(0);
      byte[] bucket = bucketOf(keyText);
      byte[] field = utf8(field(keyText));
      return session.call("HDEL " + keyText + " of " + owner, c -> c.hdel(bucket, field));
    }
    PackedBatch batch = newBatch(keyTexts);
    LongAdder deleted = new LongAdder();
    CompletableFuture<Void> all =
        batch.inBatches(
            range -> {
              List<AsyncCommand<byte[], byte[], Long>> commands = new ArrayList<>();
              for (int g = range[0]; g < range[1]; g++) {
                commands.add(
                    command(
                        CommandType.HDEL,
                        new IntegerOutput<>(ByteArrayCodec.INSTANCE),
                        batch.args(g, null)));
              }
              dispatch(commands);
              return CompletableFuture.allOf(
                  commands.stream()
                      .map(c -> c.thenAccept(deleted::add))
                      .toArray(CompletableFuture[]::new));
            });
    return session.translated(
        all.thenApply(done -> deleted.sum()), "HDEL of " + batch.size() + " keys of " + owner);
  }

  /**
   * {@code SCAN} of the hashes {@code <prefix>{*}} and {@code UNLINK} of those that are this
   * cache's buckets, {@code <prefix>{n}} with {@code n} from 0 to the bucket count, written as the
   * layout writes it: whole buckets, and no other key under the prefix.
   */
  @Override
  public CompletableFuture<Long> clear() {
    ScanArgs match =
        KeyScanArgs.Builder.matches(ScanUnlink.globEscaped(prefix) + "{*}")
            .type("hash")
            .limit(settings.chunkSize());
    return ScanUnlink.run(
        session,
        match,
        key -> PackedBatch.isBucketKey(key, prefixBytes, layout.buckets()),
        settings.chunkSize(),
        "SCAN and UNLINK of the keys under " + prefix + " of " + owner);
  }

  @Override
  public int rounds(int keys) {
    return Math.max(1, (keys + settings.chunkSize() - 1) / settings.chunkSize());
  }

  @Override
  public long puts() {
    return puts.sum();
  }

  @Override
  public long bytesBeforeCompression() {
    return bytesBeforeCompression.sum();
  }

  @Override
  public long bytesWritten() {
    return bytesWritten.sum();
  }

  @Override
  public long oversized() {
    return listpack.oversized();
  }

  @Override
  public String toString() {
    return layout.toString();
  }
}
