package dev.stowage.bench.codecs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.samples.ProtobufForms;
import dev.stowage.samples.Samples;
import org.junit.jupiter.api.Test;

/** Every codec × variant × shape of table T3 builds, and every record survives its round trip. */
class CodecFormsUnitTests {

  @Test
  void everyConfigurationRoundTripsItsRecords() {
    for (DataShape data : DataShape.values()) {
      for (CodecUnderTest codec : CodecUnderTest.values()) {
        CodecForms<?, ?> forms = CodecForms.of(codec, data);
        for (PayloadVariant variant : PayloadVariant.values()) {
          CodecFixture<?, ?> fixture = forms.fixture(variant, 16, 300);
          fixture.verifyRoundTrips();
          assertThat(fixture.records()).isEqualTo(16);
          assertThat(fixture.encodedBytes()).as(fixture.toString()).isPositive();
        }
      }
    }
  }

  @Test
  void envelopedVariantsWriteTheEnvelopeAndBareOnesDoNot() {
    CodecFixture<Object, Object> bare =
        fixture(CodecUnderTest.KRYO, PayloadVariant.BARE, DataShape.BOARD);
    CodecFixture<Object, Object> dict =
        fixture(CodecUnderTest.KRYO, PayloadVariant.ZSTD_DICT, DataShape.BOARD);
    byte[] bareBytes = bare.encode(bare.create(0));
    byte[] dictBytes = dict.encode(dict.create(0));
    assertThat(Encoding.Serializer.isEnvelope(bareBytes)).isFalse();
    assertThat(Inspector.header(dictBytes).orElseThrow().compressionName())
        .isEqualTo("zstd-dict-magicless");
    assertThat(dictBytes.length).isLessThan(bareBytes.length);
  }

  @Test
  void theCodecsFormIsBuiltFromTheSameRecord() {
    CodecFixture<Object, Object> json =
        fixture(CodecUnderTest.JSON, PayloadVariant.BARE, DataShape.BOARD);
    CodecFixture<Object, Object> protobuf =
        fixture(CodecUnderTest.PROTOBUF, PayloadVariant.BARE, DataShape.BOARD);
    assertThat(json.create(3))
        .isInstanceOf(dev.stowage.samples.BoardRecord.class)
        .isEqualTo(Samples.board(3));
    assertThat(
            ProtobufForms.fromProtobuf(
                (dev.stowage.samples.protobuf.BoardRecord) protobuf.create(3)))
        .isEqualTo(Samples.board(3));
  }

  @SuppressWarnings("unchecked")
  private static CodecFixture<Object, Object> fixture(
      CodecUnderTest codec, PayloadVariant variant, DataShape data) {
    return (CodecFixture<Object, Object>) CodecForms.of(codec, data).fixture(variant, 8, 300);
  }
}
