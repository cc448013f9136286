package dev.stowage.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.EnvelopeException;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import dev.stowage.internal.compress.DictionaryResolver;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.envelope.EnvelopeCodecBuilder;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Seeded random mutation of valid envelopes, in every compression, through a reader that knows
 * every codec and compression: each case must decode or throw a {@link StowageException}; nothing
 * else may escape. A failure prints the seed and the bytes, so it can be replayed.
 */
class EnvelopeFuzzUnitTests {
  private static final long SEED = 0x5707A6EL;
  private static final int CASES = 120_000;

  @Test
  void mutatedEnvelopesDecodeOrThrowOnlyStowageExceptions() {
    Random random = new Random(SEED);
    List<byte[]> seeds = validEnvelopes(random);
    EnvelopeCodec<String> strict = reader().build();
    EnvelopeCodec<String> withLegacy = reader().legacy(TestCodecs.UTF8).build();
    Map<String, Integer> outcomes = new TreeMap<>();

    for (int i = 0; i < CASES; i++) {
      byte[] base = seeds.get(random.nextInt(seeds.size()));
      byte[] mutated = Mutations.mutate(base, random);
      EnvelopeCodec<String> reader = (i & 1) == 0 ? strict : withLegacy;
      String outcome;
      try {
        String value = reader.decode(mutated);
        assertThat(value).isNotNull();
        outcome = "decoded";
      } catch (StowageException e) {
        assertThat(e.getMessage()).isNotBlank();
        outcome = e.getClass().getSimpleName();
      } catch (Throwable t) {
        throw new AssertionError(
            "case "
                + i
                + " (seed "
                + SEED
                + ") escaped with "
                + t
                + " on bytes "
                + HexFormat.of().formatHex(mutated, 0, Math.min(mutated.length, 200)),
            t);
      }
      outcomes.merge(outcome, 1, Integer::sum);
    }

    assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(CASES);
    assertThat(outcomes)
        .as("the mutations reach every outcome")
        .containsKeys(
            "decoded",
            EnvelopeException.class.getSimpleName(),
            CodecException.class.getSimpleName(),
            DictionaryNotFoundException.class.getSimpleName());
  }

  private static EnvelopeCodecBuilder<String> reader() {
    return EnvelopeCodec.builder(TestCodecs.UTF8)
        .alsoRead(TestCodecs.UTF16)
        .dictionaries(DictionaryResolver.of(TestDictionaries.TINY))
        .maxDecodedSize(64 * 1024);
  }

  private static List<byte[]> validEnvelopes(Random random) {
    List<String> values =
        List.of(
            "",
            "x",
            "{\"id\":7,\"title\":\"stowage\",\"tags\":[\"redis\",\"cache\"]}".repeat(3),
            "한국어 中文 🚀".repeat(20),
            "\0".repeat(5000));
    List<byte[]> envelopes = new ArrayList<>();
    for (Compression compression : EnvelopeRoundTrip.compressions()) {
      for (int schema : new int[] {-1, 0, 300, Integer.MAX_VALUE}) {
        EnvelopeCodecBuilder<String> builder =
            EnvelopeCodec.builder(random.nextBoolean() ? TestCodecs.UTF8 : TestCodecs.UTF16)
                .compression(compression.minSize(0));
        if (schema >= 0) {
          builder.schemaVersion(schema);
        }
        EnvelopeCodec<String> writer = builder.build();
        for (String value : values) {
          envelopes.add(writer.encode(value));
        }
      }
    }
    return envelopes;
  }
}
