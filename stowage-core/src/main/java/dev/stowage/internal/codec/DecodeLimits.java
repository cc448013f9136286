package dev.stowage.internal.codec;

import org.jspecify.annotations.Nullable;

/**
 * What one decode may build, derived from the reader's {@code maxDecodedSize}: at most {@code
 * maxDecodedSize / }{@value #BYTES_PER_ELEMENT} elements (every value, container or scalar, and
 * every map key; never fewer than {@value #MIN_ELEMENTS}), and string and binary bytes up to {@code
 * maxDecodedSize}. A payload within {@code maxDecodedSize} can still build far more heap than its
 * size (a one-letter string takes 2 bytes of MessagePack and about 60 of heap), so codecs count
 * while, or before, they build, and refuse a value past the limits.
 *
 * <p>The heap a decode builds is estimated from those counts ({@value #HEAP_PER_ELEMENT} bytes an
 * element, {@value #HEAP_PER_STRING_BYTE} a string byte) and, when it reaches {@value
 * #CHARGE_THRESHOLD} bytes, {@linkplain Scope#charge charged} to the reader's decompression budget
 * until the decode ends, so that many threads decoding large values at once wait for each other
 * instead of multiplying the heap. Values of kilobytes never touch the budget.
 *
 * <p>An {@link dev.stowage.internal.envelope.EnvelopeCodec} opens a {@link Scope} on the decoding
 * thread for the codec's decode; the codecs read it there, so that a codec wrapping another one
 * (Spring's class-naming codec around msgpack) is bounded as well without the {@code Codec}
 * interface knowing. A codec decoding outside any scope gets {@link #DEFAULT}: the limits of an
 * {@code EnvelopeCodec} with default settings, and no budget.
 *
 * <p>Part of the internal API: it may change without notice. Instances are immutable and
 * thread-safe; a {@link Scope} belongs to one thread.
 */
public final class DecodeLimits {
  /** A value may hold one element per this many bytes of {@code maxDecodedSize}. */
  public static final int BYTES_PER_ELEMENT = 8;

  /** The fewest elements a value may hold, however small {@code maxDecodedSize} is. */
  public static final int MIN_ELEMENTS = 4096;

  /**
   * The heap an element is estimated to take: a string, boxed number or empty container and its
   * reference.
   */
  public static final long HEAP_PER_ELEMENT = 64;

  /** The heap a byte of string or binary is estimated to take, with the parser's buffers. */
  public static final long HEAP_PER_STRING_BYTE = 2;

  /** Estimates below this are not charged to the budget. */
  public static final long CHARGE_THRESHOLD = 64 * 1024;

  /**
   * The default limit on a value's decoded size for a decoder that sets none: 64 MiB. Caches and
   * feeds set a smaller one, {@link dev.stowage.Encoding#DEFAULT_MAX_DECODED_SIZE}.
   */
  public static final int DEFAULT_MAX_DECODED_SIZE = 64 * 1024 * 1024;

  /** The limits outside any scope: {@link #DEFAULT_MAX_DECODED_SIZE}, no budget. */
  public static final DecodeLimits DEFAULT = new DecodeLimits(DEFAULT_MAX_DECODED_SIZE, null);

  private static final ThreadLocal<Scope> SCOPES = ThreadLocal.withInitial(Scope::new);

  private final int maxDecodedSize;
  private final long maxElements;
  private final @Nullable Budget budget;

  private DecodeLimits(int maxDecodedSize, @Nullable Budget budget) {
    this.maxDecodedSize = maxDecodedSize;
    this.maxElements = Math.max(MIN_ELEMENTS, maxDecodedSize / BYTES_PER_ELEMENT);
    this.budget = budget;
  }

  /**
   * The limits of a reader with {@code maxDecodedSize}, whose large decodes are charged to {@code
   * budget}.
   */
  public static DecodeLimits of(int maxDecodedSize, Budget budget) {
    return new DecodeLimits(maxDecodedSize, budget);
  }

