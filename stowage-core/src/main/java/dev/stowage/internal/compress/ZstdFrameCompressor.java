package dev.stowage.internal.compress;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import dev.stowage.StowageException;
import dev.stowage.internal.OptionalLibrary;
import dev.stowage.internal.format.CompressionIds;
import org.jspecify.annotations.Nullable;

/**
 * Writes one zstd frame per payload, with its content size and without a checksum or zstd's own
 * dictionary id (the envelope carries the id); with a dictionary, optionally without the frame's
 * 4-byte magic number (zstd's magicless format, {@link CompressionIds#ZSTD_DICT_MAGICLESS}). With a
 * dictionary, its digested form is built once and shared by every context. Each pooled context
 * comes with a buffer of its own that frames are written into, so a frame is copied once, into the
 * array that is stored. Load this class only after {@link OptionalLibrary#ZSTD} is present.
 * Thread-safe.
 */
public final class ZstdFrameCompressor implements PayloadCompressor {
  /**
   * A context's buffer grows to fit the frames it writes, and is dropped after one larger than
   * this.
   */
  static final int MAX_KEPT_BUFFER = 64 * 1024;

  private final int level;
  private final boolean magicless;
  private final @Nullable ZstdDictionary dictionary;
  private final @Nullable ZstdDictCompress digestedDictionary;
  private final ContextPool<Worker> workers;

  /** A context and the buffer it writes into; used by one thread at a time. */
  private static final class Worker {
    final ZstdCompressCtx context;
    byte[] buffer = new byte[0];

    Worker(ZstdCompressCtx context) {
      this.context = context;
    }

    /**
     * Compresses {@code data} into {@link #buffer}, grown first if needed, and returns the frame's
     * size.
     */
    int compress(byte[] data) {
      int bound = (int) Math.min(Zstd.compressBound(data.length), Integer.MAX_VALUE - 16);
      if (buffer.length < bound) {
        buffer = new byte[bound];
      }
      return context.compressByteArray(buffer, 0, buffer.length, data, 0, data.length);
    }

    void close() {
      context.close();
    }
  }

  /**
   * @param dictionary the dictionary, or {@code null} for plain zstd
   */
  public ZstdFrameCompressor(int level, @Nullable ZstdDictionary dictionary) {
    this(level, dictionary, false);
  }

  /**
   * @param dictionary the dictionary, or {@code null} for plain zstd
   * @param magicless whether frames are written without zstd's magic number; only with a dictionary
   * @throws IllegalArgumentException if {@code magicless} is asked without a dictionary
   */
  public ZstdFrameCompressor(int level, @Nullable ZstdDictionary dictionary, boolean magicless) {
    if (magicless && dictionary == null) {
      throw new IllegalArgumentException(
          "magicless zstd frames have a compression id only with a dictionary");
    }
    this.level = level;
    this.magicless = magicless;
    this.dictionary = dictionary;
    this.digestedDictionary =
        dictionary == null ? null : new ZstdDictCompress(dictionary.bytes(), level);
    this.workers = new ContextPool<>(this::newWorker, Worker::close);
  }

  private Worker newWorker() {
    ZstdCompressCtx context = new ZstdCompressCtx();
    context.setLevel(level);
    context.setChecksum(false);
    context.setContentSize(true);
    context.setDictID(false);
    context.setMagicless(magicless);
    if (digestedDictionary != null) {
      context.loadDict(digestedDictionary);
    }
    return new Worker(context);
  }

  @Override
  public int compressionId() {
    if (dictionary == null) {
      return CompressionIds.ZSTD;
    }
    return magicless ? CompressionIds.ZSTD_DICT_MAGICLESS : CompressionIds.ZSTD_DICT;
  }

  @Override
  public long dictionaryId() {
    return dictionary == null ? -1 : dictionary.id();
  }

  @Override
  public byte[] compress(byte[] data) {
    byte[] frame = compressAfter(0, data, Integer.MAX_VALUE);
    if (frame == null) {
      throw new IllegalStateException("a zstd frame cannot be longer than Integer.MAX_VALUE bytes");
    }
    return frame;
  }

  @Override
  public byte @Nullable [] compressAfter(int room, byte[] data, int limit) {
    Worker worker = workers.take();
    byte[] out = null;
    try {
      int size = worker.compress(data);
      if (size < limit) {
        out = new byte[room + size];
        System.arraycopy(worker.buffer, 0, out, room, size);
      }
    } catch (RuntimeException e) {
      workers.discard(worker);
      throw new StowageException("zstd compression failed: " + e.getMessage(), e);
    }
    if (worker.buffer.length > MAX_KEPT_BUFFER) {
      worker.buffer = new byte[0];
    }
    workers.give(worker);
    return out;
  }

  /** How many contexts wait idle for reuse; for tests. */
  int idleContexts() {
    return workers.idleCount();
  }
}
