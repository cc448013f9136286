package dev.stowage.bench.codecs;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What {@link CodecBenchmark} counts besides its score, reported by JMH as secondary results: the
 * nanoseconds spent in each phase, the records processed, and the bytes they encoded to (and would
 * deflate to). Dividing a counter by {@link #records} gives the value per record.
 *
 * <p>JMH reads the public fields at the end of each iteration; they are reset before each one.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class PhaseCounters {
  /** The name of the create-phase counter. */
  static final String CREATE_NANOS = "createNanos";

  /** The name of the ser-phase counter. */
  static final String SER_NANOS = "serNanos";

  /** The name of the deser-phase counter. */
  static final String DESER_NANOS = "deserNanos";

  /** The name of the record counter. */
  static final String RECORDS = "records";

  /** The name of the encoded-bytes counter. */
  static final String ENCODED_BYTES = "encodedBytes";

  /** The name of the deflated-bytes counter. */
  static final String DEFLATED_BYTES = "deflatedBytes";

  /** Nanoseconds spent building records in the codec's form. */
  public long createNanos;

  /** Nanoseconds spent encoding. */
  public long serNanos;

  /** Nanoseconds spent decoding. */
  public long deserNanos;

  /** Records that went through all three phases. */
  public long records;

  /** Bytes those records encoded to. */
  public long encodedBytes;

  /** Bytes those encodings deflate to (computed once per record, not timed). */
  public long deflatedBytes;

  /** Clears the counters before an iteration. */
  @Setup(Level.Iteration)
  public void reset() {
    createNanos = 0;
    serNanos = 0;
    deserNanos = 0;
    records = 0;
    encodedBytes = 0;
    deflatedBytes = 0;
  }
}
