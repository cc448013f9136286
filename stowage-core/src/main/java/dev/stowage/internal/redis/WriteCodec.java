package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import dev.stowage.internal.Futures;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.internal.store.KeptKey;
import dev.stowage.internal.store.KeptKeys;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The envelope codec a cache or feed writes with. Fixed, or learning: {@link
 * Compression#standard()} (zstd for values of a kilobyte or more, none below) until enough values
 * have been written, then zstd with a dictionary trained on those values, for every value of 64
 * bytes or more.
 *
 * <p><b>Learning.</b> The first {@code samples} values written (each up to {@value
 * #MAX_SAMPLE_BYTES} bytes once encoded) are kept as samples. When the last one arrives the
 * dictionary is trained, saved under {@code stowage:dict:<id>} like any other, and recorded in the
 * hash {@code recordKey} ({@code stowage:learned:cache:<name>} or {@code
 * stowage:learned:feed:<key>}, see {@link dev.stowage.internal.format.StowageKeys}) under the
 * codec's name with {@code HSETNX}; then the codec switches to it. Every process writing the same
 * values therefore ends up with one dictionary: the first to record one wins and the others adopt
 * it, and a process that starts later adopts it at once. A single write that completes the samples
 * trains in the background and returns at once; a bulk write ({@link #encodeAll}) trains in its own
 * thread before it encodes the rest, so that a large first load is compressed with the dictionary
 * too. Each value is encoded once: its payload is the sample, then compressed and wrapped. When
 * learning fails (Redis unreachable, samples too alike to train on), the codec keeps writing with
 * the standard compression and learns again from the next values.
 *
 * <p><b>Kept in Redis.</b> A codec made by {@link #kept} or {@link #learning} keeps the dictionary
 * and the schema it writes with in Redis ({@link KeptKeys}), and never writes a value that another
 * process could not read: while its dictionary is not confirmed in Redis (after a reconnection,
 * until it is saved again) it writes with its fallback, the standard compression, and a value with
 * a schema waits for the schema to be confirmed ({@link KeptKey#awaitForWrite}).
 *
 * <p><b>Legacy writes.</b> A codec made by {@link #legacyWrites} writes values as the legacy codec
 * encodes them, with no envelope and no compression, so that an application that does not run
 * Stowage yet reads them during a rolling migration; it never learns a dictionary.
 *
 * <p>Thread-safe. Values written before the switch stay readable: every value's envelope names its
 * compression.
 *
 * @param <V> the type of the values
 */
public final class WriteCodec<V> {
  /** Larger values are not sampled: a dictionary is for many small, similar values. */
  static final int MAX_SAMPLE_BYTES = 16 * 1024;

  /** Samples are trained on at most this many bytes in all. */
  static final int MAX_SAMPLES_TOTAL = 8 * 1024 * 1024;

  private static final System.Logger LOG = System.getLogger("dev.stowage.dictionary");

  private volatile Writing<V> writing;
  private final @Nullable Learning learning;
  private final @Nullable Codec<V> legacyWrites;

  /**
   * The schema values are written with, kept in Redis; null when they have none or it is not kept.
   */
  private final @Nullable KeptKey schema;

  private final String owner;

  /**
   * What values are written with: {@code codec} while its dictionary is confirmed in Redis (or it
   * has none), else {@code fallback}, which has no dictionary.
   */
  private record Writing<V>(
      EnvelopeCodec<V> codec, @Nullable KeptKey dictionary, EnvelopeCodec<V> fallback) {
    EnvelopeCodec<V> now() {
      KeptKey kept = dictionary;
      return kept == null || kept.isConfirmed() ? codec : fallback;
    }
  }

  private WriteCodec(
      Writing<V> start,
      @Nullable LearningSettings<V> settings,
      @Nullable Codec<V> legacyWrites,
      @Nullable KeptKey schema,
      String owner) {
    this.writing = start;
    this.learning = settings == null ? null : new Learning(settings);
    this.legacyWrites = legacyWrites;
    this.schema = schema;
    this.owner = owner;
  }

  /** A codec that never changes, and keeps nothing in Redis. */
  public static <V> WriteCodec<V> fixed(EnvelopeCodec<V> codec) {
    requireNonNull(codec, "codec");
    return new WriteCodec<>(new Writing<>(codec, null, codec), null, null, null, "values");
  }

  /**
   * A codec that writes with {@code codec} and keeps its dictionary and schema in Redis through
   * {@code kept}; while the dictionary is not confirmed there it writes with {@code fallback},
   * which must have no dictionary. {@code owner} names the cache or feed in messages.
   */
  public static <V> WriteCodec<V> kept(
      EnvelopeCodec<V> codec, EnvelopeCodec<V> fallback, KeptKeys kept, String owner) {
    requireNonNull(codec, "codec");
    requireNonNull(fallback, "fallback");
    requireNonNull(kept, "kept");
    KeptKey dictionary =
        CompressionAccess.dictionary(codec.compression()).map(kept::dictionary).orElse(null);
    KeptKey schema = codec.writeSchema().map(kept::schema).orElse(null);
    return new WriteCodec<>(
        new Writing<>(codec, dictionary, dictionary == null ? codec : fallback),
        null,
        null,
        schema,
        requireNonNull(owner, "owner"));
  }

  /**
   * A codec that writes every value with {@code legacy} alone, without an envelope, for readers
   * that predate Stowage, and reads with {@code reader}, which reads those values (its legacy
   * codec) and envelopes alike.
   */
  public static <V> WriteCodec<V> legacyWrites(EnvelopeCodec<V> reader, Codec<V> legacy) {
    requireNonNull(reader, "reader");
    return new WriteCodec<>(
        new Writing<>(reader, null, reader),
        null,
        requireNonNull(legacy, "legacy"),
        null,
        "values");
  }

  /**
   * What a learning codec needs.
   *
   * @param withCompression builds the envelope codec for a compression
   * @param codec the codec values are written with, whose name the record's field is
   * @param session the connection the learned dictionary is recorded through
   * @param store resolves a dictionary recorded by another process
   * @param kept keeps the dictionary, the schema and the record in Redis
   * @param recordKey the hash that records the dictionary learned, such as {@code
   *     stowage:learned:cache:users} ({@link
   *     dev.stowage.internal.format.StowageKeys#learnedByCache})
   * @param samples how many values to learn from, at least {@link ZstdDictionary#MIN_SAMPLES}
   * @param dictionarySize the dictionary's size in bytes, at most
   * @param executor trains after a single write
   * @param owner names the cache or feed in log lines
   */
  public record LearningSettings<V>(
      Function<Compression, EnvelopeCodec<V>> withCompression,
      Codec<V> codec,
      RedisSession session,
      DictionaryStore store,
      KeptKeys kept,
      String recordKey,
      int samples,
      int dictionarySize,
      Executor executor,
      String owner) {}

  /**
   * A codec that learns its dictionary, or adopts the one already recorded in its hash for its
   * codec (looked up here, blocking; if Redis cannot say, it learns).
   */
  public static <V> WriteCodec<V> learning(LearningSettings<V> settings) {
    EnvelopeCodec<V> standard = settings.withCompression().apply(Compression.standard());
    KeptKey schema = standard.writeSchema().map(settings.kept()::schema).orElse(null);
    WriteCodec<V> codec =
        new WriteCodec<>(
            new Writing<>(standard, null, standard), settings, null, schema, settings.owner());
    requireNonNull(codec.learning).adoptRecorded();
    return codec;
  }

  /**
   * The codec values are written with now: without the dictionary while it is not confirmed in
   * Redis. It reads every value, whatever wrote it.
   */
  public EnvelopeCodec<V> current() {
    return writing.now();
  }

  /**
   * A value encoded for writing. A class, not a record: it holds an array, compared by identity.
   */
  public static final class Encoded {
    private final byte[] bytes;
    private final int payloadSize;

    Encoded(byte[] bytes, int payloadSize) {
      this.bytes = bytes;
      this.payloadSize = payloadSize;
    }

    /** What is stored: the envelope and the payload, compressed when that made it smaller. */
    public byte[] bytes() {
      return bytes;
    }

    /** The payload's size as the codec encoded it, before compression. */
    public int payloadSize() {
      return payloadSize;
    }
  }

  /** Whether this codec is still learning its dictionary. */
  public boolean isLearning() {
    return learning != null && !learning.done;
  }

  /**
   * Encodes a value with the current codec. While learning, its payload is taken as a sample, and
   * when it completes the samples the dictionary is trained in the background.
   */
  public byte[] encode(V value) {
    return encode(value, false).bytes();
  }

  /** {@link #encode}, with the payload's size before compression. */
  public Encoded encodeMeasured(V value) {
    return encode(value, false);
  }

  /**
   * Encodes values written together, in their order. While learning, their payloads are taken as
   * samples, and when they complete the samples the dictionary is trained in this thread before the
   * rest are encoded, so that a large first write is compressed with it too. A single value is
   * encoded as {@link #encode} encodes it.
   *
   * @param context names the value at an index in a failure's context, such as its key
   * @throws StowageException the first value's failure, with its context; the values after it are
   *     not encoded
   */
  public List<byte[]> encodeAll(List<? extends V> values, IntFunction<String> context) {
    List<Encoded> measured = encodeAllMeasured(values, context);
    List<byte[]> encoded = new ArrayList<>(measured.size());
    for (Encoded value : measured) {
      encoded.add(value.bytes());
    }
    return encoded;
  }

  /** {@link #encodeAll}, with each payload's size before compression. */
  public List<Encoded> encodeAllMeasured(List<? extends V> values, IntFunction<String> context) {
    if (!values.isEmpty()) {
      awaitSchema();
    }
    boolean trainHere = values.size() > 1;
    List<Encoded> encoded = new ArrayList<>(values.size());
    for (int i = 0; i < values.size(); i++) {
      try {
        encoded.add(encode(values.get(i), trainHere));
      } catch (StowageException e) {
        throw e.addContext(context.apply(i));
      }
    }
    return encoded;
  }

  /**
   * Encodes a value once: while learning, the payload the codec encodes is both the sample and what
   * is compressed and wrapped.
   */
  private Encoded encode(V value, boolean trainHere) {
    EnvelopeCodec<V> codec = writing.now();
    Codec<V> legacy = legacyWrites;
    if (legacy != null) {
      byte[] bytes = codec.encodeLegacy(legacy, value);
      return new Encoded(bytes, bytes.length);
    }
    if (!trainHere) {
      awaitSchema();
    }
    byte[] payload = codec.encodePayload(value);
    Encoded encoded = new Encoded(codec.wrap(payload), payload.length);
    if (learning == null || learning.done) {
      return encoded;
    }
    List<byte[]> ready = learning.offer(payload);
    if (ready != null) {
      if (trainHere) {
        learning.learn(ready);
      } else {
        Futures.whenDone(
            CompletableFuture.runAsync(() -> learning.learn(ready), learning.settings.executor()),
            (done, failure) -> {
              if (failure != null) {
                LOG.log(
                    System.Logger.Level.WARNING,
                    owner + ": learning a dictionary failed unexpectedly",
                    failure);
              }
            });
      }
    }
    return encoded;
  }

  /**
   * Returns once the schema values are written with is confirmed in Redis (at once, nearly always).
   *
   * @throws dev.stowage.CacheUnavailableException if it is not within the command timeout
   */
  private void awaitSchema() {
    KeptKey kept = schema;
    if (kept != null) {
      kept.awaitForWrite(owner);
    }
  }

  /** The learning state; all of it guarded by {@code this}, but for the volatile flags. */
  private final class Learning {
    private final LearningSettings<V> settings;
    private final byte[] key;
    private final byte[] field;
    private final String keyText;
    private List<byte[]> samples = new ArrayList<>();
    private long sampleBytes;
    private volatile boolean done;
    private boolean training;

    Learning(LearningSettings<V> settings) {
      this.settings = settings;
      this.keyText = settings.recordKey();
      this.key = keyText.getBytes(StandardCharsets.UTF_8);
      this.field = settings.codec().name().getBytes(StandardCharsets.UTF_8);
    }

    private byte[] recorded() {
      RedisSession session = settings.session();
      String what = "HGET " + keyText;
      return session.await(session.call(what, c -> c.hget(key, field)), 1, what);
    }

    /** At build: adopts the dictionary recorded for these values, if Redis holds one. */
    void adoptRecorded() {
      try {
        byte[] recorded = recorded();
        if (recorded != null) {
          adopt(resolve(recorded));
        }
      } catch (StowageException | IllegalStateException e) {
        LOG.log(
            Level.WARNING,
            settings.owner()
                + ": cannot look up a learned dictionary in "
                + keyText
                + " now ("
                + e.getMessage()
                + "); learning one from the values written");
      }
    }

    /**
     * Takes an encoded payload as a sample; returns the samples once they are complete, which the
     * caller then trains on, or null.
     */
    @Nullable List<byte[]> offer(byte[] sample) {
      synchronized (this) {
        if (done || training) {
          return null;
        }
        if (sample.length > 0
            && sample.length <= MAX_SAMPLE_BYTES
            && sampleBytes + sample.length <= MAX_SAMPLES_TOTAL) {
          samples.add(sample);
          sampleBytes += sample.length;
        }
        if (samples.size() < settings.samples()
            && sampleBytes + MAX_SAMPLE_BYTES <= MAX_SAMPLES_TOTAL) {
          return null;
        }
        training = true;
        List<byte[]> ready = samples;
        samples = new ArrayList<>();
        sampleBytes = 0;
        return ready;
      }
    }

    /** Trains, records and adopts a dictionary; on failure, starts sampling again. */
    void learn(List<byte[]> ready) {
      KeptKey trainedKept = null;
      try {
        byte[] recorded = recorded();
        ZstdDictionary chosen;
        if (recorded != null) {
          chosen = resolve(recorded);
        } else {
          long total = 0;
          for (byte[] sample : ready) {
            total += sample.length;
          }
          int size =
              (int)
                  Math.max(
                      ZstdDictionary.MIN_TRAINED_SIZE,
                      Math.min(settings.dictionarySize(), total / 4));
          ZstdDictionary trained = ZstdDictionary.train(ready, size);
          RedisSession session = settings.session();
          // Recorded only once Redis holds it, so that every process that adopts it can read it.
          trainedKept = settings.kept().dictionary(trained);
          if (!trainedKept.awaitConfirmed(session.awaitNanos(2))) {
            String refusal = trainedKept.refusal();
            throw new StowageException(
                "could not save zstd dictionary "
                    + trained.hexId()
                    + " to Redis at "
                    + session.address()
                    + (refusal != null ? ": " + refusal : " in time"));
          }
          String what = "HSETNX " + keyText;
          byte[] hexId = trained.hexId().getBytes(StandardCharsets.US_ASCII);
          session.await(session.call(what, c -> c.hsetnx(key, field, hexId)), 1, what);
          recorded = recorded();
          chosen =
              recorded == null
                      || new String(recorded, StandardCharsets.US_ASCII).equals(trained.hexId())
                  ? trained
                  : resolve(recorded);
        }
        adopt(chosen);
        LOG.log(
            Level.INFO,
            settings.owner()
                + ": values are now compressed with zstd dictionary "
                + chosen.hexId()
                + " ("
                + chosen.size()
                + " bytes), learned from "
                + ready.size()
                + " values and recorded in "
                + keyText);
      } catch (StowageException | IllegalArgumentException | IllegalStateException e) {
        LOG.log(
            Level.WARNING,
            settings.owner()
                + ": no dictionary learned this time ("
                + e.getMessage()
                + "); writing with the standard compression and learning again from the next values");
      } finally {
        if (trainedKept != null) {
          // adopt() keeps it for itself when it writes with it.
          settings.kept().release(trainedKept);
        }
        synchronized (this) {
          training = false;
        }
      }
    }

    private ZstdDictionary resolve(byte[] recordedHexId) {
      String hex = new String(recordedHexId, StandardCharsets.US_ASCII);
      long id;
      try {
        id = Long.parseUnsignedLong(hex, 16);
      } catch (NumberFormatException e) {
        throw new StowageException(keyText + " names dictionary '" + hex + "', which is no hex id");
      }
      return settings.store().resolve(id);
    }

    private void adopt(ZstdDictionary dictionary) {
      KeptKey kept = settings.kept().dictionary(dictionary);
      Writing<V> before = writing;
      writing =
          new Writing<>(
              settings.withCompression().apply(CompressionAccess.zstd(dictionary)),
              kept,
              before.fallback());
      KeptKey replaced = before.dictionary();
      if (replaced != null) {
        settings.kept().release(replaced);
      }
      boolean first = !done;
      done = true;
      if (first) {
        // A restarted Redis has lost the record too: without it, a process starting then would
        // learn a second dictionary. Another process's record is never replaced.
        settings
            .kept()
            .keep(
                "the record of zstd dictionary " + dictionary.hexId() + " in " + keyText,
                "a process that starts learns a dictionary of its own",
                () -> record(dictionary));
      }
    }

    /** Records {@code dictionary} unless a dictionary is recorded; completes once one is. */
    private CompletableFuture<byte[]> record(ZstdDictionary dictionary) {
      RedisSession session = settings.session();
      byte[] hexId = dictionary.hexId().getBytes(StandardCharsets.US_ASCII);
      return session
          .<Boolean>dispatch(c -> c.hsetnx(key, field, hexId))
          .thenCompose(
              set ->
                  Boolean.TRUE.equals(set)
                      ? CompletableFuture.completedFuture(hexId)
                      : session
                          .<byte[]>dispatch(c -> c.hget(key, field))
                          .thenCompose(
                              recorded ->
                                  recorded != null
                                      ? CompletableFuture.<byte[]>completedFuture(recorded)
                                      : record(dictionary)));
    }
  }
}
