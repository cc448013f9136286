package dev.stowage.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.EnvelopeException;
import dev.stowage.envelope.TestCodecs;
import dev.stowage.internal.envelope.DecompressionBudget;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.CodecIds;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The decompression budget bounds the bytes that decompressed payloads hold across threads: a codec
 * that holds its payload until the test lets it go shows how many are alive at once.
 */
class DecompressionBudgetUnitTests {
  private static final int ONE_MIB = 1 << 20;

  /**
   * Counts the payload bytes inside {@link #decode}, and keeps them there until {@link #gate}
   * opens.
   */
  private static final class HoldingCodec implements Codec<String> {
    final AtomicLong alive = new AtomicLong();
    final AtomicLong mostAlive = new AtomicLong();
    final AtomicInteger entered = new AtomicInteger();
    final CountDownLatch gate = new CountDownLatch(1);

    @Override
    public int id() {
      return CodecIds.STRING;
    }

    @Override
    public byte[] encode(String value) {
      return TestCodecs.UTF8.encode(value);
    }

    @Override
    public String decode(byte[] data, int offset, int length) {
      mostAlive.accumulateAndGet(alive.addAndGet(length), Math::max);
      entered.incrementAndGet();
      try {
        if (!gate.await(60, TimeUnit.SECONDS)) {
          throw new IllegalStateException("the test never opened the gate");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      } finally {
        alive.addAndGet(-length);
      }
      return TestCodecs.UTF8.decode(data, offset, length);
    }
  }

  @Test
  void manyThreadsDecompressingAtOnceStayWithinTheBudget() throws Exception {
    HoldingCodec holding = new HoldingCodec();
    DecompressionBudget budget = DecompressionBudget.of(3L * ONE_MIB, Duration.ofSeconds(60));
    EnvelopeCodec<String> codec =
        EnvelopeCodec.builder((Codec<String>) holding)
            .compression(Compression.zstd())
            .decompressionBudget(budget)
            .build();
    assertThat(codec.decompressionBudget()).isSameAs(budget);
    byte[] value =
        codec.encode("\0".repeat(ONE_MIB)); // a kilobyte or so in Redis, a mebibyte decompressed
    assertThat(value.length).isLessThan(2048);

    ExecutorService readers = Executors.newFixedThreadPool(8);
    try {
      List<Future<String>> reads = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        reads.add(readers.submit(() -> codec.decode(value)));
      }
      // Three payloads fit; the other five reads wait for the budget, not in the codec.
      await().atMost(Duration.ofSeconds(30)).until(() -> holding.entered.get() == 3);
      assertThat(budget.inUse()).isEqualTo(3L * ONE_MIB);
      assertThat(holding.alive.get()).isEqualTo(3L * ONE_MIB);
      holding.gate.countDown();
      for (Future<String> read : reads) {
        assertThat(read.get(60, TimeUnit.SECONDS)).hasSize(ONE_MIB);
      }
    } finally {
      readers.shutdownNow();
    }
    assertThat(holding.mostAlive.get()).isEqualTo(3L * ONE_MIB);
    assertThat(holding.entered.get()).isEqualTo(8);
    assertThat(budget.inUse()).isZero();
  }

  @Test
  void aReadThatFindsNoRoomInTimeFailsWithAnEnvelopeException() throws Exception {
    HoldingCodec holding = new HoldingCodec();
    DecompressionBudget budget = DecompressionBudget.of(ONE_MIB, Duration.ofMillis(50));
    EnvelopeCodec<String> codec =
        EnvelopeCodec.builder((Codec<String>) holding)
            .compression(Compression.lz4())
            .decompressionBudget(budget)
            .build();
    byte[] value = codec.encode("\0".repeat(ONE_MIB));
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try {
      Future<String> first = reader.submit(() -> codec.decode(value));
      await().atMost(Duration.ofSeconds(30)).until(() -> holding.entered.get() == 1);
      assertThatThrownBy(() -> codec.decode(value))
          .isInstanceOf(EnvelopeException.class)
          .hasMessageContaining(
              "the payload declares 1048576 bytes and the decompression budget of 1048576 bytes had 0 free for 50 ms")
          .hasMessageContaining("string+lz4");
      holding.gate.countDown();
      assertThat(first.get(60, TimeUnit.SECONDS)).hasSize(ONE_MIB);
    } finally {
      reader.shutdownNow();
    }
    assertThat(budget.inUse()).isZero();
  }

  @Test
  void aPayloadLargerThanTheWholeBudgetGoesAloneAndFailuresGiveTheirShareBack() {
    DecompressionBudget budget = DecompressionBudget.of(1024, Duration.ofMillis(50));
    EnvelopeCodec<String> codec =
        EnvelopeCodec.builder(TestCodecs.UTF8)
            .compression(Compression.zstd())
            .decompressionBudget(budget)
            .build();
    assertThat(codec.decode(codec.encode("x".repeat(ONE_MIB)))).hasSize(ONE_MIB);
    assertThat(budget.inUse()).isZero();

    byte[] notUtf8 =
        EnvelopeCodec.builder(
                (Codec<String>)
                    new TestCodecs.StrictTextCodec(CodecIds.STRING, StandardCharsets.ISO_8859_1))
            .compression(Compression.zstd())
            .build()
            .encode("\u00ff".repeat(5000));
    assertThatThrownBy(() -> codec.decode(notUtf8)).isInstanceOf(CodecException.class);
    assertThat(budget.inUse()).as("given back after the codec failed").isZero();
  }

  @Test
  void budgetsAreValidatedAndTheSharedOneIsTheDefault() {
    assertThat(EnvelopeCodec.builder(TestCodecs.UTF8).build().decompressionBudget())
        .isSameAs(DecompressionBudget.shared());
    assertThat(DecompressionBudget.shared().bytes())
        .isEqualTo(DecompressionBudget.DEFAULT_BYTES)
        .isEqualTo(64L << 20);
    assertThat(DecompressionBudget.shared().maxWait()).isEqualTo(Duration.ofSeconds(1));
    assertThatThrownBy(() -> DecompressionBudget.of(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a decompression budget must be at least 1 byte, got 0");
    assertThatThrownBy(() -> DecompressionBudget.of(1, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxWait must be from 0 to a day, got PT-1S");
    assertThatThrownBy(() -> DecompressionBudget.of(1, Duration.ofSeconds(Long.MAX_VALUE)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
