package dev.stowage.internal.compress;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import dev.stowage.StowageException;
import dev.stowage.compress.CompressionIds;
import dev.stowage.compress.ZstdDictionary;
import org.jspecify.annotations.Nullable;

/**
 * Writes one zstd frame per payload, with its content size and without a checksum or zstd's own
 * dictionary id (the envelope carries the id). With a dictionary, its digested form is built once
 * and shared by every context. Load this class only after {@link OptionalLibrary#ZSTD} is present.
 * Thread-safe.
 */
public final class ZstdFrameCompressor implements PayloadCompressor {
  private final int level;
  private final @Nullable ZstdDictionary dictionary;
  private final @Nullable ZstdDictCompress digestedDictionary;
  private final ContextPool<ZstdCompressCtx> contexts;

  /**
   * @param dictionary the dictionary, or {@code null} for plain zstd
   */
  public ZstdFrameCompressor(int level, @Nullable ZstdDictionary dictionary) {
    this.level = level;
    this.dictionary = dictionary;
    this.digestedDictionary = dictionary == null ? null : new ZstdDictCompress(dictionary.bytes(), level);
    this.contexts = new ContextPool<>(this::newContext, ZstdCompressCtx::close);
  }

  private ZstdCompressCtx newContext() {
    ZstdCompressCtx context = new ZstdCompressCtx();
    context.setLevel(level);
    context.setChecksum(false);
    context.setContentSize(true);
    context.setDictID(false);
    if (digestedDictionary != null) {
      context.loadDict(digestedDictionary);
    }
    return context;
  }

  @Override
  public int compressionId() {
    return dictionary == null ? CompressionIds.ZSTD : CompressionIds.ZSTD_DICT;
  }

  @Override
  public long dictionaryId() {
    return dictionary == null ? -1 : dictionary.id();
  }

  @Override
  public byte[] compress(byte[] data) {
    ZstdCompressCtx context = contexts.take();
    byte[] frame;
    try {
      frame = context.compress(data);
    } catch (RuntimeException e) {
      contexts.discard(context);
      throw new StowageException("zstd compression failed: " + e.getMessage(), e);
    }
    contexts.give(context);
    return frame;
  }
}
