package dev.stowage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link Encoding#serializer()}: a cache's bytes, written and read without Redis. */
class EncodingSerializerUnitTests {
  private static final Encoding<BoardRecord> JSON = Encoding.of(Codecs.json(BoardRecord.class));

  @Test
  void writesTheBytesTheEnvelopeCodecOfTheEncodingWrites() {
    BoardRecord board = Samples.board(7);
    Encoding<BoardRecord> lz4 = JSON.compression(Compression.lz4());
    byte[] bytes = lz4.serializer().encode(board);
    assertThat(bytes).isEqualTo(lz4.envelopeCodec().encode(board));
    assertThat(Encoding.Serializer.isEnvelope(bytes)).isTrue();
    assertThat(lz4.serializer().decode(bytes)).isEqualTo(board);
    assertThat(lz4.serializer().compression()).hasToString(Compression.lz4().toString());
    assertThat(lz4.serializer().codec().name()).isEqualTo("json");
  }

  @Test
  void readsWhatTheCodecsAlsoReadAndTheLegacyCodecWrote() {
    BoardRecord board = Samples.board(3);
    byte[] msgpack = Encoding.of(Codecs.msgpack(BoardRecord.class)).serializer().encode(board);
    byte[] legacy = Codecs.json(BoardRecord.class).encode(board);
    Encoding.Serializer<BoardRecord> reader =
        JSON.alsoRead(Codecs.msgpack(BoardRecord.class))
            .legacy(Codecs.json(BoardRecord.class))
            .serializer();
    assertThat(reader.decode(msgpack)).isEqualTo(board);
    assertThat(reader.decode(legacy)).isEqualTo(board);
    assertThatThrownBy(() -> JSON.serializer().decode(legacy))
        .isInstanceOf(EnvelopeException.class)
        .hasMessageContaining("no legacy codec");
  }

  @Test
  void writeLegacyWritesTheLegacyCodecsBytesWithoutAnEnvelope() {
    BoardRecord board = Samples.board(5);
    Encoding.Serializer<BoardRecord> serializer =
        Encoding.of(Codecs.msgpack(BoardRecord.class))
            .writeLegacy(Codecs.json(BoardRecord.class))
            .serializer();
    byte[] bytes = serializer.encode(board);
    assertThat(bytes).isEqualTo(Codecs.json(BoardRecord.class).encode(board));
    assertThat(Encoding.Serializer.isEnvelope(bytes)).isFalse();
    assertThat(serializer.decode(bytes)).isEqualTo(board);
    assertThat(serializer.compression()).hasToString(Compression.none().toString());
    assertThat(serializer.codec().name()).isEqualTo("json");
  }

  @Test
  void aTrainedDictionaryIsReadByItsOwnSerializerOnly() {
    List<BoardRecord> samples = Samples.boards(1, 200);
    Encoding.Serializer<BoardRecord> trained = JSON.trainDictionary(samples, 4096).serializer();
    byte[] bytes = trained.encode(samples.get(2));
    assertThat(Inspector.header(bytes).orElseThrow().dictionaryId()).isPresent();
    assertThat(trained.decode(bytes)).isEqualTo(samples.get(2));
    assertThatThrownBy(() -> JSON.serializer().decode(bytes))
        .isInstanceOf(DictionaryNotFoundException.class);
  }

  @Test
  void theLimitIsTheEncodingsAndTheDefaultIsTheCachesDefault() {
    assertThat(JSON.serializer().maxDecodedSize()).isEqualTo(Encoding.DEFAULT_MAX_DECODED_SIZE);
    assertThat(Encoding.DEFAULT_MAX_DECODED_SIZE).isEqualTo(8 * 1024 * 1024);
    Encoding.Serializer<BoardRecord> small = JSON.maxDecodedSize(16).serializer();
    assertThatThrownBy(() -> small.encode(Samples.board(1)))
        .isInstanceOf(EnvelopeException.class)
        .hasMessageContaining("maxDecodedSize 16");
  }
}
