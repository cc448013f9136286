package dev.stowage.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.sun.management.ThreadMXBean;
import dev.stowage.EnvelopeException;
import dev.stowage.envelope.TestCodecs;
import dev.stowage.internal.envelope.EnvelopeCodec;
import java.io.ByteArrayOutputStream;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Decompression bombs, built with the libraries and by hand, must fail with an {@link
 * EnvelopeException} before any output near their size is allocated. Allocation is measured with
 * the JVM's per-thread allocation counter around a second decode, once classes are loaded.
 */
class DecompressionLimitUnitTests {
  private static final int ONE_GIB = 1 << 30;
  private static final int ONE_MIB = 1 << 20;

  /** Generous room for exception objects and messages; tiny next to any bomb. */
  private static final long ALLOCATION_ALLOWANCE = 256 * 1024;

  private static final EnvelopeCodec<String> DEFAULT_READER =
      EnvelopeCodec.builder(TestCodecs.UTF8).build();
  private static final EnvelopeCodec<String> ONE_MIB_READER =
      EnvelopeCodec.builder(TestCodecs.UTF8).maxDecodedSize(ONE_MIB).build();

  @Test
  void zstdFrameOfEightMegabytesOfZerosIsRefusedByAOneMegabyteReader() {
    EnvelopeCodec<String> writer =
        EnvelopeCodec.builder(TestCodecs.UTF8).compression(Compression.zstd()).build();
    byte[] bomb = writer.encode("\0".repeat(8 * ONE_MIB));
    assertThat(bomb.length).isLessThan(2048);
    assertThat(writer.decode(bomb)).hasSize(8 * ONE_MIB);

    assertRefusedWithinAllowance(
        ONE_MIB_READER,
        bomb,
        "zstd payload declares 8388608 bytes, more than maxDecodedSize 1048576");
  }

  @Test
  void zstdFrameOfAGigabyteIsRefusedByTheDefaultLimit() {
    byte[] frame = zstdRleFrame(ONE_GIB, ONE_GIB);
    assertThat(Zstd.getFrameContentSize(frame)).as("a real 1 GiB zstd frame").isEqualTo(ONE_GIB);
    assertThat(frame.length).isLessThan(40_000);

    assertRefusedWithinAllowance(
        DEFAULT_READER,
        envelope(2, frame),
        "zstd payload declares 1073741824 bytes, more than maxDecodedSize 67108864");
  }

  @Test
  void zstdFrameThatUnderstatesItsSizeStopsAtTheDeclaredSize() {
    byte[] lying = zstdRleFrame(1000, ONE_GIB);
    assertRefusedWithinAllowance(DEFAULT_READER, envelope(2, lying), "corrupt zstd payload");
  }

  @Test
  void zstdFrameWithoutAContentSizeIsRefused() {
    byte[] frame;
    try (ZstdCompressCtx context = new ZstdCompressCtx()) {
      context.setContentSize(false);
      frame = context.compress(new byte[10_000]);
    }
    assertThat(Zstd.getFrameContentSize(frame)).isEqualTo(-1);
    assertRefusedWithinAllowance(
        DEFAULT_READER, envelope(2, frame), "zstd frame does not declare its content size");
  }

  @Test
  void zstdFramesConcatenatedBehindASmallOneCannotGrowTheOutput() {
    byte[] small = zstdRleFrame(1000, 1000);
    byte[] big = zstdRleFrame(ONE_GIB, ONE_GIB);
    byte[] both = Arrays.copyOf(small, small.length + big.length);
    System.arraycopy(big, 0, both, small.length, big.length);
    assertRefusedWithinAllowance(DEFAULT_READER, envelope(2, both), "corrupt zstd payload");
  }

  @Test
  void lz4BlockOfEightMegabytesOfZerosIsRefusedByAOneMegabyteReader() {
    EnvelopeCodec<String> writer =
        EnvelopeCodec.builder(TestCodecs.UTF8).compression(Compression.lz4()).build();
    byte[] bomb = writer.encode("\0".repeat(8 * ONE_MIB));
    assertThat(writer.decode(bomb)).hasSize(8 * ONE_MIB);

    assertRefusedWithinAllowance(
        ONE_MIB_READER,
        bomb,
        "lz4 payload declares 8388608 bytes, more than maxDecodedSize 1048576");
  }

