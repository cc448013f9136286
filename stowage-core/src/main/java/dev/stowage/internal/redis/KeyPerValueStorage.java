package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.connection.RedisErrors;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.nearcache.NearStore;
import dev.stowage.internal.nearcache.Tracking;
import io.lettuce.core.KeyScanArgs;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ScriptOutputType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The {@linkplain dev.stowage.CacheLayout#keyPerValue() key-per-value layout}: one Redis string per
 * entry, named by its key text. Reads are {@code GET} and, in bulk, {@code MGET} per chunk (and
 * slot); writes go through {@link ChunkedWriter}; the near cache tracks each key on its own.
 */
public final class KeyPerValueStorage<K, V> implements CacheStorage<K, V> {
  /**
   * A near cache's bulk read: for each key, its value (nil when missing or not a string, as {@code
   * MGET} answers) and then its {@code PTTL}. One command, so that it is batched as an {@code MGET}
   * is; {@code MGET} in slices, as Lua unpacks only so many values at once.
   */
  private static final LuaScript MGET_WITH_TTLS =
      LuaScript.load(KeyPerValueStorage.class, ScriptOutputType.MULTI, "mget-with-ttls.lua");

  private final RedisSession session;
  private final CacheSettings<K, V> settings;
  private final String owner;
  private final ChunkedWriter<K, V> writer;
  private final Tracking.@Nullable Reader near;

  public KeyPerValueStorage(RedisSession session, CacheSettings<K, V> settings) {
    this.session = session;
    this.settings = settings;
    this.owner = "cache '" + settings.name() + "'";
    this.writer = new ChunkedWriter<>(session, settings, this::keyText, owner);
    this.near = settings.near();
  }

  @Override
  public String describe(Operation operation, String what) {
    return switch (operation) {
      case READ -> "GET " + what;
      case READ_MANY -> "MGET of " + what;
      case WRITE -> "SET " + what;
      case DELETE -> "DEL " + what;
      case DELETE_MANY -> "DEL of " + what;
      case EXISTS -> "EXISTS " + what;
    };
  }

  @Override
  public String wrongType() {
    return "the key holds another Redis type than a string";
  }

  @Override
  public String keyText(K key) {
    return keyTextOf(settings, owner, key);
  }

  /** The cache's prefix and the key's text. */
  static <K> String keyTextOf(CacheSettings<K, ?> settings, String owner, K key) {
    return settings.keyPrefix() + entryTextOf(settings, owner, key);
  }

  /** The key's text, without the cache's prefix: what the key function makes of it. */
  public static <K> String entryTextOf(CacheSettings<K, ?> settings, String owner, K key) {
    requireNonNull(key, "key");
    String text = settings.keyToString().apply(key);
    if (text == null) {
      throw new NullPointerException(owner + ": the key function returned null for " + key);
    }
    return text;
  }

  @Override
  public String redisKey(String keyText) {
    return keyText;
  }

  @Override
  public @Nullable NearStore near() {
    return near == null ? null : near.store();
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[][] utf8(List<String> texts) {
    byte[][] all = new byte[texts.size()][];
    for (int i = 0; i < all.length; i++) {
      all[i] = utf8(texts.get(i));
    }
    return all;
  }

  /**
   * GET, with a key of another type read as {@link #WRONG_TYPE}. With {@code ttl}, a {@code PTTL}
   * follows the {@code GET} on the same (tracking) connection, in the same round trip; a change of
   * the key between the two is an invalidation, which fails the read's stamp.
   */
  @Override
  public CompletableFuture<byte @Nullable []> fetch(String keyText, @Nullable ReadTtl ttl) {
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
            RedisErrors.isWrongType(e)
                ? CompletableFuture.completedFuture(WRONG_TYPE)
                : CompletableFuture.failedFuture(
                    session.translate(e, "GET " + keyText + " of " + owner)));
  }

  /**
   * MGET, one command per chunk (and slot), a few chunks in flight at once (per master, each chunk
   * one batch to its master); values aligned with the keys, each command's stored as it arrives.
   * With {@code ttls}, each key's {@code PTTL} is read with its value, in the same command ({@link
   * #MGET_WITH_TTLS}).
   */
  @Override
  public CompletableFuture<byte[][]> fetchAll(List<String> keyTexts, long @Nullable [] ttls) {
    int n = keyTexts.size();
    byte[][] values = new byte[n][];
    byte[][] redisKeys = utf8(keyTexts);
    SlotPlan plan = SlotPlan.of(session, redisKeys, settings.chunkSize());
    Tracking.Reader reader = near;
    CompletableFuture<Void> all;
    if (reader == null || ttls == null) {
      all =
          ChunkWindow.run(
              plan,
              session,
              new GroupCommand<List<KeyValue<byte[], byte[]>>>(
                  group -> BuiltCommands.mget(ChunkedWriter.select(redisKeys, group)),
                  group -> {
                    byte[][] keys = ChunkedWriter.select(redisKeys, group);
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
                  // the keys it reads; in broadcast mode (on a cluster) reads are batched like any
                  // other.
                  reader.readsAnywhere()
                      ? group -> MGET_WITH_TTLS.builtMulti(ChunkedWriter.select(redisKeys, group))
                      : null,
                  group -> {
                    byte[][] keys = ChunkedWriter.select(redisKeys, group);
                    Runnable untracked =
                        () -> {
                          for (int i : group) {
                            store.untracked(keyTexts.get(i));
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
    return session.translated(all.thenApply(done -> values), "MGET of " + n + " keys of " + owner);
  }

  @Override
  public CompletableFuture<Boolean> exists(String keyText) {
    byte[] redisKey = utf8(keyText);
    return session
        .call("EXISTS " + keyText + " of " + owner, c -> c.exists(redisKey))
        .thenApply(n -> n > 0);
  }

  @Override
  public WriteCodec.Encoded encode(String keyText, V value) {
    return writer.encode(keyText, value);
  }

  @Override
  public CompletableFuture<Void> write(String keyText, WriteCodec.Encoded encoded) {
    return writer.write(keyText, encoded);
  }

  @Override
  public Prepared prepare(Map<? extends K, ? extends V> entries) {
    return writer.prepare(entries);
  }

  @Override
  public CompletableFuture<Void> send(Prepared prepared) {
    return writer.send((ChunkedWriter.Prepared) prepared);
  }

  /** Encodes a chunk at a time while earlier chunks are written; see {@link ChunkedWriter}. */
  @Override
  public CompletableFuture<Void> writeStreaming(
      Map<? extends K, ? extends V> entries, Executor encodeOn, Consumer<List<String>> written) {
    return writer.writeStreaming(
        entries, encodeOn, near == null ? chunk -> {} : chunk -> written.accept(chunk.texts()));
  }

  @Override
  public CompletableFuture<Void> writeAbsent(List<String> keyTexts) {
    return writer.writeAbsent(keyTexts);
  }

  @Override
  public CompletableFuture<Long> delete(List<String> keyTexts) {
    if (keyTexts.size() == 1) {
      String keyText = keyTexts.get(0);
      byte[] redisKey = utf8(keyText);
      return session.call("DEL " + keyText + " of " + owner, c -> c.del(redisKey));
    }
    int n = keyTexts.size();
    LongAdder deleted = new LongAdder();
    byte[][] allKeys = utf8(keyTexts);
    CompletableFuture<Void> all =
        ChunkWindow.run(
            SlotPlan.of(session, allKeys, settings.chunkSize()),
            session,
            new GroupCommand<Long>(
                group -> BuiltCommands.del(ChunkedWriter.select(allKeys, group)),
                group -> {
                  byte[][] redisKeys = ChunkedWriter.select(allKeys, group);
                  return session.dispatch(c -> c.del(redisKeys));
                },
                (group, removed) -> deleted.add(removed)));
    return session.translated(
        all.thenApply(done -> deleted.sum()), "DEL of " + n + " keys of " + owner);
  }

  /**
   * {@code SCAN} of the strings under the prefix ({@code MATCH <prefix>* TYPE string}, the prefix's
   * glob characters escaped: the only keys this layout writes), then an {@code UNLINK} of each page
   * found ({@link ScanUnlink}).
   */
  @Override
  public CompletableFuture<Long> clear() {
    return ScanUnlink.run(
        session,
        KeyScanArgs.Builder.matches(ScanUnlink.globEscaped(settings.keyPrefix()) + "*")
            .type("string")
            .limit(settings.chunkSize()),
        key -> true,
        settings.chunkSize(),
        "SCAN and UNLINK of the keys under " + settings.keyPrefix() + " of " + owner);
  }

  @Override
  public int rounds(int keys) {
    return writer.rounds(keys);
  }

  @Override
  public String describeWrite(int n) {
    return writer.describeWrite(n);
  }

  @Override
  public long puts() {
    return writer.puts();
  }

  @Override
  public long bytesBeforeCompression() {
    return writer.bytesBeforeCompression();
  }

  @Override
  public long bytesWritten() {
    return writer.bytesWritten();
  }

  @Override
  public long oversized() {
    return 0;
  }

  @Override
  public String toString() {
    return "key-per-value";
  }
}
