package dev.stowage.internal.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdDictDecompress;
import dev.stowage.Codec;
import dev.stowage.EnvelopeException;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ZstdFrameCompressorUnitTests {
  private static final Codec<BoardRecord> CODEC = Codecs.msgpackCompact(BoardRecord.class);
  private static List<byte[]> payloads;
  private static ZstdDictionary dictionary;

  @BeforeAll
  static void trainOnBoardRecords() {
    List<byte[]> samples = new ArrayList<>();
    for (BoardRecord record : Samples.boards(1_000, 1_000)) {
      samples.add(CODEC.encode(record));
    }
    dictionary = ZstdDictionary.train(samples, 16 * 1024);
    payloads = new ArrayList<>();
    for (BoardRecord record : Samples.boards(0, 200)) {
      payloads.add(CODEC.encode(record));
    }
  }

  @Test
  void framesLeaveRoomForTheHeaderAndStockZstdReadsThem() {
    ZstdFrameCompressor compressor = new ZstdFrameCompressor(2, dictionary);
    ZstdDictDecompress stock = new ZstdDictDecompress(dictionary.bytes());
    for (byte[] payload : payloads) {
      byte[] value = compressor.compressAfter(7, payload, payload.length);
      assertThat(value).isNotNull();
      assertThat(Arrays.copyOf(value, 7)).containsOnly(0);
      byte[] frame = Arrays.copyOfRange(value, 7, value.length);
      assertThat(frame).isEqualTo(compressor.compress(payload));
      assertThat(Zstd.getFrameContentSize(frame)).isEqualTo(payload.length);
      assertThat(Zstd.decompress(frame, stock, payload.length)).isEqualTo(payload);
    }
    assertThat(compressor.compressionId()).isEqualTo(CompressionIds.ZSTD_DICT);
    assertThat(compressor.idleContexts()).isEqualTo(1);
  }

  @Test
  void magiclessFramesAreStockFramesWithoutTheirFirstFourBytes() {
    ZstdFrameCompressor whole = new ZstdFrameCompressor(2, dictionary);
    ZstdFrameCompressor magicless = new ZstdFrameCompressor(2, dictionary, true);
    ZstdDictDecompress stock = new ZstdDictDecompress(dictionary.bytes());
    ZstdFrameDecompressor decompressor = new ZstdFrameDecompressor();
    decompressor.addDictionary(dictionary);
    byte[] magic = {0x28, (byte) 0xb5, 0x2f, (byte) 0xfd};
    for (byte[] payload : payloads) {
      byte[] value = magicless.compressAfter(7, payload, payload.length);
      assertThat(value).isNotNull();
      byte[] frame = Arrays.copyOfRange(value, 7, value.length);
      byte[] withMagic = whole.compress(payload);
      assertThat(Arrays.copyOf(withMagic, 4)).isEqualTo(magic);
      assertThat(frame).isEqualTo(Arrays.copyOfRange(withMagic, 4, withMagic.length));

      byte[] restored = new byte[4 + frame.length];
      System.arraycopy(magic, 0, restored, 0, 4);
      System.arraycopy(frame, 0, restored, 4, frame.length);
      assertThat(Zstd.decompress(restored, stock, payload.length))
          .as("stock zstd, the magic put back")
          .isEqualTo(payload);

      assertThat(ZstdFrameDecompressor.declaredSize(frame, 0, frame.length, 1 << 20, true))
          .isEqualTo(payload.length);
      assertThat(decompressor.decompress(frame, 0, frame.length, 1 << 20, dictionary.id(), true))
          .isEqualTo(payload);
      assertThat(
              decompressor.decompress(
                  withMagic, 0, withMagic.length, 1 << 20, dictionary.id(), false))
          .isEqualTo(payload);
    }
    assertThat(magicless.compressionId()).isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
    assertThat(whole.compressionId()).isEqualTo(CompressionIds.ZSTD_DICT);
  }

  @Test
  void aMagiclessFrameIsNotReadAsAWholeOneNorTheOtherWayRound() {
    ZstdFrameDecompressor decompressor = new ZstdFrameDecompressor();
    decompressor.addDictionary(dictionary);
    byte[] payload = payloads.get(0);
    byte[] magicless = new ZstdFrameCompressor(2, dictionary, true).compress(payload);
    byte[] whole = new ZstdFrameCompressor(2, dictionary).compress(payload);
    assertThatThrownBy(
            () ->
                decompressor.decompress(
                    magicless, 0, magicless.length, 1 << 20, dictionary.id(), false))
        .isInstanceOf(EnvelopeException.class);
    assertThatThrownBy(
            () -> decompressor.decompress(whole, 0, whole.length, 1 << 20, dictionary.id(), true))
        .isInstanceOf(EnvelopeException.class);
    assertThatThrownBy(() -> new ZstdFrameCompressor(2, null, true))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(
            () ->
                decompressor.decompressDeclared(
                    magicless, 0, magicless.length, payload.length, -1, true))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aFrameThatWouldNotFitTheLimitIsNotReturned() {
    ZstdFrameCompressor compressor = new ZstdFrameCompressor(3, null);
    byte[] payload = payloads.get(0);
    int size = compressor.compress(payload).length;
    assertThat(compressor.compressAfter(4, payload, size)).isNull();
    assertThat(compressor.compressAfter(4, payload, size + 1)).hasSize(4 + size);
  }

  @Test
  void aLargePayloadDoesNotStayInTheContextsBuffer() {
    ZstdFrameCompressor compressor = new ZstdFrameCompressor(1, null);
    byte[] large = new byte[4 * ZstdFrameCompressor.MAX_KEPT_BUFFER];
    new Random(7).nextBytes(large);
    ZstdFrameDecompressor decompressor = new ZstdFrameDecompressor();
    byte[] frame = compressor.compress(large);
    assertThat(decompressor.decompress(frame, 0, frame.length, large.length, -1)).isEqualTo(large);
    byte[] small = compressor.compress(payloads.get(1));
    assertThat(decompressor.decompress(small, 0, small.length, 1 << 20, -1))
        .isEqualTo(payloads.get(1));
  }

  @Test
  void framesOfOneLevelReadWithAnyOtherAndLevelTwoKeepsLevelThreesSize() {
    ZstdFrameCompressor levelThree = new ZstdFrameCompressor(3, dictionary);
    ZstdFrameCompressor levelTwo = new ZstdFrameCompressor(2, dictionary);
    ZstdFrameDecompressor decompressor = new ZstdFrameDecompressor();
    decompressor.addDictionary(dictionary);
    long three = 0;
    long two = 0;
    for (byte[] payload : payloads) {
      byte[] old = levelThree.compress(payload);
      byte[] now = levelTwo.compress(payload);
      assertThat(decompressor.decompress(old, 0, old.length, 1 << 20, dictionary.id()))
          .isEqualTo(payload);
      assertThat(
              decompressor.decompressDeclared(now, 0, now.length, payload.length, dictionary.id()))
          .isEqualTo(payload);
      three += old.length;
      two += now.length;
    }
    assertThat((double) two / three).as("level 2 against level 3").isLessThan(1.02);
  }

  @Test
  void valuesWrittenAtTheFormerDefaultLevelReadWithTheDefaultCodecAndBack() {
    EnvelopeCodec<BoardRecord> former =
        EnvelopeCodec.builder(CODEC)
            .compression(CompressionAccess.zstd(dictionary, 3))
            .dictionaries(DictionaryResolver.of(dictionary))
            .build();
    EnvelopeCodec<BoardRecord> current =
        EnvelopeCodec.builder(CODEC)
            .compression(CompressionAccess.zstd(dictionary))
            .dictionaries(DictionaryResolver.of(dictionary))
            .build();
    assertThat(current.compression().level()).isEqualTo(Compression.DEFAULT_DICTIONARY_ZSTD_LEVEL);
    for (BoardRecord record : Samples.boards(0, 50)) {
      byte[] old = former.encode(record);
      byte[] now = current.encode(record);
      assertThat(current.decode(old)).isEqualTo(record);
      assertThat(former.decode(now)).isEqualTo(record);
      assertThat(current.decodePayload(now)).isEqualTo(CODEC.encode(record));
    }
  }

  @Test
  void
      valuesWrittenWithTheFrameMagicReadWithTheDefaultCodecAndBackAndTheDefaultIsFourBytesSmaller() {
    EnvelopeCodec<BoardRecord> whole =
        EnvelopeCodec.builder(CODEC)
            .compression(CompressionAccess.zstd(dictionary).magicless(false))
            .dictionaries(DictionaryResolver.of(dictionary))
            .build();
    EnvelopeCodec<BoardRecord> current =
        EnvelopeCodec.builder(CODEC)
            .compression(CompressionAccess.zstd(dictionary))
            .dictionaries(DictionaryResolver.of(dictionary))
            .build();
    assertThat(current.compression().id()).isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
    assertThat(whole.compression().id()).isEqualTo(CompressionIds.ZSTD_DICT);
    EnvelopeCodec<BoardRecord> reader =
        EnvelopeCodec.builder(CODEC).dictionaries(DictionaryResolver.of(dictionary)).build();
    for (BoardRecord record : Samples.boards(0, 50)) {
      byte[] old = whole.encode(record);
      byte[] now = current.encode(record);
      assertThat(Envelope.readHeader(old).compressionId()).isEqualTo(CompressionIds.ZSTD_DICT);
      assertThat(Envelope.readHeader(now).compressionId())
          .isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
      assertThat(now).hasSize(old.length - 4);
      assertThat(current.decode(old)).isEqualTo(record);
      assertThat(whole.decode(now)).isEqualTo(record);
      assertThat(reader.decode(old)).isEqualTo(record);
      assertThat(reader.decode(now)).isEqualTo(record);
      assertThat(reader.decodePayload(now)).isEqualTo(CODEC.encode(record));
    }
  }

  @Test
  void onlyADictionaryCompressionDropsTheMagic() {
    assertThat(CompressionAccess.zstd(dictionary).isMagicless()).isTrue();
    assertThat(CompressionAccess.zstd(dictionary).magicless(false).magicless(true))
        .isEqualTo(CompressionAccess.zstd(dictionary));
    assertThat(CompressionAccess.zstd(dictionary).magicless(false).minSize(10).isMagicless())
        .isFalse();
    assertThat(Compression.zstd().isMagicless()).isFalse();
    assertThatThrownBy(() -> Compression.zstd().magicless(true))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> Compression.none().magicless(false))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void manyThreadsCompressAndDecompressAtOnce() throws Exception {
    ZstdFrameCompressor withDictionary = new ZstdFrameCompressor(2, dictionary);
    ZstdFrameCompressor plain = new ZstdFrameCompressor(3, null);
    ZstdFrameDecompressor decompressor = new ZstdFrameDecompressor();
    decompressor.addDictionary(dictionary);
    int threads = 4 * ContextPool.SLOTS;
    ExecutorService executor = Executors.newFixedThreadPool(threads);
    CyclicBarrier start = new CyclicBarrier(threads);
    try {
      List<Future<Integer>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int first = t;
        done.add(
            executor.submit(
                () -> {
                  start.await();
                  int checked = 0;
                  for (int round = 0; round < 20; round++) {
                    for (int i = first % payloads.size(); i < payloads.size(); i += 7) {
                      byte[] payload = payloads.get(i);
                      boolean useDictionary = (i + round) % 2 == 0;
                      byte[] frame =
                          (useDictionary ? withDictionary : plain)
                              .compressAfter(3, payload, Integer.MAX_VALUE);
                      byte[] back =
                          decompressor.decompress(
                              frame,
                              3,
                              frame.length - 3,
                              1 << 20,
                              useDictionary ? dictionary.id() : -1);
                      assertThat(back).isEqualTo(payload);
                      checked++;
                    }
                  }
                  return checked;
                }));
      }
      int checked = 0;
      for (Future<Integer> future : done) {
        checked += future.get(120, TimeUnit.SECONDS);
      }
      assertThat(checked).isGreaterThan(threads * 20);
    } finally {
      executor.shutdownNow();
    }
    assertThat(withDictionary.idleContexts()).isBetween(1, ContextPool.SLOTS);
    assertThat(plain.idleContexts()).isBetween(1, ContextPool.SLOTS);
  }
}
