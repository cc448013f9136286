package dev.stowage.bench.codecs;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Table T3 on JMH: for one codec, payload variant and data shape, how long it takes to create a
 * record in the codec's own form, to serialize it and to deserialize it, and how many bytes it
 * takes.
 *
 * <p>Each invocation runs a batch of {@value CodecFixture#RECORDS} distinct, pre-generated records
 * through the three phases in turn: create all of them (protobuf, Thrift and Avro build their own
 * objects from the field values; the other codecs build the plain Java object), serialize each,
 * then deserialize each. The score is the time per record for all three phases together; each phase
 * is timed over the whole batch with {@link System#nanoTime()} (two reads per batch, so the clock
 * costs well under a nanosecond per record) and reported through {@link PhaseCounters}. This way
 * one forked JVM measures all three phases of a configuration, which keeps {@code --quick} within
 * its budget.
 *
 * <p>Every result goes to the {@link Blackhole} or into an array the next phase reads, so the JIT
 * cannot drop any work. The zstd dictionary is trained once per trial on other records of the same
 * shape.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmark {

  /** The codec, by {@link CodecUnderTest#cliName()}. */
  @Param({
    "json",
    "fastjson2",
    "msgpack",
    "msgpack-compact",
    "kryo",
    "fory",
    "protobuf",
    "avro",
    "thrift",
    "jdk"
  })
  public String codec;

  /** Bare, or the envelope with a compression, by {@link PayloadVariant#paramName()}. */
  @Param({"bare", "none", "lz4", "zstd", "zstd-dict"})
  public String compression;

  /** The record shape, by {@link DataShape#paramName()}. */
  @Param({"board", "media"})
  public String data;

  private CodecFixture<Object, Object> fixture;
  private Object[] created;
  private byte[][] encoded;
  private long deflatedBytesPerBatch;

  /** Builds the records, the codec and (for zstd-dict) the dictionary, and checks a round trip. */
  @Setup(Level.Trial)
  @SuppressWarnings("unchecked")
  public void setUp() {
    fixture =
        (CodecFixture<Object, Object>)
            CodecFixture.create(
                CodecUnderTest.forName(codec),
                PayloadVariant.forName(compression),
                DataShape.forName(data));
    fixture.verifyRoundTrips();
    created = new Object[fixture.records()];
    encoded = new byte[fixture.records()][];
    deflatedBytesPerBatch = fixture.deflatedBytes();
  }

  /** Creates, serializes and deserializes every record of the batch once. */
  @Benchmark
  @OperationsPerInvocation(CodecFixture.RECORDS)
  public void createSerDeser(PhaseCounters counters, Blackhole blackhole) {
    CodecFixture<Object, Object> f = fixture;
    Object[] objects = created;
    byte[][] bytes = encoded;
    int n = objects.length;

    long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      objects[i] = f.create(i);
    }
    long afterCreate = System.nanoTime();
    for (int i = 0; i < n; i++) {
      bytes[i] = f.encode(objects[i]);
    }
    long afterSer = System.nanoTime();
    for (int i = 0; i < n; i++) {
      blackhole.consume(f.decode(bytes[i]));
    }
    long afterDeser = System.nanoTime();

    long size = 0;
    for (int i = 0; i < n; i++) {
      size += bytes[i].length;
    }
    counters.createNanos += afterCreate - start;
    counters.serNanos += afterSer - afterCreate;
    counters.deserNanos += afterDeser - afterSer;
    counters.records += n;
    counters.encodedBytes += size;
    counters.deflatedBytes += deflatedBytesPerBatch;
  }
}
