package dev.stowage.board;

import dev.stowage.Codec;
import dev.stowage.CodecIds;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.Envelope;
import dev.stowage.EnvelopeCodec;
import dev.stowage.compress.Compression;
import dev.stowage.compress.CompressionIds;
import dev.stowage.compress.DictionaryResolver;
import dev.stowage.compress.ZstdDictionary;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How stowage mode stores a post in the feed: its JSON fragment inside a Stowage {@link Envelope},
 * compressed with zstd and a dictionary trained on the service's own posts once there are enough
 * of them (see {@link #compression()}). Reading gives back the JSON fragment: uncompressed
 * payloads are cut out of the value, compressed ones are decompressed; neither is parsed. Members
 * without an envelope (plain JSON, as the seed modes write) are read as they are.
 *
 * <p>Dictionaries are resolved only from this process's memory, so decoding never waits on Redis;
 * an unknown dictionary id fails the read with {@link DictionaryNotFoundException}, and the caller
 * falls back to the database while the dictionary is loaded. Thread-safe.
 */
public final class FeedFormat {
  /** Size of a trained dictionary. */
  public static final int DICTIONARY_SIZE = 16 * 1024;

  /** What the feed's members are compressed with. */
  public enum Storage {
    /** Enveloped JSON, uncompressed. */
    NONE,
    /** Enveloped JSON, zstd without a dictionary. */
    ZSTD,
    /** Enveloped JSON, zstd with a trained dictionary once there is one (until then, none). */
    ZSTD_DICT;

    /** Parses {@code none}, {@code zstd} or {@code zstd-dict}. */
    public static Storage parse(String text) {
      return switch (text.trim().toLowerCase(Locale.ROOT)) {
        case "none" -> NONE;
        case "zstd" -> ZSTD;
        case "zstd-dict" -> ZSTD_DICT;
        default -> throw new IllegalArgumentException("unknown feed compression '" + text
            + "'; expected none, zstd or zstd-dict");
      };
    }
  }

  private static final Codec<byte[]> JSON_FRAGMENT = new Codec<>() {
    @Override
    public int id() {
      return CodecIds.JSON;
    }

    @Override
    public byte[] encode(byte[] json) {
      return json;
    }

    @Override
    public byte[] decode(byte[] data, int offset, int length) {
      return Arrays.copyOfRange(data, offset, offset + length);
    }
  };

  private final Storage storage;
  private final Map<Long, ZstdDictionary> known = new ConcurrentHashMap<>();
  private final DictionaryResolver inMemory = id -> {
    ZstdDictionary dictionary = known.get(id);
    if (dictionary == null) {
      throw new DictionaryNotFoundException(id);
    }
    return dictionary;
  };
  private volatile EnvelopeCodec<byte[]> codec;
  private volatile ZstdDictionary dictionary;

  public FeedFormat(Storage storage) {
    this.storage = storage;
    this.codec = build(storage == Storage.ZSTD ? Compression.zstd() : Compression.none());
  }

  private EnvelopeCodec<byte[]> build(Compression compression) {
    return EnvelopeCodec.builder(JSON_FRAGMENT).compression(compression).dictionaries(inMemory)
        .legacy(JSON_FRAGMENT).build();
  }

  /** The configured storage. */
  public Storage storage() {
    return storage;
  }

  /** Whether a dictionary should be trained: {@link Storage#ZSTD_DICT} and none in use yet. */
  public boolean needsDictionary() {
    return storage == Storage.ZSTD_DICT && dictionary == null;
  }

  /** The dictionary new members are compressed with, or null. */
  public ZstdDictionary dictionary() {
    return dictionary;
  }

  /** Makes {@code dictionary} readable (and, for {@link Storage#ZSTD_DICT}, the one written). */
  public synchronized void use(ZstdDictionary dictionary) {
    known.put(dictionary.id(), dictionary);
    if (storage == Storage.ZSTD_DICT && this.dictionary == null) {
      this.dictionary = dictionary;
      this.codec = build(Compression.zstd(dictionary));
    }
  }

  /** Makes {@code dictionary} readable without writing with it. */
  public void know(ZstdDictionary dictionary) {
    known.put(dictionary.id(), dictionary);
  }

  /** Trains a dictionary on JSON fragments of posts. */
  public static ZstdDictionary train(List<byte[]> fragments) {
    return ZstdDictionary.train(fragments, DICTIONARY_SIZE);
  }

  /** The member to store for a post's JSON fragment. */
  public byte[] encode(byte[] json) {
    return codec.encode(json);
  }

  /**
   * The JSON fragment inside a member.
   *
   * @throws DictionaryNotFoundException if its dictionary is not known to this process
   * @throws dev.stowage.EnvelopeException if the member is corrupt
   */
  public byte[] decode(byte[] member) {
    if (!Envelope.isEnvelope(member)) {
      return member;
    }
    Envelope.Header header = Envelope.readHeader(member);
    if (header.compressionId() == CompressionIds.NONE && header.codecId() == CodecIds.JSON) {
      return Arrays.copyOfRange(member, header.payloadOffset(), member.length);
    }
    return codec.decode(member);
  }
}
