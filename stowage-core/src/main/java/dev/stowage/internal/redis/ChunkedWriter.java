package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.CodecException;
import dev.stowage.StowageException;
import dev.stowage.internal.Futures;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.format.Envelope;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Writes a cache's entries, each with its own jittered TTL: one with {@code SET}, many one command
 * per chunk, a few chunks in flight at once ({@link ChunkWindow}). Without a TTL a chunk is {@code
 * MSET}; with one it is a script that runs {@code SET key value PX ttl} for each entry of the
 * chunk. Timed against pipelining one {@code SET PX} per entry, the script was faster, and sends
 * one command where the pipeline sent a thousand. On a Redis Cluster a command or script may only
 * touch keys of one slot, so a chunk is one command per slot among its keys, and each master gets
 * its own window of chunks ({@link SlotPlan}).
 *
 * <p>Two ways to write many entries: {@link #prepare} encodes every value before {@link #send}
 * sends any, so that an encoding failure stores nothing; {@link #writeStreaming} encodes a chunk
 * while the ones before it are on the wire, so that encoding and writing overlap.
 *
 * <p>It counts the values Redis confirmed it stored, and their bytes before compression and as
 * stored; absent markers are not counted.
 *
 * @param <K> the type of the keys
 * @param <V> the type of the values
 */
final class ChunkedWriter<K, V> {
  /** SET with its own TTL for each key: ARGV holds value and TTL in milliseconds, key by key. */
  private static final LuaScript SET_WITH_TTLS =
      LuaScript.load(ChunkedWriter.class, ScriptOutputType.INTEGER, "set-with-ttls.lua");

  private final RedisSession session;
  private final WriteCodec<V> codec;
  private final Function<K, String> keyText;
  private final @Nullable Duration ttl;
  private final double ttlJitter;
  private final @Nullable Duration absentTtl;
  private final int chunkSize;
  private final String owner;
  private final LongAdder puts = new LongAdder();
  private final LongAdder bytesBeforeCompression = new LongAdder();
  private final LongAdder bytesWritten = new LongAdder();

  ChunkedWriter(
      RedisSession session,
      CacheSettings<K, V> settings,
      Function<K, String> keyText,
      String owner) {
    this.session = session;
    this.codec = settings.codec();
    this.keyText = keyText;
    this.ttl = settings.ttl();
    this.ttlJitter = settings.ttlJitter();
    this.absentTtl = settings.absentTtl();
    this.chunkSize = settings.chunkSize();
    this.owner = owner;
  }

  /**
   * Entries encoded and ready to send: Redis keys, values and the values' sizes before compression,
   * aligned. A class, not a record: it holds arrays, compared by identity.
   */
  static final class Prepared implements CacheStorage.Prepared {
    private final byte[][] keys;
    private final byte[][] values;
    private final int[] payloadSizes;

    Prepared(byte[][] keys, byte[][] values, int[] payloadSizes) {
      this.keys = keys;
      this.values = values;
      this.payloadSizes = payloadSizes;
    }

    byte[][] keys() {
      return keys;
    }

    byte[][] values() {
      return values;
    }

    int[] payloadSizes() {
      return payloadSizes;
    }

    /** The Redis keys as text. */
    @Override
    public List<String> texts() {
      List<String> texts = new ArrayList<>(keys.length);
      for (byte[] key : keys) {
        texts.add(new String(key, StandardCharsets.UTF_8));
      }
      return texts;
    }
  }

  /** Values stored. */
  long puts() {
    return puts.sum();
  }

  /** The stored values' sizes before compression, added up. */
  long bytesBeforeCompression() {
    return bytesBeforeCompression.sum();
  }

  /** The stored values' sizes as stored, added up. */
  long bytesWritten() {
    return bytesWritten.sum();
  }

  /** Counts a value Redis stored. */
  private void stored(int payloadSize, int size) {
    puts.increment();
    bytesBeforeCompression.add(payloadSize);
    bytesWritten.add(size);
  }

  /** How many round trips {@code keys} keys take, one per chunk. */
  int rounds(int keys) {
    return Math.max(1, (keys + chunkSize - 1) / chunkSize);
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** Encodes a value, adding the key to a failure. */
  WriteCodec.Encoded encode(String keyText, V value) {
    requireNonNull(value, "value");
    try {
      return codec.encodeMeasured(value);
    } catch (StowageException e) {
      throw e.addContext("key " + keyText + " of " + owner);
    }
  }

  /**
   * Encodes entries, in the calling thread, as values written together ({@link
   * WriteCodec#encodeAll}).
   */
  Prepared prepare(Map<? extends K, ? extends V> entries) {
    requireNonNull(entries, "entries");
    List<String> texts = new ArrayList<>(entries.size());
    List<V> values = new ArrayList<>(entries.size());
    for (Map.Entry<? extends K, ? extends V> entry : entries.entrySet()) {
      texts.add(keyText.apply(entry.getKey()));
      values.add(requireNonNull(entry.getValue(), "value"));
    }
    List<WriteCodec.Encoded> encoded =
        codec.encodeAllMeasured(values, i -> "key " + texts.get(i) + " of " + owner);
    byte[][] keys = new byte[texts.size()][];
    byte[][] bytes = new byte[keys.length][];
    int[] payloadSizes = new int[keys.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = utf8(texts.get(i));
      bytes[i] = encoded.get(i).bytes();
      payloadSizes[i] = encoded.get(i).payloadSize();
    }
    return new Prepared(keys, bytes, payloadSizes);
  }

  /** Stores one encoded value with its TTL. */
  CompletableFuture<Void> write(String keyText, WriteCodec.Encoded encoded) {
    byte[] key = utf8(keyText);
    byte[] value = encoded.bytes();
    return session
        .<String>call(
            "SET " + keyText + " of " + owner,
            c ->
                ttl == null
                    ? c.set(key, value)
                    : c.set(key, value, SetArgs.Builder.px(ttlMillis())))
        .thenApply(
            ok -> {
              stored(encoded.payloadSize(), value.length);
              return null;
            });
  }

  /**
   * Sends prepared entries, one command per chunk (and slot), a few chunks in flight at once (per
   * master).
   */
  CompletableFuture<Void> send(Prepared prepared) {
    return session.translated(dispatchAll(prepared), describeWrite(prepared.keys().length));
  }

  /** Sends prepared entries as {@link #send} does, untranslated. */
  private CompletableFuture<Void> dispatchAll(Prepared prepared) {
    return ChunkWindow.run(
        SlotPlan.of(session, prepared.keys(), chunkSize), session, writeCommand(prepared));
  }

  /**
   * Encodes a chunk at a time on {@code encodeOn} and sends it, encoding the next while at most
   * {@link ChunkWindow#IN_FLIGHT} chunks are in flight (per master, on a cluster). A value that
   * cannot be encoded stops the write once the chunks in flight are stored: with none sent before
   * it, the future fails with the value's exception; after some, with a {@link CodecException} that
   * says how many entries were stored. {@code sent} is told each chunk's keys as it is sent.
   *
   * <p>On one server the chunks are the map's entries in order. On a cluster they are the chunks of
   * the whole map's {@link SlotPlan}, taken from each master in turn, so that a chunk is a few
   * commands of many keys each rather than a command per key.
   */
  CompletableFuture<Void> writeStreaming(
      Map<? extends K, ? extends V> entries, Executor encodeOn, Consumer<Prepared> sent) {
    requireNonNull(entries, "entries");
    Iterator<Map<K, V>> chunks;
    int window;
    try {
      if (session.isCluster()) {
        List<Map.Entry<? extends K, ? extends V>> all = new ArrayList<>(entries.entrySet());
        byte[][] keys = new byte[all.size()][];
        for (int i = 0; i < keys.length; i++) {
          keys[i] = utf8(keyText.apply(all.get(i).getKey()));
        }
        SlotPlan plan = SlotPlan.of(session, keys, chunkSize);
        chunks = inTurn(plan).stream().map(chunk -> entriesOf(all, chunk)).iterator();
        window = ChunkWindow.IN_FLIGHT * Math.max(1, plan.lanes().size());
      } else {
        chunks = consecutive(entries.entrySet().iterator());
        window = ChunkWindow.IN_FLIGHT;
      }
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    Streaming streaming =
        new Streaming(chunks, window, describeWrite(entries.size()), encodeOn, sent);
    try {
      encodeOn.execute(streaming::pump);
    } catch (RuntimeException e) {
      streaming.done.completeExceptionally(e);
    }
    return streaming.done;
  }

  /** Chunks of {@link #chunkSize} entries, in the order given. */
  private Iterator<Map<K, V>> consecutive(
      Iterator<? extends Map.Entry<? extends K, ? extends V>> entries) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return entries.hasNext();
      }

      @Override
      public Map<K, V> next() {
        Map<K, V> chunk = new LinkedHashMap<>();
        while (chunk.size() < chunkSize && entries.hasNext()) {
          Map.Entry<? extends K, ? extends V> entry = entries.next();
          chunk.put(entry.getKey(), entry.getValue());
        }
        return chunk;
      }
    };
  }

  /** The chunks of a plan, one from each lane in turn. */
  private static List<SlotPlan.Chunk> inTurn(SlotPlan plan) {
    List<SlotPlan.Chunk> order = new ArrayList<>(plan.chunks());
    for (int round = 0; round < plan.rounds(); round++) {
      for (List<SlotPlan.Chunk> lane : plan.lanes()) {
        if (round < lane.size()) {
          order.add(lane.get(round));
        }
      }
    }
    return order;
  }

  /** The entries at a chunk's indexes. */
  private Map<K, V> entriesOf(List<Map.Entry<? extends K, ? extends V>> all, SlotPlan.Chunk chunk) {
    Map<K, V> entries = new LinkedHashMap<>();
    for (int[] group : chunk.groups()) {
      for (int i : group) {
        entries.put(all.get(i).getKey(), all.get(i).getValue());
      }
    }
    return entries;
  }

  /** One streaming write's state; its counters guarded by {@code this}. */
  private final class Streaming {
    private final Iterator<Map<K, V>> remaining;
    private final int window;
    private final String what;
    private final Executor encodeOn;
    private final Consumer<Prepared> sent;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private int inFlight;
    private long entriesSent;
    private boolean pumping = true;
    private boolean exhausted;
    private @Nullable StowageException encodingFailure;

    Streaming(
        Iterator<Map<K, V>> remaining,
        int window,
        String what,
        Executor encodeOn,
        Consumer<Prepared> sent) {
      this.remaining = remaining;
      this.window = window;
      this.what = what;
      this.encodeOn = encodeOn;
      this.sent = sent;
    }

    /**
     * Encodes and sends chunks while the window has room; runs on {@code encodeOn}, one at a time.
     */
    void pump() {
      while (true) {
        synchronized (this) {
          exhausted |= !remaining.hasNext();
          if (done.isDone() || exhausted || inFlight == window) {
            pumping = false;
            finishIfIdle();
            return;
          }
        }
        Prepared chunk;
        try {
          chunk = prepare(remaining.next());
        } catch (StowageException e) {
          synchronized (this) {
            encodingFailure = e;
            exhausted = true;
          }
          continue;
        } catch (RuntimeException | Error e) {
          done.completeExceptionally(e);
          continue;
        }
        synchronized (this) {
          inFlight++;
          entriesSent += chunk.keys().length;
        }
        sent.accept(chunk);
        CompletableFuture<?> write;
        try {
          write = dispatchAll(chunk);
        } catch (RuntimeException e) {
          write = CompletableFuture.failedFuture(e);
        }
        Futures.whenDone(write, (result, failure) -> chunkDone(failure));
      }
    }

    private void chunkDone(Throwable failure) {
      if (failure != null) {
        done.completeExceptionally(session.translate(failure, what));
        return;
      }
      boolean pumpAgain;
      synchronized (this) {
        inFlight--;
        pumpAgain = !pumping && !exhausted && !done.isDone();
        pumping |= pumpAgain;
        if (!pumpAgain) {
          finishIfIdle();
        }
      }
      if (pumpAgain) {
        try {
          encodeOn.execute(this::pump);
        } catch (RuntimeException e) {
          done.completeExceptionally(e);
        }
      }
    }

    /** Completes the write once nothing is left to encode and nothing is in flight. */
    private void finishIfIdle() {
      if (!exhausted || inFlight > 0) {
        return;
      }
      if (encodingFailure == null) {
        done.complete(null);
      } else if (entriesSent == 0 || !(encodingFailure instanceof CodecException)) {
        done.completeExceptionally(encodingFailure);
      } else {
        // The chunks already sent are stored once this completes, as the exception says.
        done.completeExceptionally(
            new CodecException(
                encodingFailure.getMessage()
                    + " ("
                    + what
                    + ": "
                    + (session.isCluster()
                        ? entriesSent + " entries, chunk by chunk of each slot,"
                        : "the first " + entriesSent + " entries, in the map's order,")
                    + " were stored in earlier chunks; this one and the rest were not)",
                encodingFailure));
      }
    }
  }

  /**
   * The one command that writes the entries of {@code prepared} at the indexes a group holds
   * (consecutive ones, or on a cluster those of one slot): {@code MSET}, or the script that sets
   * each with its TTL; counts them once Redis confirms.
   */
  private GroupCommand<?> writeCommand(Prepared prepared) {
    if (ttl == null) {
      return new GroupCommand<String>(
          group ->
              BuiltCommands.mset(select(prepared.keys(), group), select(prepared.values(), group)),
          group -> {
            // Lettuce's MSET takes a map: each of the chunk's own key arrays is one entry, in
            // order,
            // and nothing is looked up in it, so identity is what is wanted.
            @SuppressWarnings("ArrayAsKeyOfSetOrMap")
            Map<byte[], byte[]> entries = new LinkedHashMap<>();
            for (int i : group) {
              entries.put(prepared.keys()[i], prepared.values()[i]);
            }
            return session.dispatch(c -> c.mset(entries));
          },
          (group, ok) -> storedAll(prepared, group));
    }
    return new GroupCommand<Long>(
        group ->
            SET_WITH_TTLS.builtInteger(
                select(prepared.keys(), group), valuesAndTtls(prepared, group)),
        group ->
            SET_WITH_TTLS.run(
                session, select(prepared.keys(), group), valuesAndTtls(prepared, group)),
        (group, count) -> storedAll(prepared, group));
  }

  /** Counts the entries at {@code group}'s indexes as stored. */
  private void storedAll(Prepared prepared, int[] group) {
    for (int i : group) {
      stored(prepared.payloadSizes()[i], prepared.values()[i].length);
    }
  }

  /**
   * The script's arguments for the entries at {@code group}'s indexes: value and jittered TTL,
   * entry by entry.
   */
  private byte[][] valuesAndTtls(Prepared prepared, int[] group) {
    byte[][] valuesAndTtls = new byte[2 * group.length][];
    for (int j = 0; j < group.length; j++) {
      valuesAndTtls[2 * j] = prepared.values()[group[j]];
      valuesAndTtls[2 * j + 1] = Long.toString(ttlMillis()).getBytes(StandardCharsets.US_ASCII);
    }
    return valuesAndTtls;
  }

  /** The elements of {@code all} at the indexes {@code group} holds. */
  static byte[][] select(byte[][] all, int[] group) {
    byte[][] selected = new byte[group.length][];
    for (int j = 0; j < group.length; j++) {
      selected[j] = all[group[j]];
    }
    return selected;
  }

  String describeWrite(int n) {
    return (ttl != null ? "SET PX" : "MSET") + " of " + n + " keys of " + owner;
  }

  private long ttlMillis() {
    long max = requireNonNull(ttl, "ttl").toMillis();
    if (ttlJitter == 0) {
      return max;
    }
    long min = Math.max(1, max - (long) (max * ttlJitter));
    return ThreadLocalRandom.current().nextLong(min, max + 1);
  }

  /**
   * Stores the absent marker for each key, with the absent TTL, one script per chunk (and slot).
   */
  CompletableFuture<Void> writeAbsent(List<String> keyTexts) {
    int n = keyTexts.size();
    byte[] marker = Envelope.absentMarker();
    byte[] absentMillis =
        Long.toString(requireNonNull(absentTtl, "absentTtl").toMillis())
            .getBytes(StandardCharsets.US_ASCII);
    byte[][] allKeys = new byte[n][];
    for (int i = 0; i < n; i++) {
      allKeys[i] = utf8(keyTexts.get(i));
    }
    Function<int[], byte[][]> markersAndTtls =
        group -> {
          byte[][] valuesAndTtls = new byte[2 * group.length][];
          for (int j = 0; j < group.length; j++) {
            valuesAndTtls[2 * j] = marker;
            valuesAndTtls[2 * j + 1] = absentMillis;
          }
          return valuesAndTtls;
        };
    CompletableFuture<Void> all =
        ChunkWindow.run(
            SlotPlan.of(session, allKeys, chunkSize),
            session,
            new GroupCommand<Long>(
                group ->
                    SET_WITH_TTLS.builtInteger(select(allKeys, group), markersAndTtls.apply(group)),
                group ->
                    SET_WITH_TTLS.run(session, select(allKeys, group), markersAndTtls.apply(group)),
                (group, count) -> {}));
    return session.translated(all, "SET PX of " + n + " absent keys of " + owner);
  }
}
