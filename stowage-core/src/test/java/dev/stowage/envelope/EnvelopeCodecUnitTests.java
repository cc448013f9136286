package dev.stowage.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.EnvelopeException;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.DictionaryResolver;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.CodecIds;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import java.io.ByteArrayOutputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class EnvelopeCodecUnitTests {
  private static final String RECORD =
      "{\"id\":42,\"title\":\"stowage stowage stowage\",\"author\":\"kim\","
          + "\"content\":\"cache cache cache cache cache cache cache cache\",\"tags\":[\"redis\",\"redis\"]}";

  static List<String> values() {
    Random random = new Random(7);
    StringBuilder megabyte = new StringBuilder(1 << 20);
    while (megabyte.length() < 1 << 20) {
      megabyte.append("board ").append(random.nextInt(1000)).append(' ');
    }
    StringBuilder noise = new StringBuilder();
    for (int i = 0; i < 400; i++) {
      noise.appendCodePoint(0x4E00 + random.nextInt(0x5000));
    }
    return List.of(
        "",
        "a",
        RECORD,
        "한국어 텍스트와 中文文本 그리고 emoji 🚀🎉👩‍💻",
        "🙂".repeat(200),
        megabyte.toString(),
        noise.toString(),
        String.valueOf(Long.MIN_VALUE) + Long.MAX_VALUE);
  }

  static Stream<Arguments> codecsTimesCompressions() {
    return Stream.of(TestCodecs.UTF8, TestCodecs.UTF16)
        .flatMap(
            codec ->
                EnvelopeRoundTrip.compressions().stream()
                    .map(compression -> Arguments.of(codec, compression)));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("codecsTimesCompressions")
  @SuppressWarnings("ReferenceEquality") // the codec constants themselves
  void everyCodecRoundTripsThroughEveryCompression(Codec<String> codec, Compression compression) {
    Codec<String> other = codec == TestCodecs.UTF8 ? TestCodecs.UTF16 : TestCodecs.UTF8;
    for (String value : values()) {
      EnvelopeRoundTrip.assertRoundTrip(codec, other, compression, value);
    }
  }

  @Test
  void compressesLargeCompressibleValuesWithTheConfiguredId() {
    String big = RECORD.repeat(20);
    for (Compression compression : EnvelopeRoundTrip.compressions()) {
      byte[] encoded =
          EnvelopeRoundTrip.assertRoundTrip(TestCodecs.UTF8, TestCodecs.UTF16, compression, big);
      assertThat(Envelope.readHeader(encoded).compressionId())
          .as(compression.toString())
          .isEqualTo(compression.id());
      if (compression.id() != CompressionIds.NONE) {
        assertThat(encoded.length).isLessThan(big.length() / 4);
      }
    }
  }

  @Test
  void decodePayloadGivesBackWhatEncodePayloadMadeWhateverTheCodecAndCompression() {
    // The reader writes with UTF-8 and knows no other codec: the payload is read all the same.
    EnvelopeCodec<String> reader =
        EnvelopeCodec.builder(TestCodecs.UTF8)
            .dictionaries(DictionaryResolver.of(TestDictionaries.TINY))
            .build();
    for (Compression compression : EnvelopeRoundTrip.compressions()) {
      EnvelopeCodec<String> writer =
          EnvelopeCodec.builder(TestCodecs.UTF16).compression(compression).build();
      for (String value : values()) {
        byte[] payload = writer.encodePayload(value);
        byte[] envelope = writer.wrap(payload);
        assertThat(envelope).as(compression + " " + value.length()).isEqualTo(writer.encode(value));
        assertThat(reader.decodePayload(envelope))
            .as(compression + " " + value.length())
            .isEqualTo(payload);
      }
    }
    assertThatThrownBy(() -> reader.decodePayload(RECORD.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(EnvelopeException.class)
        .hasMessage("not a Stowage value: it starts with 7b 22 69 64, not the magic byte c1");
    EnvelopeCodec<String> small =
        EnvelopeCodec.builder(TestCodecs.UTF8).maxDecodedSize(100).build();
    byte[] large =
        EnvelopeCodec.builder(TestCodecs.UTF16)
            .compression(Compression.zstd().minSize(0))
            .build()
            .encode(RECORD.repeat(10));
    assertThatThrownBy(() -> small.decodePayload(large))
        .isInstanceOf(EnvelopeException.class)
        .hasMessageContaining("more than maxDecodedSize 100");
  }

  @Test
  void crossReadsBetweenCodecsAndCompressionsBothWays() {
    ZstdDictionary dictionary = TestDictionaries.TINY;
    EnvelopeCodec<String> utf8Zstd =
        EnvelopeCodec.builder(TestCodecs.UTF8)
            .alsoRead(TestCodecs.UTF16)
            .compression(Compression.zstd().minSize(0))
            .build();
    EnvelopeCodec<String> utf16Lz4 =
        EnvelopeCodec.builder(TestCodecs.UTF16)
            .alsoRead(TestCodecs.UTF8)
            .compression(Compression.lz4().minSize(0))
            .build();
    EnvelopeCodec<String> utf16Dict =
        EnvelopeCodec.builder(TestCodecs.UTF16)
            .alsoRead(TestCodecs.UTF8)
            .compression(CompressionAccess.zstd(dictionary).minSize(0))
            .build();
    String value = RECORD.repeat(3);

    byte[] fromUtf8Zstd = utf8Zstd.encode(value);
    byte[] fromUtf16Lz4 = utf16Lz4.encode(value);
    byte[] fromUtf16Dict = utf16Dict.encode(value);
    assertThat(Envelope.readHeader(fromUtf8Zstd).describe()).isEqualTo("string+zstd");
    assertThat(Envelope.readHeader(fromUtf16Lz4).describe()).isEqualTo("user-128+lz4");
    assertThat(Envelope.readHeader(fromUtf16Dict).describe())
        .isEqualTo("user-128+zstd-dict-magicless(" + dictionary.hexId() + ")");

    assertThat(utf16Lz4.decode(fromUtf8Zstd)).isEqualTo(value);
    assertThat(utf8Zstd.decode(fromUtf16Lz4)).isEqualTo(value);
    assertThat(utf16Dict.decode(fromUtf8Zstd)).isEqualTo(value);
    assertThat(utf16Dict.decode(fromUtf16Lz4)).isEqualTo(value);

    // the dictionary is not the reader's own: it needs a resolver
    assertThatThrownBy(() -> utf8Zstd.decode(fromUtf16Dict))
        .isInstanceOf(DictionaryNotFoundException.class)
        .hasMessageContaining(dictionary.hexId())
        .hasMessageContaining("no dictionaries configured");
    EnvelopeCodec<String> withResolver =
        EnvelopeCodec.builder(TestCodecs.UTF8)
            .alsoRead(TestCodecs.UTF16)
            .dictionaries(DictionaryResolver.of(dictionary))
            .build();
    assertThat(withResolver.decode(fromUtf16Dict)).isEqualTo(value);
  }

  @Test
  void storesValuesBelowTheThresholdUncompressed() {
    EnvelopeCodec<String> codec =
        EnvelopeCodec.builder(TestCodecs.UTF8).compression(Compression.zstd().minSize(100)).build();
    String below = "x".repeat(99);
    String at = "x".repeat(100);
    assertThat(Envelope.readHeader(codec.encode(below)).compressionId())
        .isEqualTo(CompressionIds.NONE);
    assertThat(codec.encode(below)).hasSize(4 + 99);
    assertThat(Envelope.readHeader(codec.encode(at)).compressionId())
        .isEqualTo(CompressionIds.ZSTD);
    assertThat(Compression.zstd().minSize()).isEqualTo(Compression.DEFAULT_MIN_SIZE);
  }

  @Test
  void storesIncompressibleValuesUncompressed() {
    byte[] random = new byte[4000];
    new Random(3).nextBytes(random);
    Codec<String> latin1 = new TestCodecs.StrictTextCodec(150, StandardCharsets.ISO_8859_1);
    String incompressible = new String(random, StandardCharsets.ISO_8859_1);
    for (Compression compression :
        List.of(
            Compression.lz4().minSize(0),
            Compression.zstd().minSize(0),
            CompressionAccess.zstd(TestDictionaries.TINY).minSize(0))) {
      EnvelopeCodec<String> codec = EnvelopeCodec.builder(latin1).compression(compression).build();
      byte[] encoded = codec.encode(incompressible);
      assertThat(Envelope.readHeader(encoded).compressionId())
          .as(compression.name())
          .isEqualTo(CompressionIds.NONE);
      assertThat(Arrays.copyOfRange(encoded, 4, encoded.length)).isEqualTo(random);
      assertThat(codec.decode(encoded)).isEqualTo(incompressible);
    }
  }

  @Test
  void writesTheSchemaVersion() {
    EnvelopeCodec<String> codec =
        EnvelopeCodec.builder(TestCodecs.UTF8)
            .schemaVersion(300)
            .compression(Compression.lz4())
            .build();
    for (String value : List.of("short", RECORD.repeat(5))) {
      byte[] encoded = codec.encode(value);
      Envelope.Header header = codec.header(encoded);
      assertThat(header.schemaVersion()).isEqualTo(300);
      assertThat(header.flags()).isEqualTo(Envelope.FLAG_SCHEMA_VERSION);
      assertThat(codec.decode(encoded)).isEqualTo(value);
    }
    assertThat(codec.schemaVersion()).hasValue(300);
    assertThat(EnvelopeCodec.builder(TestCodecs.UTF8).build().schemaVersion()).isEmpty();
  }

  @Test
  void readsValuesWithoutAnEnvelopeThroughTheLegacyCodec() throws Exception {
    EnvelopeCodec<String> codec =
        EnvelopeCodec.builder(TestCodecs.UTF16).legacy(TestCodecs.UTF8).build();
    byte[] springJson = "[\"java.lang.String\",\"héllo\"]".getBytes(StandardCharsets.UTF_8);
    assertThat(codec.decode(springJson)).isEqualTo("[\"java.lang.String\",\"héllo\"]");
    assertThat(codec.decode(new byte[0])).isEmpty();
    assertThat(codec.decode(codec.encode("new"))).isEqualTo("new");

    ByteArrayOutputStream jdk = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(jdk)) {
      out.writeObject("x");
    }
    assertThatThrownBy(() -> codec.decode(jdk.toByteArray()))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("legacy codec string");
  }

  @Test
  void refusesValuesWithoutAnEnvelopeWhenThereIsNoLegacyCodec() {
    EnvelopeCodec<String> codec = EnvelopeCodec.builder(TestCodecs.UTF8).build();
    assertThatThrownBy(() -> codec.decode("{\"a\":1}".getBytes(StandardCharsets.UTF_8)))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessage(
            "not a Stowage value: it starts with 7b 22 61 22, not the magic byte c1, and no legacy codec is configured");
    assertThatThrownBy(() -> codec.decode(new byte[0]))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessageContaining("the value is empty");
    assertThatThrownBy(() -> codec.header("plain".getBytes(StandardCharsets.UTF_8)))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessageContaining("not a Stowage value");
  }

  @Test
  void namesAnUnknownCodecId() {
    byte[] kryoValue = {(byte) 0xC1, 0x10, 3, 0, 1, 2, 3};
    EnvelopeCodec<String> codec =
        EnvelopeCodec.builder(TestCodecs.UTF8).alsoRead(TestCodecs.UTF16).build();
    assertThatThrownBy(() -> codec.decode(kryoValue))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessage("unknown codec id 3 (kryo); this reader knows string (10), user-128 (128)");
  }

  @Test
  void namesAnUnknownCompressionId() {
    byte[] value = {(byte) 0xC1, 0x10, 10, 9, 'h', 'i'};
    assertThatThrownBy(() -> EnvelopeCodec.builder(TestCodecs.UTF8).build().decode(value))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessageContaining("unknown compression id 9");
  }

  @Test
  void reportsAMissingDictionaryWithItsId() {
    ZstdDictionary absent =
        ZstdDictionary.of("another dictionary entirely".getBytes(StandardCharsets.UTF_8));
    byte[] encoded =
        EnvelopeCodec.builder(TestCodecs.UTF8)
            .compression(CompressionAccess.zstd(absent).minSize(0))
            .build()
            .encode(RECORD);
    EnvelopeCodec<String> reader =
        EnvelopeCodec.builder(TestCodecs.UTF8)
            .dictionaries(DictionaryResolver.of(TestDictionaries.TINY))
            .build();
    assertThatThrownBy(() -> reader.decode(encoded))
        .isInstanceOfSatisfying(
            DictionaryNotFoundException.class,
            e -> assertThat(e.dictionaryId()).isEqualTo(absent.id()))
        .hasMessageContaining(absent.hexId())
        .hasMessageContaining("string+zstd-dict-magicless(" + absent.hexId() + ")");

    EnvelopeCodec<String> failingResolver =
        EnvelopeCodec.builder(TestCodecs.UTF8)
            .dictionaries(
                id -> {
                  throw new IllegalStateException("store offline");
                })
            .build();
    assertThatThrownBy(() -> failingResolver.decode(encoded))
        .isInstanceOf(DictionaryNotFoundException.class)
        .hasMessageContaining("store offline");

    EnvelopeCodec<String> nullResolver =
        EnvelopeCodec.builder(TestCodecs.UTF8).dictionaries(id -> null).build();
    assertThatThrownBy(() -> nullResolver.decode(encoded))
        .isInstanceOf(DictionaryNotFoundException.class);

    EnvelopeCodec<String> lyingResolver =
        EnvelopeCodec.builder(TestCodecs.UTF8).dictionaries(id -> TestDictionaries.TINY).build();
    assertThatThrownBy(() -> lyingResolver.decode(encoded))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessageContaining(
            "returned dictionary "
                + TestDictionaries.TINY.hexId()
                + " when asked for "
                + absent.hexId());
  }

  @Test
  void corruptPayloadsGiveTypedExceptions() {
    String value = RECORD.repeat(4);
    for (Compression compression : EnvelopeRoundTrip.compressions()) {
      if (compression.id() == CompressionIds.NONE) {
        continue; // a cut UTF-8 payload can be valid UTF-8: only the header and the codec can
        // object
      }
      EnvelopeCodec<String> codec =
          EnvelopeCodec.builder(TestCodecs.UTF8)
              .compression(compression.minSize(0))
              .dictionaries(DictionaryResolver.of(TestDictionaries.TINY))
              .build();
      byte[] encoded = codec.encode(value);
      int payload = Envelope.readHeader(encoded).payloadOffset();
      for (int cut = 0; cut < encoded.length; cut++) {
        byte[] truncated = Arrays.copyOf(encoded, cut);
        assertThatThrownBy(() -> codec.decode(truncated))
            .as("%s cut at %d", compression, cut)
            .isInstanceOf(StowageException.class);
      }
      byte[] garbage = encoded.clone();
      for (int i = payload; i < garbage.length; i++) {
        garbage[i] = (byte) (i * 37);
      }
      assertThatThrownBy(() -> codec.decode(garbage))
          .as(compression.toString())
          .isInstanceOfAny(EnvelopeException.class, CodecException.class);
    }
  }

  @Test
  void aCodecThatThrowsSomethingElseIsWrappedAsACodecException() {
    Codec<String> broken =
        new Codec<>() {
          @Override
          public int id() {
            return 200;
          }

          @Override
          public byte[] encode(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
          }

          @Override
          public String decode(byte[] data, int offset, int length) {
            return data[offset + length] == 0 ? "never" : null;
          }
        };
    EnvelopeCodec<String> codec = EnvelopeCodec.builder(broken).build();
    assertThatThrownBy(() -> codec.decode(codec.encode("abc")))
        .isExactlyInstanceOf(CodecException.class)
        .hasCauseInstanceOf(ArrayIndexOutOfBoundsException.class)
        .hasMessageContaining("codec user-200 failed to decode 3 bytes")
        .hasMessageContaining("(user-200+none)");
  }

  @Test
  void refusesToWriteWhatItCouldNotRead() {
    EnvelopeCodec<String> codec = EnvelopeCodec.builder(TestCodecs.UTF8).maxDecodedSize(10).build();
    assertThat(codec.decode(codec.encode("0123456789"))).isEqualTo("0123456789");
    assertThatThrownBy(() -> codec.encode("0123456789A"))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessage("codec string encoded a value to 11 bytes, more than maxDecodedSize 10");
  }

  @Test
  void legacyWritesAreTheLegacyCodecsBytesAndRefusedWhenTheyCouldNotBeReadBack() {
    EnvelopeCodec<String> codec =
        EnvelopeCodec.builder(TestCodecs.UTF8).legacy(TestCodecs.UTF8).maxDecodedSize(10).build();

    byte[] legacy = codec.encodeLegacy(TestCodecs.UTF8, "plain");
    assertThat(legacy).isEqualTo("plain".getBytes(StandardCharsets.UTF_8));
    assertThat(codec.decode(legacy)).isEqualTo("plain");

    assertThatThrownBy(() -> codec.encodeLegacy(TestCodecs.UTF8, "0123456789A"))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessage("legacy codec string encoded a value to 11 bytes, more than maxDecodedSize 10");
    String magic = new String(new byte[] {(byte) 0xc1}, StandardCharsets.ISO_8859_1);
    Codec<String> latin1 =
        new Codec<>() {
          @Override
          public byte[] encode(String value) {
            return value.getBytes(StandardCharsets.ISO_8859_1);
          }

          @Override
          public String decode(byte[] data, int offset, int length) {
            return new String(data, offset, length, StandardCharsets.ISO_8859_1);
          }

          @Override
          public int id() {
            return 201;
          }
        };
    assertThatThrownBy(
            () -> EnvelopeCodec.builder(latin1).build().encodeLegacy(latin1, magic + "x"))
        .isExactlyInstanceOf(EnvelopeException.class)
        .hasMessage(
            "legacy codec user-201 wrote a value starting with 0xc1, which readers would take for an envelope");
  }

  @Test
  void oneInstanceServesManyThreads() throws Exception {
    List<EnvelopeCodec<String>> codecs =
        List.of(
            EnvelopeCodec.builder(TestCodecs.UTF8)
                .compression(Compression.zstd().minSize(0))
                .build(),
            EnvelopeCodec.builder(TestCodecs.UTF8)
                .compression(CompressionAccess.zstd(TestDictionaries.TINY).minSize(0))
                .build(),
            EnvelopeCodec.builder(TestCodecs.UTF8)
                .compression(Compression.lz4().minSize(0))
                .build());
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        results.add(
            threads.submit(
                () -> {
                  int checked = 0;
                  for (int i = 0; i < 1500; i++) {
                    EnvelopeCodec<String> codec = codecs.get((thread + i) % codecs.size());
                    String value = RECORD.repeat(1 + i % 4) + thread + ":" + i;
                    if (!codec.decode(codec.encode(value)).equals(value)) {
                      throw new AssertionError("thread " + thread + " value " + i);
                    }
                    checked++;
                  }
                  return checked;
                }));
      }
      for (Future<Integer> result : results) {
        assertThat(result.get()).isEqualTo(1500);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void theBuilderNamesTheSettingAtFault() {
    assertThatThrownBy(() -> EnvelopeCodec.builder(TestCodecs.UTF8).maxDecodedSize(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxDecodedSize must be at least 1 byte, got 0");
    assertThatThrownBy(() -> EnvelopeCodec.builder(TestCodecs.UTF8).schemaVersion(-2).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("schemaVersion must be 0 or more, got -2");
    Codec<String> secondString =
        new TestCodecs.StrictTextCodec(CodecIds.STRING, StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> EnvelopeCodec.builder(TestCodecs.UTF8).alsoRead(secondString).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("alsoRead: codec id 10 is taken twice, by string");
    Codec<String> idZero = new TestCodecs.StrictTextCodec(0, StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> EnvelopeCodec.builder(idZero).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("writeCodec: codec")
        .hasMessageContaining("has id 0; codec ids are 1 to 255");
    Codec<String> id256 = new TestCodecs.StrictTextCodec(256, StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> EnvelopeCodec.builder(TestCodecs.UTF8).alsoRead(id256).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("alsoRead: codec");
    assertThatThrownBy(() -> Compression.zstd(23))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("zstd level must be -131072 to 22, got 23");
    assertThatThrownBy(() -> Compression.lz4().minSize(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minSize must be 0 or more, got -1");

    EnvelopeCodec<String> sameInstanceTwice =
        EnvelopeCodec.builder(TestCodecs.UTF8).alsoRead(TestCodecs.UTF8, TestCodecs.UTF16).build();
    assertThat(sameInstanceTwice.readableCodecIds()).containsExactly(10, 128);
    assertThat(sameInstanceTwice.maxDecodedSize())
        .isEqualTo(EnvelopeCodec.DEFAULT_MAX_DECODED_SIZE);
  }
}
