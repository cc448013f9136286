package dev.stowage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
import org.junit.jupiter.api.Test;

/** {@link Encoding} is a value: every method returns a new one, checked when it is made. */
class EncodingUnitTests {
  private static final Encoding<BoardRecord> BASE = Encoding.of(Codecs.json(BoardRecord.class));

  @Test
  void everyMethodReturnsANewValueAndLeavesTheOriginalAsItWas() {
    String before = BASE.toString();
    Encoding<BoardRecord> lz4 = BASE.compression(Compression.lz4());
    Encoding<BoardRecord> reading = BASE.alsoRead(Codecs.msgpack(BoardRecord.class));
    Encoding<BoardRecord> small = BASE.maxDecodedSize(1024);

    assertThat(List.of(lz4, reading, small)).doesNotContain(BASE);
    assertThat(BASE).hasToString(before);
    assertThat(before)
        .isEqualTo(
            "Encoding[json, learning a dictionary of at most 65536 bytes from 1000 values,"
                + " at most 8388608 bytes decoded]");
    assertThat(lz4.toString()).contains("lz4 from 64 bytes");
    assertThat(reading.toString()).contains("also reading 1 codecs");
    assertThat(small.toString()).contains("at most 1024 bytes decoded");
    assertThat(lz4.codec()).isSameAs(BASE.codec());
  }

  @Test
  void theCompressionPolicyIsOneSettingAndTheLastOneGivenWins() {
    List<BoardRecord> samples = Samples.boards(1, 50);
    assertThat(BASE.compression(Compression.lz4()).learnDictionary(100, 4096).toString())
        .contains("learning a dictionary of at most 4096 bytes from 100 values");
    assertThat(BASE.learnDictionary(100, 4096).compression(Compression.none()).toString())
        .contains("Encoding[json, none, ");
    assertThat(BASE.compression(Compression.lz4()).trainDictionary(samples, 2048).toString())
        .contains("zstd with a dictionary of at most 2048 bytes trained on 50 values");
    assertThat(BASE.trainDictionary(samples, 2048).compression(Compression.zstd()).toString())
        .contains("Encoding[json, zstd(level 3) from 64 bytes, ");
  }

  @Test
  void legacyAndWriteLegacyAreOneSettingAndTheLastOneGivenWinsWhateverComesAfter() {
    Encoding<BoardRecord> writing =
        BASE.writeLegacy(Codecs.springJson(BoardRecord.class)).compression(Compression.lz4());
    assertThat(writing.toString()).contains(", writing legacy spring-json, ");
    assertThat(writing.legacy(Codecs.jdk(BoardRecord.class)).toString())
        .contains(", legacy jdk, ")
        .doesNotContain("writing");
    assertThat(
            BASE.legacy(Codecs.jdk(BoardRecord.class))
                .writeLegacy(Codecs.json(BoardRecord.class))
                .toString())
        .contains(", writing legacy json, ");
    assertThatThrownBy(() -> BASE.writeLegacy(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("legacyCodec");
  }

  @Test
  void theSettingsAreCheckedWhereTheyAreGiven() {
    assertThatThrownBy(() -> BASE.learnDictionary(15, 16 * 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("samples must be 16 to 100000, got 15");
    assertThatThrownBy(() -> BASE.learnDictionary(100_001, 16 * 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("samples must be 16 to 100000, got 100001");
    assertThatThrownBy(() -> BASE.learnDictionary(100, 255))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("dictionarySize must be at least 256 bytes, got 255");
    assertThatThrownBy(() -> BASE.trainDictionary(Samples.boards(1, 50), 255))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("dictionarySize must be at least 256 bytes, got 255");
    assertThatThrownBy(() -> BASE.maxDecodedSize(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxDecodedSize must be at least 1 byte, got 0");
    assertThatThrownBy(() -> BASE.trainDictionary(Arrays.asList(Samples.board(1), null), 4096))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("samples contain null");
    assertThatThrownBy(() -> BASE.alsoRead(Codecs.json(BoardRecord.class), null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("readers contain null");
    assertThatThrownBy(() -> Encoding.of(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("codec");
    assertThatThrownBy(() -> BASE.compression(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("compression");
  }

  @Test
  void trainingSamplesAreCopiedWhenGiven() {
    List<BoardRecord> samples = new ArrayList<>(Samples.boards(1, 50));
    Encoding<BoardRecord> trained = BASE.trainDictionary(samples, 2048);
    samples.clear();
    assertThat(trained.toString()).contains("trained on 50 values");
  }

  @Test
  void theDefaultEncodingWritesWithTheDefaultCodec() {
    assertThat(Encoding.defaultFor(BoardRecord.class).codec().name())
        .isEqualTo(Codecs.defaultFor(BoardRecord.class).name());
    assertThat(Encoding.defaultFor(TypeRef.of(BoardRecord.class)).codec().name())
        .isEqualTo(Codecs.defaultFor(BoardRecord.class).name());
  }

  @Test
  void legacyWritesIsTheCodecOfWriteLegacyOnly() {
    Codec<BoardRecord> spring = Codecs.springJson(BoardRecord.class);
    assertThat(BASE.legacyWrites()).isEmpty();
    assertThat(BASE.legacy(spring).legacyWrites()).isEmpty();
    assertThat(BASE.writeLegacy(spring).compression(Compression.lz4()).legacyWrites())
        .containsSame(spring);
    assertThat(BASE.writeLegacy(spring).legacy(spring).legacyWrites()).isEmpty();
  }

  @Test
  void anEnvelopeCodecWithoutRedisWritesWithThePolicyAndReadsWhatTheEncodingReads() {
    BoardRecord board = Samples.board(7);
    Codec<BoardRecord> msgpack = Codecs.msgpack(BoardRecord.class);
    Codec<BoardRecord> spring = Codecs.springJson(BoardRecord.class);
    EnvelopeCodec<BoardRecord> codec =
        BASE.compression(Compression.lz4())
            .alsoRead(msgpack)
            .legacy(spring)
            .maxDecodedSize(4096)
            .envelopeCodec();

    assertThat(codec.writeCodec()).isSameAs(BASE.codec());
    assertThat(codec.compression()).hasToString(Compression.lz4().toString());
    assertThat(codec.maxDecodedSize()).isEqualTo(4096);
    assertThat(codec.decode(codec.encode(board))).isEqualTo(board);
    assertThat(codec.decode(EnvelopeCodec.builder(msgpack).build().encode(board))).isEqualTo(board);
    assertThat(codec.decode(spring.encode(board))).isEqualTo(board);

    // Nothing to learn from outside a cache: the learning policy writes with the standard
    // compression.
    assertThat(BASE.envelopeCodec().compression()).hasToString(Compression.standard().toString());
    // writeLegacy: the envelope codec is for reading, and writes uncompressed envelopes.
    assertThat(
            BASE.writeLegacy(spring).compression(Compression.lz4()).envelopeCodec().compression())
        .hasToString(Compression.none().toString());
  }

  @Test
  void anEnvelopeCodecWithoutRedisTrainsItsDictionaryAndReadsNoOther() {
    List<BoardRecord> samples = Samples.boards(1, 200);
    EnvelopeCodec<BoardRecord> trained = BASE.trainDictionary(samples, 4096).envelopeCodec();
    byte[] value = trained.encode(samples.get(3));
    Envelope.Header header = trained.header(value);
    assertThat(header.compressionId()).isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
    assertThat(trained.decode(value)).isEqualTo(samples.get(3));

    assertThatThrownBy(() -> BASE.envelopeCodec().decode(value))
        .isInstanceOf(DictionaryNotFoundException.class);
  }
}
