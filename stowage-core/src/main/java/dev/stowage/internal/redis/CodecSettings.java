package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import dev.stowage.DecompressionBudget;
import dev.stowage.EnvelopeCodec;
import dev.stowage.RedisCache;
import dev.stowage.SchemaResolver;
import dev.stowage.TypeRef;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.compress.DictionaryStore;
import dev.stowage.compress.ZstdDictionary;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The codec options that caches and feeds share, collected by their builders and turned into an
 * {@link EnvelopeCodec} at {@code build()}. Not thread-safe, like the builders.
 *
 * @param <V> the type of the values
 */
public final class CodecSettings<V> {
  private final TypeRef<V> type;
  private @Nullable Codec<V> codec;
  private @Nullable Compression compression;
  private @Nullable ZstdDictionary dictionary;
  private @Nullable Collection<? extends V> trainingSamples;
  private int dictionarySize;
  private final List<Codec<V>> alsoRead = new ArrayList<>();
  private @Nullable Codec<V> legacy;
  private int learningSamples = DEFAULT_LEARNING_SAMPLES;
  private int learnedDictionarySize = DEFAULT_LEARNED_DICTIONARY_SIZE;
  private int maxDecodedSize = RedisCache.DEFAULT_MAX_DECODED_SIZE;
  private DecompressionBudget budget = DecompressionBudget.shared();

  /** Values sampled before a dictionary is learned, unless the builder says otherwise. */
  public static final int DEFAULT_LEARNING_SAMPLES = 1000;
  /** The learned dictionary's size, unless the builder says otherwise: 64 KiB. */
  public static final int DEFAULT_LEARNED_DICTIONARY_SIZE = 64 * 1024;
  /** The most values a dictionary is learned from. */
  public static final int MAX_LEARNING_SAMPLES = 100_000;

  public CodecSettings(TypeRef<V> type) {
    this.type = requireNonNull(type, "type");
  }

  public TypeRef<V> type() {
    return type;
  }

  public void codec(Codec<V> codec) {
    this.codec = requireNonNull(codec, "codec");
  }

  public void compression(Compression compression) {
    this.compression = requireNonNull(compression, "compression");
  }

  public void dictionary(ZstdDictionary dictionary) {
    this.dictionary = requireNonNull(dictionary, "dictionary");
    this.trainingSamples = null;
  }

  public void trainDictionary(Collection<? extends V> samples, int dictionarySize) {
    requireNonNull(samples, "samples");
    if (dictionarySize < ZstdDictionary.MIN_TRAINED_SIZE) {
      throw new IllegalArgumentException("dictionarySize must be at least " + ZstdDictionary.MIN_TRAINED_SIZE
          + " bytes, got " + dictionarySize);
    }
    this.trainingSamples = List.copyOf(samples);
    this.dictionarySize = dictionarySize;
    this.dictionary = null;
  }

  public void alsoRead(List<Codec<V>> readers) {
    for (Codec<V> reader : readers) {
      alsoRead.add(requireNonNull(reader, "alsoRead contains null"));
    }
  }

  public void legacy(Codec<V> legacyCodec) {
    this.legacy = requireNonNull(legacyCodec, "legacy");
  }

  /** The largest decoded payload read or written; validated at {@link #build}. */
  public void maxDecodedSize(int maxDecodedSize) {
    this.maxDecodedSize = maxDecodedSize;
  }

  /** The budget compressed payloads are decompressed within. */
  public void decompressionBudget(DecompressionBudget budget) {
    this.budget = requireNonNull(budget, "budget");
  }

  /**
   * How the default compression learns its dictionary.
   *
   * @throws IllegalArgumentException if {@code samples} is outside {@link ZstdDictionary#MIN_SAMPLES}
   *     to {@link #MAX_LEARNING_SAMPLES}, or {@code dictionarySize} below
   *     {@link ZstdDictionary#MIN_TRAINED_SIZE}
   */
  public void learnDictionary(int samples, int dictionarySize) {
    if (samples < ZstdDictionary.MIN_SAMPLES || samples > MAX_LEARNING_SAMPLES) {
      throw new IllegalArgumentException("samples must be " + ZstdDictionary.MIN_SAMPLES + " to "
          + MAX_LEARNING_SAMPLES + ", got " + samples);
    }
    if (dictionarySize < ZstdDictionary.MIN_TRAINED_SIZE) {
      throw new IllegalArgumentException("dictionarySize must be at least " + ZstdDictionary.MIN_TRAINED_SIZE
          + " bytes, got " + dictionarySize);
    }
    this.learningSamples = samples;
    this.learnedDictionarySize = dictionarySize;
  }

  /**
   * Where a learning codec records its dictionary and how it saves one; see {@link WriteCodec}.
   *
   * @param recordKey the hash that records the learned dictionary, such as
   *     {@link dev.stowage.StowageKeys#learnedByCache}'s
   */
  public record Learning(RedisSession session, Consumer<ZstdDictionary> use, Executor executor, String recordKey) {}

  /**
   * Builds the write codec, reading dictionaries through {@code store} and the writer schemas of
   * values written with another shape through {@code schemas}. A dictionary, given or
   * trained here, goes to {@code learning.use()}, which stores it where other processes find it.
   * With no compression, dictionary or training set, the codec learns its dictionary from the
   * values written ({@link WriteCodec}); {@code owner} names the cache or feed in messages.
   *
   * @throws IllegalArgumentException if both a compression and a dictionary are set, or
   *     maxDecodedSize is below 1
   */
  public WriteCodec<V> build(DictionaryStore store, SchemaResolver schemas, Learning learning, String owner) {
    if (maxDecodedSize < 1) {
      throw new IllegalArgumentException(owner + ": maxDecodedSize must be at least 1 byte, got " + maxDecodedSize);
    }
    Codec<V> writeCodec = codec != null ? codec : Codecs.defaultFor(type);
    ZstdDictionary chosen = dictionary;
    if (trainingSamples != null) {
      List<byte[]> encoded = new ArrayList<>(trainingSamples.size());
      for (V sample : trainingSamples) {
        encoded.add(writeCodec.encode(requireNonNull(sample, "training samples contain null")));
      }
      chosen = ZstdDictionary.train(encoded, dictionarySize);
    }
    if (chosen != null && compression != null) {
      throw new IllegalArgumentException(owner + ": set either compression(...) or a dictionary, not both;"
          + " a dictionary implies Compression.zstd(dictionary)");
    }
    Function<Compression, EnvelopeCodec<V>> withCompression = writeCompression -> {
      EnvelopeCodec.Builder<V> builder = EnvelopeCodec.builder(writeCodec)
          .compression(writeCompression)
          .dictionaries(store)
          .schemas(schemas)
          .maxDecodedSize(maxDecodedSize)
          .decompressionBudget(budget);
      for (Codec<V> reader : alsoRead) {
        builder.alsoRead(reader);
      }
      if (legacy != null) {
        builder.legacy(legacy);
      }
      return builder.build();
    };
    if (chosen != null) {
      learning.use().accept(chosen);
      return WriteCodec.fixed(withCompression.apply(Compression.zstd(chosen)));
    }
    if (compression != null) {
      return WriteCodec.fixed(withCompression.apply(compression));
    }
    return WriteCodec.learning(new WriteCodec.LearningSettings<>(withCompression, writeCodec, learning.session(),
        store, learning.recordKey(), learningSamples, learnedDictionarySize, learning.use(), learning.executor(), owner));
  }
}