  @Test
  void lz4BlockOfAGigabyteIsRefusedByTheDefaultLimit() {
    assertRefusedWithinAllowance(
        DEFAULT_READER,
        envelope(1, lz4ZeroPayload(ONE_GIB, ONE_GIB)),
        "lz4 payload declares 1073741824 bytes, more than maxDecodedSize 67108864");
  }

  @Test
  void lz4BlockThatUnderstatesItsSizeStopsAtTheDeclaredSize() {
    assertRefusedWithinAllowance(
        DEFAULT_READER, envelope(1, lz4ZeroPayload(1000, ONE_GIB)), "corrupt lz4 payload");
  }

  @Test
  void lz4BlockThatOverstatesItsSizeIsRefused() {
    assertRefusedWithinAllowance(
        DEFAULT_READER,
        envelope(1, lz4ZeroPayload(5000, 100)),
        "lz4 payload decoded to 100 bytes but declares 5000");
  }

  @Test
  void handBuiltBombsAreValidBelowTheLimit() {
    EnvelopeCodec<String> reader = EnvelopeCodec.builder(TestCodecs.UTF8).build();
    assertThat(reader.decode(envelope(2, zstdRleFrame(300_000, 300_000))))
        .isEqualTo("\0".repeat(300_000));
    assertThat(reader.decode(envelope(1, lz4ZeroPayload(300_000, 300_000))))
        .isEqualTo("\0".repeat(300_000));
  }

  private static void assertRefusedWithinAllowance(
      EnvelopeCodec<String> reader, byte[] value, String message) {
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertThatThrownBy(() -> reader.decode(value))
        .as("first attempt, which also loads classes")
        .isInstanceOf(EnvelopeException.class);
    long before = threads.getCurrentThreadAllocatedBytes();
    Throwable thrown = null;
    try {
      reader.decode(value);
    } catch (Throwable t) {
      thrown = t;
    }
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(thrown).isExactlyInstanceOf(EnvelopeException.class).hasMessageContaining(message);
    assertThat(allocated).as("bytes allocated while refusing").isLessThan(ALLOCATION_ALLOWANCE);
  }

  private static byte[] envelope(int compressionId, byte[] payload) {
    byte[] value = new byte[4 + payload.length];
    value[0] = (byte) 0xC1;
    value[1] = 0x10;
    value[2] = 10;
    value[3] = (byte) compressionId;
    System.arraycopy(payload, 0, value, 4, payload.length);
    return value;
  }

  /**
   * A zstd frame (RFC 8878) that declares {@code declared} content bytes in a single segment and
   * holds RLE blocks of zeros totalling {@code actual} bytes: four bytes per 128 KiB of output.
   */
  static byte[] zstdRleFrame(int declared, long actual) {
    ByteArrayOutputStream frame = new ByteArrayOutputStream();
    frame.writeBytes(new byte[] {0x28, (byte) 0xB5, 0x2F, (byte) 0xFD});
    frame.write(0xA0); // 4-byte frame content size, single segment, no checksum, no dictionary id
    writeLittleEndian(frame, declared, 4);
    long left = actual;
    do {
      int block = (int) Math.min(left, 128 * 1024);
      left -= block;
      int last = left == 0 ? 1 : 0;
      writeLittleEndian(frame, block << 3 | 1 << 1 | last, 3); // block type 1: RLE
      frame.write(0);
    } while (left > 0);
    return frame.toByteArray();
  }

  /**
   * An lz4 payload: varint {@code declared}, then an LZ4 block that produces {@code actual} zeros
   * (one literal, one long match at offset 1, five final literals).
   */
  static byte[] lz4ZeroPayload(int declared, int actual) {
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    long value = declared;
    while ((value & ~0x7F) != 0) {
      payload.write((int) (value & 0x7F) | 0x80);
      value >>>= 7;
    }
    payload.write((int) value);
    int matchLength = actual - 6;
    payload.write(1 << 4 | 15);
    payload.write(0);
    payload.write(1);
    payload.write(0);
    int rest = matchLength - 4 - 15;
    while (rest >= 255) {
      payload.write(255);
      rest -= 255;
    }
    payload.write(rest);
    payload.write(5 << 4);
    payload.writeBytes(new byte[5]);
    return payload.toByteArray();
  }

  private static void writeLittleEndian(ByteArrayOutputStream out, long value, int bytes) {
    for (int i = 0; i < bytes; i++) {
      out.write((int) (value >>> (8 * i)) & 0xFF);
    }
  }
}
