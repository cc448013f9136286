package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.CodecException;
import dev.stowage.Envelope;
import dev.stowage.StowageException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
 * per chunk, a few chunks in flight at once ({@link ChunkWindow}). Without a TTL a chunk is
 * {@code MSET}; with one it is a script that runs {@code SET key value PX ttl} for each entry of the
 * chunk. Timed against pipelining one {@code SET PX} per entry, the script was faster, and sends
 * one command where the pipeline sent a thousand. With Redis Cluster a chunk's keys will have to
 * share a slot.
 *
 * <p>Two ways to write many entries: {@link #prepare} encodes every value before {@link #send} sends any, so
 * that an encoding failure stores nothing; {@link #writeStreaming} encodes a chunk while the ones
 * before it are on the wire, so that encoding and writing overlap.
 *
 * <p>It counts the values Redis confirmed it stored, and their bytes before compression and as
 * stored; absent markers are not counted.
 *
 * @param <K> the type of the keys
 * @param <V> the type of the values
 */
final class ChunkedWriter<K, V> {
  /** SET with its own TTL for each key: ARGV holds value and TTL in milliseconds, key by key. */
  private static final LuaScript SET_WITH_TTLS = new LuaScript(
      "for i = 1, #KEYS do redis.call('SET', KEYS[i], ARGV[2 * i - 1], 'PX', ARGV[2 * i]) end return #KEYS",
      ScriptOutputType.INTEGER);

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

  ChunkedWriter(RedisSession session, CacheSettings<K, V> settings, Function<K, String> keyText, String owner) {
    this.session = session;
    this.codec = settings.codec();
    this.keyText = keyText;
    this.ttl = settings.ttl();
    this.ttlJitter = settings.ttlJitter();
    this.absentTtl = settings.absentTtl();
    this.chunkSize = settings.chunkSize();
    this.owner = owner;
  }

  /** Entries encoded and ready to send: Redis keys, values and the values' sizes before compression, aligned. */
  record Prepared(byte[][] keys, byte[][] values, int[] payloadSizes) {
    /** The Redis keys as text. */
    List<String> texts() {
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

  /** Encodes entries, in the calling thread, as values written together ({@link WriteCodec#encodeAll}). */
  Prepared prepare(Map<? extends K, ? extends V> entries) {
    requireNonNull(entries, "entries");
    List<String> texts = new ArrayList<>(entries.size());
    List<V> values = new ArrayList<>(entries.size());
    for (Map.Entry<? extends K, ? extends V> entry : entries.entrySet()) {
      texts.add(keyText.apply(entry.getKey()));
      values.add(requireNonNull(entry.getValue(), "value"));
    }
    List<WriteCodec.Encoded> encoded = codec.encodeAllMeasured(values, i -> "key " + texts.get(i) + " of " + owner);
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
    return session.<String>call("SET " + keyText + " of " + owner,
        c -> ttl == null ? c.set(key, value) : c.set(key, value, SetArgs.Builder.px(ttlMillis()))).thenApply(ok -> {
          stored(encoded.payloadSize(), value.length);
          return null;
        });
  }

  /** Sends prepared entries, one command per chunk, a few chunks in flight at once. */
  CompletableFuture<Void> send(Prepared prepared) {
    int n = prepared.keys().length;
    CompletableFuture<Void> all = ChunkWindow.run(n == 0 ? 0 : rounds(n), index -> {
      int from = index * chunkSize;
      return dispatchChunk(prepared, from, Math.min(n, from + chunkSize));
    });
    return session.translated(all, describeWrite(n));
  }

  /**
   * Encodes a chunk at a time on {@code encodeOn} and sends it, encoding the next while at most
   * {@link ChunkWindow#IN_FLIGHT} chunks are in flight. A value that cannot be encoded stops the
   * write once the chunks in flight are stored: with none sent before it, the future fails with the
   * value's exception; after some, with a {@link CodecException} that says how many entries were
   * stored. {@code sent} is told each chunk's keys as it is sent.
   */
  CompletableFuture<Void> writeStreaming(Map<? extends K, ? extends V> entries, Executor encodeOn,
                                         Consumer<Prepared> sent) {
    requireNonNull(entries, "entries");
    Streaming streaming = new Streaming(entries.entrySet().iterator(), describeWrite(entries.size()), encodeOn, sent);
    try {
      encodeOn.execute(streaming::pump);
    } catch (RuntimeException e) {
      streaming.done.completeExceptionally(e);
    }
    return streaming.done;
  }

  /** One streaming write's state; its counters guarded by {@code this}. */
  private final class Streaming {
    private final Iterator<? extends Map.Entry<? extends K, ? extends V>> remaining;
    private final String what;
    private final Executor encodeOn;
    private final Consumer<Prepared> sent;
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private int inFlight;
    private long entriesSent;
    private boolean pumping = true;
    private boolean exhausted;
    private @Nullable StowageException encodingFailure;

    Streaming(Iterator<? extends Map.Entry<? extends K, ? extends V>> remaining, String what, Executor encodeOn,
              Consumer<Prepared> sent) {
      this.remaining = remaining;
      this.what = what;
      this.encodeOn = encodeOn;
      this.sent = sent;
    }

    /** Encodes and sends chunks while the window has room; runs on {@code encodeOn}, one at a time. */
    void pump() {
      while (true) {
        synchronized (this) {
          exhausted |= !remaining.hasNext();
          if (done.isDone() || exhausted || inFlight == ChunkWindow.IN_FLIGHT) {
            pumping = false;
            finishIfIdle();
            return;
          }
        }
        Prepared chunk;
        try {
          chunk = prepare(nextChunk());
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
          write = dispatchChunk(chunk, 0, chunk.keys().length);
        } catch (RuntimeException e) {
          write = CompletableFuture.failedFuture(e);
        }
        write.whenComplete((result, failure) -> chunkDone(failure));
      }
    }

    private Map<K, V> nextChunk() {
      Map<K, V> chunk = new LinkedHashMap<>();
      while (chunk.size() < chunkSize && remaining.hasNext()) {
        Map.Entry<? extends K, ? extends V> entry = remaining.next();
        chunk.put(entry.getKey(), entry.getValue());
      }
      return chunk;
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
        done.completeExceptionally(new CodecException(encodingFailure.getMessage() + " (" + what + ": the first "
            + entriesSent + " entries, in the map's order, were stored in earlier chunks; this one and the rest"
            + " were not)", encodingFailure));
      }
    }
  }

  /**
   * The one command that writes entries {@code from} to {@code to} of {@code prepared}, untranslated;
   * counts them once Redis confirms.
   */
  private CompletableFuture<?> dispatchChunk(Prepared prepared, int from, int to) {
    return sendChunk(prepared, from, to).thenRun(() -> {
      for (int i = from; i < to; i++) {
        stored(prepared.payloadSizes()[i], prepared.values()[i].length);
      }
    });
  }

  private CompletableFuture<?> sendChunk(Prepared prepared, int from, int to) {
    if (ttl == null) {
      Map<byte[], byte[]> entries = new LinkedHashMap<>();
      for (int i = from; i < to; i++) {
        entries.put(prepared.keys()[i], prepared.values()[i]);
      }
      return session.dispatch(c -> c.mset(entries));
    }
    byte[][] keys = Arrays.copyOfRange(prepared.keys(), from, to);
    byte[][] valuesAndTtls = new byte[2 * (to - from)][];
    for (int i = from; i < to; i++) {
      valuesAndTtls[2 * (i - from)] = prepared.values()[i];
      valuesAndTtls[2 * (i - from) + 1] = Long.toString(ttlMillis()).getBytes(StandardCharsets.US_ASCII);
    }
    return SET_WITH_TTLS.run(session, keys, valuesAndTtls);
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

  /** Stores the absent marker for each key, with the absent TTL, one script per chunk. */
  CompletableFuture<Void> writeAbsent(List<String> keyTexts) {
    int n = keyTexts.size();
    byte[] marker = Envelope.absentMarker();
    byte[] absentMillis = Long.toString(requireNonNull(absentTtl, "absentTtl").toMillis()).getBytes(StandardCharsets.US_ASCII);
    CompletableFuture<Void> all = ChunkWindow.run(n == 0 ? 0 : rounds(n), index -> {
      int from = index * chunkSize;
      int to = Math.min(n, from + chunkSize);
      byte[][] keys = new byte[to - from][];
      byte[][] valuesAndTtls = new byte[2 * (to - from)][];
      for (int i = from; i < to; i++) {
        keys[i - from] = utf8(keyTexts.get(i));
        valuesAndTtls[2 * (i - from)] = marker;
        valuesAndTtls[2 * (i - from) + 1] = absentMillis;
      }
      return SET_WITH_TTLS.run(session, keys, valuesAndTtls);
    });
    return session.translated(all, "SET PX of " + n + " absent keys of " + owner);
  }
}
