package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.Codec;
import dev.stowage.EnvelopeCodec;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.compress.DictionaryStore;
import dev.stowage.compress.ZstdDictionary;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;

/**
 * The codec options that caches and feeds share, collected by their builders and turned into an
 * {@link EnvelopeCodec} at {@code build()}. Not thread-safe, like the builders.
 *
 * @param <V> the type of the values
 */
public final class CodecSettings<V> {
  private final Class<V> type;
  private Codec<V> codec;
  private Compression compression;
  private ZstdDictionary dictionary;
  private Collection<? extends V> trainingSamples;
  private int dictionarySize;
  private final List<Codec<V>> alsoRead = new ArrayList<>();
  private Codec<V> legacy;

  public CodecSettings(Class<V> type) {
    this.type = requireNonNull(type, "type");
  }

  public Class<V> type() {
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

  /**
   * Builds the envelope codec, reading dictionaries through {@code store}. A dictionary, given or
   * trained here, goes to {@code saveDictionary}, which stores it where other processes find it;
   * {@code owner} names the cache or feed in messages.
   *
   * @throws IllegalArgumentException if both a compression and a dictionary are set
   */
  public EnvelopeCodec<V> build(DictionaryStore store, Consumer<ZstdDictionary> saveDictionary, String owner) {
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
    Compression writeCompression = compression;
    if (chosen != null) {
      saveDictionary.accept(chosen);
      writeCompression = Compression.zstd(chosen);
    } else if (writeCompression == null) {
      writeCompression = Compression.standard();
    }
    EnvelopeCodec.Builder<V> builder = EnvelopeCodec.builder(writeCodec)
        .compression(writeCompression)
        .dictionaries(store);
    for (Codec<V> reader : alsoRead) {
      builder.alsoRead(reader);
    }
    if (legacy != null) {
      builder.legacy(legacy);
    }
    return builder.build();
  }
}
