package dev.stowage.bench.codecs;

import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import com.github.luben.zstd.ZstdDictDecompress;
import com.github.luben.zstd.ZstdDictTrainer;
import dev.stowage.Codec;
import dev.stowage.Encoding;
import dev.stowage.codec.Codecs;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
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
import org.openjdk.jmh.annotations.TearDown;

/**
 * zstd's own share of the learned default, with the parameters that Stowage does not expose: one
 * frame per board record in compact MessagePack (the payload a cache compresses), compressed and
 * decompressed with a dictionary trained as a cache learns one (on {@link
 * Encoding#DEFAULT_LEARNING_SAMPLES} other records, at most {@code dictionaryKiB} and a quarter of
 * their bytes), through zstd-jni with the digested dictionary and one context, as {@code
 * ZstdFrameCompressor} does. Not part of {@code stowage bench}: it answers which zstd settings to
 * choose, so run it with JMH's own main, picking params with {@code -p}:
 *
 * <pre>
 * java -cp 'stowage-bench-cli/target/stowage-bench-cli.jar:stowage-bench-cli/target/lib/*' \
 *     org.openjdk.jmh.Main ZstdFrameBenchmark -f 1 -wi 3 -w 1 -i 5 -r 1 -p dictionaryKiB=16,64
 * </pre>
 *
 * <p>The score is the time per record to compress and decompress it; the trial's setup prints the
 * dictionary's size and the average payload and frame sizes. {@code hashLog} 0 keeps the level's
 * own and digests the dictionary once for all contexts ({@code ZstdDictCompress}); any other value
 * sets it on the context, which then digests its own copy of the dictionary with that table size.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ZstdFrameBenchmark {
  private static final int RECORDS = 64;

  /** The most the dictionary takes, in KiB. */
  @Param({"16", "32", "64"})
  public int dictionaryKiB;

  /** The zstd level. */
  @Param({"2"})
  public int level;

  /** The compression context's hash log, or 0 for the level's own. */
  @Param({"0"})
  public int hashLog;

  /** Whether frames are written without zstd's magic number. */
  @Param({"false", "true"})
  public boolean magicless;

  private byte[][] payloads;
  private byte[][] frames;
  private byte[] buffer;
  private byte[] output;
  private ZstdCompressCtx compressor;
  private ZstdDecompressCtx decompressor;
  private @Nullable ZstdDictCompress digested;
  private ZstdDictDecompress digestedForReading;

  /** Trains the dictionary and sets up the contexts. */
  @Setup(Level.Trial)
  public void setUp() {
    Codec<BoardRecord> codec = Codecs.msgpackCompact(BoardRecord.class);
    List<BoardRecord> measured = Samples.boards(RECORDS);
    payloads = new byte[RECORDS][];
    for (int i = 0; i < RECORDS; i++) {
      payloads[i] = codec.encode(measured.get(i));
    }
    List<BoardRecord> others = Samples.boards(RECORDS, Encoding.DEFAULT_LEARNING_SAMPLES);
    byte[][] samples = new byte[others.size()][];
    long total = 0;
    for (int i = 0; i < samples.length; i++) {
      samples[i] = codec.encode(others.get(i));
      total += samples[i].length;
    }
    int size = (int) Math.min(dictionaryKiB * 1024L, total / 4);
    ZstdDictTrainer trainer = new ZstdDictTrainer((int) total, size);
    for (byte[] sample : samples) {
      trainer.addSample(sample);
    }
    byte[] dictionary = trainer.trainSamples();

    compressor = new ZstdCompressCtx();
    compressor.setLevel(level);
    compressor.setChecksum(false);
    compressor.setContentSize(true);
    compressor.setDictID(false);
    compressor.setMagicless(magicless);
    if (hashLog == 0) {
      digested = new ZstdDictCompress(dictionary, level);
      compressor.loadDict(digested);
    } else {
      compressor.setHashLog(hashLog);
      compressor.loadDict(dictionary);
    }
    decompressor = new ZstdDecompressCtx();
    decompressor.setMagicless(magicless);
    digestedForReading = new ZstdDictDecompress(dictionary);
    decompressor.loadDict(digestedForReading);
    buffer = new byte[64 * 1024];
    output = new byte[64 * 1024];
    frames = new byte[RECORDS][];
    long frameBytes = 0;
    for (int i = 0; i < RECORDS; i++) {
      int n =
          compressor.compressByteArray(
              buffer, 0, buffer.length, payloads[i], 0, payloads[i].length);
      frames[i] = Arrays.copyOf(buffer, n);
      frameBytes += n;
      int m = decompressor.decompressByteArray(output, 0, payloads[i].length, frames[i], 0, n);
      if (m != payloads[i].length || !Arrays.equals(output, 0, m, payloads[i], 0, m)) {
        throw new IllegalStateException("record " + i + " did not survive the round trip");
      }
    }
    System.out.printf(
        "%n%d-byte dictionary, payloads %.1f bytes and frames %.1f bytes on average%n",
        dictionary.length,
        Arrays.stream(payloads).mapToInt(p -> p.length).average().orElse(0),
        frameBytes / (double) RECORDS);
  }

  /** Frees the native contexts and dictionaries. */
  @TearDown(Level.Trial)
  public void tearDown() {
    compressor.close();
    decompressor.close();
    if (digested != null) {
      digested.close();
    }
    digestedForReading.close();
  }

  /** Compresses and decompresses every record once. */
  @Benchmark
  @OperationsPerInvocation(RECORDS)
  public long compressAndDecompress() {
    long sum = 0;
    for (int i = 0; i < RECORDS; i++) {
      byte[] payload = payloads[i];
      sum += compressor.compressByteArray(buffer, 0, buffer.length, payload, 0, payload.length);
      sum +=
          decompressor.decompressByteArray(
              output, 0, payload.length, frames[i], 0, frames[i].length);
    }
    return sum;
  }
}