  /** Where a decode's estimated heap is charged: a reader's decompression budget. */
  @FunctionalInterface
  public interface Budget {
    /**
     * Takes {@code extra} more bytes for a decode that holds {@code held} already, waiting for them
     * as the budget does, and then holds {@code held + extra}.
     *
     * @throws dev.stowage.StowageException if they did not come free in time
     */
    void grow(long held, long extra);
  }

  /** The most elements a value may hold. */
  public long maxElements() {
    return maxElements;
  }

  /** The most string and binary bytes a value may hold. */
  public long maxStringBytes() {
    return maxDecodedSize;
  }

  /** The reader's {@code maxDecodedSize} these limits derive from. */
  public int maxDecodedSize() {
    return maxDecodedSize;
  }

  /**
   * The heap estimated for a value of {@code elements} elements and {@code stringBytes} string and
   * binary bytes.
   */
  public static long heapEstimate(long elements, long stringBytes) {
    return elements * HEAP_PER_ELEMENT + stringBytes * HEAP_PER_STRING_BYTE;
  }

  /** Why a value of {@code elements} elements is refused: names the limit and how to raise it. */
  String tooManyElements(String counted) {
    return counted
        + ", more than the "
        + maxElements
        + " elements a value may hold at maxDecodedSize "
        + maxDecodedSize
        + " (one per "
        + BYTES_PER_ELEMENT
        + " bytes; Encoding.maxDecodedSize raises it)";
  }

  /**
   * Why a value of {@code stringBytes} string bytes is refused: names the limit and how to raise
   * it.
   */
  String tooManyStringBytes(String counted) {
    return counted
        + ", more than the "
        + maxDecodedSize
        + " string and binary bytes a value may hold at"
        + " maxDecodedSize "
        + maxDecodedSize
        + " (Encoding.maxDecodedSize raises it)";
  }

  /**
   * The scope of the decode running on this thread; its limits are {@link #DEFAULT} outside any.
   */
  public static Scope scope() {
    return SCOPES.get();
  }

  @Override
  public String toString() {
    return "DecodeLimits[" + maxElements + " elements, " + maxDecodedSize + " string bytes]";
  }

  /**
   * The decode running on one thread: its limits, and the budget bytes it holds (its decompressed
   * payload's, then what codecs {@linkplain #charge charged}). {@link
   * dev.stowage.internal.envelope.EnvelopeCodec} {@linkplain #enter enters} it around a codec's
   * decode, keeping what it replaced, and restores that afterwards, giving back what {@link
   * #held()} says then. Not thread-safe: it belongs to its thread.
   */
  public static final class Scope {
    private @Nullable DecodeLimits limits;
    private long held;

    private Scope() {}

    /** The limits of the running decode, or null outside any. */
    public @Nullable DecodeLimits entered() {
      return limits;
    }

    /** The limits of the running decode, or {@link DecodeLimits#DEFAULT}. */
    public DecodeLimits limits() {
      DecodeLimits current = limits;
      return current == null ? DEFAULT : current;
    }

    /** The budget bytes the running decode holds. */
    public long held() {
      return held;
    }

    /** Starts a decode with {@code limits} (null: none) that holds {@code held} budget bytes. */
    public void enter(@Nullable DecodeLimits limits, long held) {
      this.limits = limits;
      this.held = held;
    }

    /**
     * Charges {@code heapEstimate} bytes to the running decode's budget, when there is one and the
     * estimate reaches {@link DecodeLimits#CHARGE_THRESHOLD}; the scope's owner gives them back
     * when the decode ends.
     *
     * @throws dev.stowage.StowageException if the budget had no room in time
     */
    public void charge(long heapEstimate) {
      DecodeLimits current = limits;
      if (current == null || current.budget == null || heapEstimate < CHARGE_THRESHOLD) {
        return;
      }
      current.budget.grow(held, heapEstimate);
      held += heapEstimate;
    }
  }
}
