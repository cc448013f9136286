package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.Codec;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import dev.stowage.envelope.Mutations;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.DictionaryResolver;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.envelope.EnvelopeCodec;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded random mutation of envelopes that real codecs wrote, in every compression, decoded by a
 * reader of that codec: each case decodes or throws a {@link StowageException}, never anything
 * else, whatever the codec's library does with the bytes. Replay a failure from the seed and bytes
 * it prints.
 */
class CodecEnvelopeFuzzUnitTests {
  private static final long SEED = 0xF022ED5L;
  private static final int CASES_PER_CODEC = 8_000;

  static Stream<CodecCase<?>> codecs() {
    return CodecCases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("codecs")
  <T> void mutatedEnvelopesOfARealCodecDecodeOrThrowStowageExceptions(CodecCase<T> codecCase) {
    Codec<T> codec = codecCase.codec().get();
    Random random = new Random(SEED ^ codecCase.name().hashCode());
    List<byte[]> samples = new ArrayList<>();
    for (T value : codecCase.generated()) {
      samples.add(codec.encode(value));
    }
    // Raw-content dictionary: the samples themselves (any bytes are a zstd dictionary).
    ByteArrayOutputStream content = new ByteArrayOutputStream();
    samples.forEach(content::writeBytes);
    ZstdDictionary dictionary =
        ZstdDictionary.of(Arrays.copyOf(content.toByteArray(), Math.min(content.size(), 8192)));
    List<byte[]> seeds = new ArrayList<>();
    for (Compression compression :
        List.of(
            Compression.none(),
            Compression.lz4().minSize(0),
            Compression.zstd().minSize(0),
            CompressionAccess.zstd(dictionary).minSize(0))) {
      EnvelopeCodec<T> writer = EnvelopeCodec.builder(codec).compression(compression).build();
      for (int i = 0; i < Math.min(10, codecCase.generated().size()); i++) {
        seeds.add(writer.encode(codecCase.generated().get(i)));
      }
    }
    EnvelopeCodec<T> reader =
        EnvelopeCodec.builder(codec)
            .dictionaries(DictionaryResolver.of(dictionary))
            .maxDecodedSize(1 << 20)
            .build();
    Map<String, Integer> outcomes = new TreeMap<>();
    for (int i = 0; i < CASES_PER_CODEC; i++) {
      byte[] mutated = Mutations.mutate(seeds.get(random.nextInt(seeds.size())), random);
      String outcome;
      try {
        assertThat(reader.decode(mutated)).isNotNull();
        outcome = "decoded";
      } catch (StowageException e) {
        assertThat(e.getMessage()).isNotBlank();
        outcome = e.getClass().getSimpleName();
      } catch (Throwable t) {
        throw new AssertionError(
            codecCase.name()
                + " case "
                + i
                + " escaped with "
                + t
                + " on bytes "
                + HexFormat.of().formatHex(mutated, 0, Math.min(mutated.length, 200)),
            t);
      }
      outcomes.merge(outcome, 1, Integer::sum);
    }
    assertThat(outcomes).as(codecCase.name()).containsKey("CodecException");
  }
}
