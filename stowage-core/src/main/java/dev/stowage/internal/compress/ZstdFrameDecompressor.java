package dev.stowage.internal.compress;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdDictDecompress;
import dev.stowage.EnvelopeException;
import dev.stowage.internal.OptionalLibrary;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Reads zstd payloads under a hard output limit: the frame must declare its content size, the size
 * is checked against the limit before the output is allocated, decompression writes into exactly
 * that many bytes, and the produced length must equal the declared one. Digested dictionaries are
 * cached by id for the life of this object. Load this class only after {@link OptionalLibrary#ZSTD}
 * is present. Thread-safe.
 */
public final class ZstdFrameDecompressor {
  private final ContextPool<ZstdDecompressCtx> plainContexts =
      new ContextPool<>(ZstdDecompressCtx::new, ZstdDecompressCtx::close);

  /** Per dictionary: its digested form, and contexts that reference it from their creation. */
  private final ConcurrentMap<Long, DictionaryContexts> digested = new ConcurrentHashMap<>();

  /**
   * A digested dictionary and pools of contexts with it loaded once, not at every call: one for
   * frames with zstd's magic number, one for frames without it.
   */
  private static final class DictionaryContexts {
    // Never read: the reference keeps the native dictionary alive as long as the contexts that
    // loaded it, which zstd-jni frees when its ZstdDictDecompress is collected.
    @SuppressWarnings("UnusedVariable")
    final ZstdDictDecompress dictionary;

    final ContextPool<ZstdDecompressCtx> contexts;
    final ContextPool<ZstdDecompressCtx> magiclessContexts;

    DictionaryContexts(ZstdDictDecompress dictionary) {
      this.dictionary = dictionary;
      this.contexts = pool(dictionary, false);
      this.magiclessContexts = pool(dictionary, true);
    }

    private static ContextPool<ZstdDecompressCtx> pool(
        ZstdDictDecompress dictionary, boolean magicless) {
      return new ContextPool<>(
          () -> {
            ZstdDecompressCtx context = new ZstdDecompressCtx();
            context.setMagicless(magicless);
            context.loadDict(dictionary);
            return context;
          },
          ZstdDecompressCtx::close);
    }
  }

  /** Whether the digested form of dictionary {@code id} is already cached. */
  public boolean hasDictionary(long id) {
    return digested.containsKey(id);
  }

  /** Caches the digested form of a dictionary, unless it already is. */
  public void addDictionary(ZstdDictionary dictionary) {
    digested.computeIfAbsent(
        dictionary.id(), id -> new DictionaryContexts(new ZstdDictDecompress(dictionary.bytes())));
  }

  /**
   * The content size the frame at {@code offset} declares.
   *
   * @throws EnvelopeException if the frame is empty or corrupt, lacks its content size, or declares
   *     more than {@code maxDecodedSize}
   */
  public static long declaredSize(byte[] source, int offset, int length, int maxDecodedSize) {
    return declaredSize(source, offset, length, maxDecodedSize, false);
  }

  /**
   * The content size the frame at {@code offset} declares; a magicless frame is one written without
   * zstd's 4-byte magic number.
   *
   * @throws EnvelopeException if the frame is empty or corrupt, lacks its content size, or declares
   *     more than {@code maxDecodedSize}
   */
  public static long declaredSize(
      byte[] source, int offset, int length, int maxDecodedSize, boolean magicless) {
    if (length == 0) {
      throw new EnvelopeException("empty zstd payload");
    }
    long declared;
    try {
      declared = Zstd.getFrameContentSize(source, offset, length, magicless);
    } catch (RuntimeException e) {
      throw new EnvelopeException("corrupt zstd frame header: " + e.getMessage(), e);
    }
    if (declared == -1) {
      throw new EnvelopeException(
          "zstd frame does not declare its content size; Stowage writes it and requires it");
    }
    if (declared < 0) {
      throw new EnvelopeException("not a zstd frame: " + Zstd.getErrorName(declared));
    }
    if (declared > maxDecodedSize) {
      throw new EnvelopeException(
          "zstd payload declares "
              + declared
              + " bytes, more than maxDecodedSize "
              + maxDecodedSize);
    }
    return declared;
  }

  /**
   * Decompresses a frame, with the cached dictionary {@code dictionaryId} or -1 for none.
   *
   * @throws EnvelopeException if the frame is corrupt, lacks its content size, declares more than
   *     {@code maxDecodedSize}, or decodes to another size than it declares
   * @throws IllegalStateException if a dictionary id is given that was not added first
   */
  public byte[] decompress(
      byte[] source, int offset, int length, int maxDecodedSize, long dictionaryId) {
    return decompress(source, offset, length, maxDecodedSize, dictionaryId, false);
  }

  /**
   * As {@link #decompress(byte[], int, int, int, long)}, for a frame with zstd's magic number or,
   * with a dictionary, one without it.
   *
   * @throws IllegalArgumentException if a magicless frame is given without a dictionary
   */
  public byte[] decompress(
      byte[] source,
      int offset,
      int length,
      int maxDecodedSize,
      long dictionaryId,
      boolean magicless) {
    return decompressDeclared(
        source,
        offset,
        length,
        (int) declaredSize(source, offset, length, maxDecodedSize, magicless),
        dictionaryId,
        magicless);
  }

  /**
   * Decompresses a frame whose content size {@link #declaredSize} returned already, with the cached
   * dictionary {@code dictionaryId} or -1 for none, into an array of exactly that size.
   *
   * @throws EnvelopeException if the frame is corrupt or decodes to another size than {@code
   *     declared}
   * @throws IllegalStateException if a dictionary id is given that was not added first
   */
  public byte[] decompressDeclared(
      byte[] source, int offset, int length, int declared, long dictionaryId) {
    return decompressDeclared(source, offset, length, declared, dictionaryId, false);
  }

  /**
   * As {@link #decompressDeclared(byte[], int, int, int, long)}, for a frame with zstd's magic
   * number or, with a dictionary, one without it.
   *
   * @throws IllegalArgumentException if a magicless frame is given without a dictionary
   */
  public byte[] decompressDeclared(
      byte[] source, int offset, int length, int declared, long dictionaryId, boolean magicless) {
    ContextPool<ZstdDecompressCtx> pool = plainContexts;
    if (dictionaryId >= 0) {
      DictionaryContexts dictionary = digested.get(dictionaryId);
      if (dictionary == null) {
        throw new IllegalStateException("dictionary " + dictionaryId + " was not added");
      }
      pool = magicless ? dictionary.magiclessContexts : dictionary.contexts;
    } else if (magicless) {
      throw new IllegalArgumentException("magicless zstd frames are read only with a dictionary");
    }
    ZstdDecompressCtx context = pool.take();
    byte[] out = new byte[declared];
    int produced;
    try {
      produced = context.decompressByteArray(out, 0, out.length, source, offset, length);
    } catch (RuntimeException e) {
      pool.discard(context);
      throw new EnvelopeException(
          "corrupt zstd payload: " + e.getMessage() + " (declared content size " + declared + ")",
          e);
    }
    pool.give(context);
    if (produced != declared) {
      throw new EnvelopeException(
          "zstd payload decoded to " + produced + " bytes but declares " + declared);
    }
    return out;
  }
}
