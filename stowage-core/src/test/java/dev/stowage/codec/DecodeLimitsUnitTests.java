package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.EnvelopeException;
import dev.stowage.TypeRef;
import dev.stowage.compress.Compression;
import dev.stowage.internal.envelope.DecompressionBudget;
import dev.stowage.internal.envelope.EnvelopeCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * What a decode may build (issue 27, item 2): elements per value derived from maxDecodedSize, the
 * limits of a codec used alone, codecs wrapping the msgpack codec, and the heap charged to the
 * decompression budget while a large value is decoded.
 */
class DecodeLimitsUnitTests {
  /** A list of {@code count} small integers: 1 byte each in MessagePack. */
  private static byte[] msgpackInts(int count) {
    byte[] payload = new byte[5 + count];
    payload[0] = (byte) 0xdd;
    payload[1] = (byte) (count >>> 24);
    payload[2] = (byte) (count >>> 16);
    payload[3] = (byte) (count >>> 8);
    payload[4] = (byte) count;
    return payload;
  }

  private static final TypeRef<List<Integer>> INTS = new TypeRef<>() {};

  @Test
  void aSmallMaxDecodedSizeStillReadsFourThousandElements() {
    Codec<List<Integer>> ints = Codecs.msgpack(INTS);
    EnvelopeCodec<List<Integer>> small =
        EnvelopeCodec.builder(ints).compression(Compression.none()).maxDecodedSize(8192).build();
    // 8192 / 8 is 1024, below the floor of 4096 elements: a value of 4095 ints (and the list)
    // reads.
    assertThat(small.decode(small.wrap(msgpackInts(4095)))).hasSize(4095);
    assertThatThrownBy(() -> small.decode(small.wrap(msgpackInts(4096))))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(
            "an array 32 at byte 0 declares 4096 elements: the value would hold at least 4097,"
                + " more than the 4096 elements a value may hold at maxDecodedSize 8192 (one per 8 bytes;"
                + " Encoding.maxDecodedSize raises it)");
  }

  @Test
  void aCodecUsedAloneHasTheLimitsOfADefaultEnvelopeCodec() {
    Codec<List<Integer>> ints = Codecs.msgpack(INTS);
    int limit = EnvelopeCodec.DEFAULT_MAX_DECODED_SIZE / 8;
    assertThat(ints.decode(msgpackInts(10))).hasSize(10);
    assertThatThrownBy(() -> ints.decode(msgpackInts(limit)))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(
            "more than the "
                + limit
                + " elements a value may hold at maxDecodedSize "
                + EnvelopeCodec.DEFAULT_MAX_DECODED_SIZE);
  }

  @Test
  void aCodecWrappingMsgpackIsBoundedByTheEnvelopeItRunsIn() {
    Codec<List<Integer>> ints = Codecs.msgpack(INTS);
    Codec<List<Integer>> wrapping =
        new Codec<>() {
          @Override
          public int id() {
            return 200;
          }

          @Override
          public byte[] encode(List<Integer> value) {
            return ints.encode(value);
          }

          @Override
          public List<Integer> decode(byte[] data, int offset, int length) {
            return ints.decode(data, offset, length);
          }
        };
    EnvelopeCodec<List<Integer>> envelope =
        EnvelopeCodec.builder(wrapping)
            .compression(Compression.none())
            .maxDecodedSize(64 * 1024)
            .build();
    assertThat(envelope.decode(envelope.wrap(msgpackInts(8191)))).hasSize(8191);
    assertThatThrownBy(() -> envelope.decode(envelope.wrap(msgpackInts(8192))))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(
            "more than the 8192 elements a value may hold at maxDecodedSize 65536");
  }

  @Test
  void jsonCountsEveryValueAndPropertyName() {
    Codec<List<Integer>> json = Codecs.json(INTS);
    EnvelopeCodec<List<Integer>> envelope =
        EnvelopeCodec.builder(json)
            .compression(Compression.none())
            .maxDecodedSize(64 * 1024)
            .build();
    String within = "[" + "1,".repeat(8190) + "1]"; // the list and 8191 ints: 8192 elements
    assertThat(envelope.decode(envelope.wrap(within.getBytes(StandardCharsets.US_ASCII))))
        .hasSize(8191);
    String past = "[" + "1,".repeat(8191) + "1]";
    assertThatThrownBy(
            () -> envelope.decode(envelope.wrap(past.getBytes(StandardCharsets.US_ASCII))))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("json codec refused to decode " + past.length() + " bytes")
        .hasMessageContaining(
            "more than the 8192 elements a value may hold at maxDecodedSize 65536");
    assertThat(json.decode("[1, 2]".getBytes(StandardCharsets.US_ASCII))).containsExactly(1, 2);
  }

  /**
   * A decode that builds a large value holds its estimated heap in the budget until it ends, and a
   * read that finds no room waits, then fails as a miss, instead of building as well.
   */
  @Test
  void largeDecodesHoldTheirHeapInTheBudgetWhileTheyRun() throws Exception {
    DecompressionBudget budget = DecompressionBudget.of(16L << 20, Duration.ofMillis(200));
    CountDownLatch decoding = new CountDownLatch(1);
    CountDownLatch finish = new CountDownLatch(1);
    Codec<List<Integer>> ints = Codecs.msgpack(INTS);
    Codec<List<Integer>> slow =
        new Codec<>() {
          @Override
          public int id() {
            return 200;
          }

          @Override
          public byte[] encode(List<Integer> value) {
            return ints.encode(value);
          }

          @Override
          public List<Integer> decode(byte[] data, int offset, int length) {
            List<Integer> value = ints.decode(data, offset, length);
            decoding.countDown();
            try {
              finish.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return value;
          }
        };
    EnvelopeCodec<List<Integer>> envelope =
        EnvelopeCodec.builder(slow)
            .compression(Compression.none())
            .maxDecodedSize(8 << 20)
            .decompressionBudget(budget)
            .build();
    byte[] large = envelope.wrap(msgpackInts(200_000)); // about 12.8 MB of heap estimated
    byte[] small = envelope.wrap(msgpackInts(100)); // too small to be charged
    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<List<Integer>> first = threads.submit(() -> envelope.decode(large));
      assertThat(decoding.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(budget.inUse()).isEqualTo(200_001L * 64);
      Future<?> second = threads.submit(() -> envelope.decode(large));
      assertThatThrownBy(() -> second.get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(EnvelopeException.class)
          .hasMessageContaining(
              "decoding the value would build about 12800064 bytes of objects and the decompression"
                  + " budget of 16777216 bytes had");
      finish.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS)).hasSize(200_000);
      assertThat(envelope.decode(small)).hasSize(100);
    } finally {
      finish.countDown();
      threads.shutdownNow();
    }
    assertThat(budget.inUse()).isZero();
  }
}
