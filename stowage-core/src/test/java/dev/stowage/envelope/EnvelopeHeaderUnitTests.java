package dev.stowage.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.EnvelopeException;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.UnsignedVarint;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class EnvelopeHeaderUnitTests {

  private static byte[] hex(String text) {
    return HexFormat.of().parseHex(text.replace(" ", ""));
  }

  @Test
  void readsTheFixedHeader() {
    Envelope.Header header = Envelope.readHeader(hex("c1 10 0a 00 68 69"));
    assertThat(header).isEqualTo(new Envelope.Header(1, 0, 10, 0, -1, -1, 4));
    assertThat(header.hasDictionary()).isFalse();
    assertThat(header.hasSchemaVersion()).isFalse();
    assertThat(header.codecName()).isEqualTo("string");
    assertThat(header.compressionName()).isEqualTo("none");
  }

  @Test
  void anEmptyPayloadIsAllowed() {
    assertThat(Envelope.readHeader(hex("c1 10 01 02")).payloadOffset()).isEqualTo(4);
  }

  @Test
  void readsTheSchemaVersionWhenFlagged() {
    Envelope.Header header = Envelope.readHeader(hex("c1 11 02 01 ac 02 ff"));
    assertThat(header.schemaVersion()).isEqualTo(300);
    assertThat(header.hasSchemaVersion()).isTrue();
    assertThat(header.payloadOffset()).isEqualTo(6);
  }

  @Test
  void readsTheDictionaryIdOnlyForZstdDict() {
    Envelope.Header header = Envelope.readHeader(hex("c1 10 03 03 ff ff ff ff 0f 00"));
    assertThat(header.dictionaryId()).isEqualTo(0xFFFF_FFFFL);
    assertThat(header.payloadOffset()).isEqualTo(9);
    assertThat(header.describe()).isEqualTo("kryo+zstd-dict(ffffffff)");

    assertThat(Envelope.readHeader(hex("c1 10 03 02 ff ff")).dictionaryId()).isEqualTo(-1);

    Envelope.Header magicless = Envelope.readHeader(hex("c1 10 03 04 ff ff ff ff 0f 20"));
    assertThat(magicless.dictionaryId()).isEqualTo(0xFFFF_FFFFL);
    assertThat(magicless.payloadOffset()).isEqualTo(9);
    assertThat(magicless.describe()).isEqualTo("kryo+zstd-dict-magicless(ffffffff)");
  }

  @Test
  void readsDictionaryIdThenSchemaVersion() {
    Envelope.Header header = Envelope.readHeader(hex("c1 11 80 03 7f 00 28 b5"));
    assertThat(header.codecId()).isEqualTo(128);
    assertThat(header.dictionaryId()).isEqualTo(127);
    assertThat(header.schemaVersion()).isEqualTo(0);
    assertThat(header.payloadOffset()).isEqualTo(6);
    assertThat(header.describe()).isEqualTo("user-128+zstd-dict(0000007f) schema 0");
  }

  @Test
  void isEnvelopeLooksAtTheMagicByteOnly() {
    assertThat(Envelope.isEnvelope(new byte[0])).isFalse();
    assertThat(Envelope.isEnvelope(hex("c1"))).isTrue();
    assertThat(Envelope.isEnvelope(hex("7b 22"))).isFalse();
    assertThat(Envelope.isEnvelope(hex("ac ed 00 05"))).isFalse();
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "''                        | not a Stowage value: the value is empty",
        "7b 22 69 64               | not a Stowage value: it starts with 7b 22 69 64, not the magic byte c1",
        "ac ed 00 05 73            | not a Stowage value",
        "c1                        | truncated envelope: 1 bytes",
        "c1 10                     | truncated envelope: 2 bytes",
        "c1 10 0a                  | truncated envelope: 3 bytes",
        "c1 00 0a 00               | unsupported envelope version 0",
        "c1 20 0a 00               | unsupported envelope version 2",
        "c1 f1 0a 00               | unsupported envelope version 15",
        "c1 12 0a 00               | unknown envelope flags 0x2",
        "c1 14 0a 00               | unknown envelope flags 0x4",
        "c1 18 0a 00 00            | unknown envelope flags 0x8",
        "c1 1f 0a 00               | unknown envelope flags 0xf",
        "c1 10 00 00               | codec id 0 is reserved",
        "c1 10 0a 05               | unknown compression id 5",
        "c1 10 0a 04               | truncated dictionary id varint",
        "c1 10 0a 04 80 00         | dictionary id varint is not minimally encoded",
        "c1 10 0a ff               | unknown compression id 255",
        "c1 10 0a 03               | truncated dictionary id varint",
        "c1 10 0a 03 80            | truncated dictionary id varint",
        "c1 10 0a 03 ff ff ff ff   | truncated dictionary id varint",
        "c1 10 0a 03 80 80 80 80 80 01 | dictionary id varint is longer than 5 bytes",
        "c1 10 0a 03 ff ff ff ff 1f | dictionary id varint overflows",
        "c1 10 0a 03 80 00         | dictionary id varint is not minimally encoded",
        "c1 10 0a 03 81 80 00      | dictionary id varint is not minimally encoded",
        "c1 11 0a 00               | truncated schema version varint",
        "c1 11 0a 00 ac            | truncated schema version varint",
        "c1 11 0a 00 ff ff ff ff 0f | schema version varint overflows",
        "c1 11 0a 00 ff ff ff ff 08 | schema version varint overflows",
        "c1 11 0a 00 80 80 80 80 80 | schema version varint is longer than 5 bytes",
        "c1 11 0a 00 80 00         | schema version varint is not minimally encoded",
        "c1 11 0a 03 05            | truncated schema version varint",
      })
  void rejectsEveryMalformedHeader(String bytes, String message) {
    assertThatThrownBy(() -> Envelope.readHeader(hex(bytes)))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessageContaining(message);
  }

  @Test
  void everyPrefixOfAValidHeaderIsRejectedCleanly() {
    byte[] full = hex("c1 11 0a 03 ff ff ff ff 0f ac 02");
    for (int length = 0; length < full.length; length++) {
      byte[] prefix = Arrays.copyOf(full, length);
      assertThatThrownBy(() -> Envelope.readHeader(prefix)).isInstanceOf(EnvelopeException.class);
    }
    assertThat(Envelope.readHeader(full).payloadOffset()).isEqualTo(full.length);
  }

  @ParameterizedTest
  @ValueSource(
      longs = {
        0,
        1,
        127,
        128,
        300,
        16_383,
        16_384,
        2_097_151,
        2_097_152,
        268_435_455,
        268_435_456,
        Integer.MAX_VALUE,
        0xFFFF_FFFFL
      })
  void varintsRoundTripInTheirMinimalSize(long value) {
    byte[] buffer = new byte[8];
    int end = UnsignedVarint.write(value, buffer, 1);
    int expectedSize =
        value < 1L << 7
            ? 1
            : value < 1L << 14 ? 2 : value < 1L << 21 ? 3 : value < 1L << 28 ? 4 : 5;
    assertThat(end - 1).isEqualTo(expectedSize).isEqualTo(UnsignedVarint.size(value));
    assertThat(UnsignedVarint.read(buffer, 1, end, 0xFFFF_FFFFL, "test")).isEqualTo(value);
    assertThatThrownBy(() -> UnsignedVarint.read(buffer, 1, end - 1, 0xFFFF_FFFFL, "test"))
        .isInstanceOf(EnvelopeException.class)
        .hasMessageContaining("truncated test varint");
  }

  @Test
  void varintsHoldOnlyUnsigned32BitValues() {
    assertThatThrownBy(() -> UnsignedVarint.size(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> UnsignedVarint.write(0x1_0000_0000L, new byte[8], 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0 to 4294967295");
  }

  @Test
  void writesTheLowGroupFirst() {
    byte[] buffer = new byte[2];
    UnsignedVarint.write(300, buffer, 0);
    assertThat(buffer).isEqualTo(hex("ac 02"));
  }
}
