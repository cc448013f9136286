package dev.stowage.internal.envelope;

import static java.util.Objects.requireNonNull;

import dev.stowage.AsyncRedisCache;
import dev.stowage.EnvelopeException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A limit on the bytes that decompressed payloads hold at once, across every {@link EnvelopeCodec}
 * that shares it. {@link EnvelopeCodecBuilder#maxDecodedSize(int) maxDecodedSize} bounds one value;
 * this bounds them together, so that many threads reading values that decompress to the limit (a 2
 * KB zstd frame can declare 8 MiB of zeros) cannot multiply it.
 *
 * <p>A read takes its payload's declared size from the budget before the payload is allocated, and
 * gives it back once the codec has decoded it. A codec that builds many objects takes their
 * estimated heap as well while it decodes (the MessagePack and JSON codecs: 64 bytes an element and
 * 2 a string byte, once that is 64 KiB or more; values of kilobytes never take any), since a
 * payload within {@code maxDecodedSize} can build thirty times its size. When the budget is short a
 * read waits, at most {@linkplain #maxWait() its wait}, for other reads to finish, and then fails
 * with an {@link EnvelopeException} (a cache counts that value as a decode failure, read as a
 * miss). A read that needs more than the whole budget waits until the budget is unused and then
 * goes alone. The payload of a value stored without compression is not counted (it is the value
 * already in memory), but what its codec builds is.
 *
 * <p><b>Warning:</b> {@link AsyncRedisCache} decodes a value on Lettuce's I/O thread when it
 * arrives there, so a read waiting for budget holds up that connection meanwhile; keep the budget
 * well above what the reads you expect at once decompress to.
 *
 * <p>{@link #shared()} is the budget of every codec, cache and feed not given another. Thread-safe.
 */
public final class DecompressionBudget {
  /**
   * The shared budget's size, 64 MiB: eight values at a cache's default limit ({@link
   * dev.stowage.Encoding#DEFAULT_MAX_DECODED_SIZE}, 8 MiB) at once, while values of kilobytes, the
   * usual cache value, never wait.
   */
  public static final long DEFAULT_BYTES = 64L * 1024 * 1024;

  /**
   * How long a read waits for budget unless {@link #of(long, Duration)} says otherwise: one second.
   */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(1);

  private static final DecompressionBudget SHARED =
      new DecompressionBudget(DEFAULT_BYTES, DEFAULT_MAX_WAIT);

  private final long bytes;
  private final Duration maxWait;
  private final long maxWaitNanos;
  private long inUse; // guarded by this

  private DecompressionBudget(long bytes, Duration maxWait) {
    this.bytes = bytes;
    this.maxWait = maxWait;
    this.maxWaitNanos = maxWait.toNanos();
  }

  /** The budget of this JVM: {@link #DEFAULT_BYTES}, and {@link #DEFAULT_MAX_WAIT} of waiting. */
  public static DecompressionBudget shared() {
    return SHARED;
  }

  /**
   * A budget of its own, of {@code bytes}, with {@link #DEFAULT_MAX_WAIT} of waiting.
   *
   * @throws IllegalArgumentException if {@code bytes} is below 1
   */
  public static DecompressionBudget of(long bytes) {
    return of(bytes, DEFAULT_MAX_WAIT);
  }

  /**
   * A budget of its own, of {@code bytes}, for which a read waits at most {@code maxWait}.
   *
   * @throws IllegalArgumentException if {@code bytes} is below 1, or {@code maxWait} negative or
   *     over a day
   */
  public static DecompressionBudget of(long bytes, Duration maxWait) {
    requireNonNull(maxWait, "maxWait");
    if (bytes < 1) {
      throw new IllegalArgumentException(
          "a decompression budget must be at least 1 byte, got " + bytes);
    }
    if (maxWait.isNegative() || maxWait.compareTo(Duration.ofDays(1)) > 0) {
      throw new IllegalArgumentException("maxWait must be from 0 to a day, got " + maxWait);
    }
    return new DecompressionBudget(bytes, maxWait);
  }

  /** The budget's size in bytes. */
  public long bytes() {
    return bytes;
  }

  /** How long a read waits for budget before it fails. */
  public Duration maxWait() {
    return maxWait;
  }

  /**
   * The bytes taken now by payloads being decompressed and decoded, and the objects decoded from
   * them.
   */
  public synchronized long inUse() {
    return inUse;
  }

  /**
   * Takes {@code amount} bytes, waiting for them at most {@link #maxWait()}; more than the whole
   * budget is taken only while nothing else is.
   *
   * @throws EnvelopeException if the bytes did not come free in time, or the thread was interrupted
   */
  synchronized void acquire(long amount) {
    take(amount, "the payload declares " + amount + " bytes");
  }

  /**
   * Takes {@code extra} bytes more for a read that holds {@code held} already: the heap its codec
   * estimates it will build. When they are not free at once, the read gives back what it holds
   * while it waits for the whole {@code held + extra} (so that reads holding bytes never wait for
   * each other), at most {@link #maxWait()}. It holds {@code held + extra} afterwards, and {@code
   * held} still when it fails.
   *
   * @throws EnvelopeException if the bytes did not come free in time, or the thread was interrupted
   */
  synchronized void grow(long held, long extra) {
    if (inUse + extra <= bytes) {
      inUse += extra;
      return;
    }
    inUse -= held;
    notifyAll();
    try {
      take(held + extra, "decoding the value would build about " + extra + " bytes of objects");
    } catch (EnvelopeException e) {
      inUse += held;
      throw e;
    }
  }

  private void take(long amount, String what) {
    long deadline = System.nanoTime() + maxWaitNanos;
    while (!fits(amount)) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new EnvelopeException(
            what
                + " and the decompression budget of "
                + bytes
                + " bytes had "
                + Math.max(0, bytes - inUse)
                + " free for "
                + maxWait.toMillis()
                + " ms: other reads were decoding");
      }
      try {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new EnvelopeException(
            "interrupted while waiting for " + amount + " bytes of the decompression budget");
      }
    }
    inUse += amount;
  }

  private boolean fits(long amount) {
    return amount > bytes ? inUse == 0 : inUse + amount <= bytes;
  }

  /** Gives back bytes taken by {@link #acquire}. */
  synchronized void release(long amount) {
    inUse -= amount;
    notifyAll();
  }

  @Override
  public String toString() {
    return "DecompressionBudget["
        + bytes
        + " bytes, "
        + inUse()
        + " in use, wait "
        + maxWait.toMillis()
        + " ms]";
  }
}
