package dev.stowage.envelope;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.CodecException;
import dev.stowage.DictionaryNotFoundException;
import dev.stowage.EnvelopeCodec;
import dev.stowage.EnvelopeException;
import dev.stowage.StowageException;
import dev.stowage.compress.Compression;
import dev.stowage.compress.DictionaryResolver;
import java.util.ArrayList;
import java.util.Arrays;
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
      byte[] mutated = mutate(base, random);
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
        throw new AssertionError("case " + i + " (seed " + SEED + ") escaped with " + t + " on bytes "
            + HexFormat.of().formatHex(mutated, 0, Math.min(mutated.length, 200)), t);
      }
      outcomes.merge(outcome, 1, Integer::sum);
    }

    assertThat(outcomes.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(CASES);
    assertThat(outcomes).as("the mutations reach every outcome").containsKeys("decoded",
        EnvelopeException.class.getSimpleName(), CodecException.class.getSimpleName(),
        DictionaryNotFoundException.class.getSimpleName());
  }

  private static EnvelopeCodec.Builder<String> reader() {
    return EnvelopeCodec.builder(TestCodecs.UTF8).alsoRead(TestCodecs.UTF16)
        .dictionaries(DictionaryResolver.of(TestDictionaries.TINY))
        .maxDecodedSize(64 * 1024);
  }

  private static List<byte[]> validEnvelopes(Random random) {
    List<String> values = List.of("", "x", "{\"id\":7,\"title\":\"stowage\",\"tags\":[\"redis\",\"cache\"]}".repeat(3),
        "한국어 中文 🚀".repeat(20), "\0".repeat(5000));
    List<byte[]> envelopes = new ArrayList<>();
    for (Compression compression : EnvelopeRoundTrip.compressions()) {
      for (int schema : new int[] {-1, 0, 300, Integer.MAX_VALUE}) {
        EnvelopeCodec.Builder<String> builder = EnvelopeCodec.builder(random.nextBoolean() ? TestCodecs.UTF8 : TestCodecs.UTF16)
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

  private static byte[] mutate(byte[] base, Random random) {
    byte[] bytes = base.clone();
    int rounds = 1 + random.nextInt(3);
    for (int r = 0; r < rounds; r++) {
      switch (random.nextInt(9)) {
        case 0 -> { // flip a bit
          if (bytes.length > 0) {
            int at = random.nextInt(bytes.length);
            bytes[at] ^= (byte) (1 << random.nextInt(8));
          }
        }
        case 1 -> { // set a random byte
          if (bytes.length > 0) {
            bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
          }
        }
        case 2 -> { // change one of the header bytes to an edge value
          if (bytes.length > 3) {
            int[] edges = {0x00, 0x01, 0x02, 0x03, 0x04, 0x0F, 0x10, 0x11, 0x12, 0x7F, 0x80, 0xC1, 0xFF};
            bytes[1 + random.nextInt(3)] = (byte) edges[random.nextInt(edges.length)];
          }
        }
        case 3 -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1)); // truncate
        case 4 -> { // append random bytes
          byte[] tail = new byte[1 + random.nextInt(16)];
          random.nextBytes(tail);
          byte[] longer = Arrays.copyOf(bytes, bytes.length + tail.length);
          System.arraycopy(tail, 0, longer, bytes.length, tail.length);
          bytes = longer;
        }
        case 5 -> { // delete a range
          if (bytes.length > 1) {
            int from = random.nextInt(bytes.length);
            int to = Math.min(bytes.length, from + 1 + random.nextInt(8));
            byte[] shorter = new byte[bytes.length - (to - from)];
            System.arraycopy(bytes, 0, shorter, 0, from);
            System.arraycopy(bytes, to, shorter, from, bytes.length - to);
            bytes = shorter;
          }
        }
        case 6 -> { // insert a run of 0x80 or 0xFF, as in an endless varint
          int at = Math.min(bytes.length, 4 + random.nextInt(3));
          byte[] run = new byte[1 + random.nextInt(7)];
          Arrays.fill(run, (byte) (random.nextBoolean() ? 0x80 : 0xFF));
          byte[] longer = new byte[bytes.length + run.length];
          System.arraycopy(bytes, 0, longer, 0, at);
          System.arraycopy(run, 0, longer, at, run.length);
          System.arraycopy(bytes, at, longer, at + run.length, bytes.length - at);
          bytes = longer;
        }
        case 7 -> { // overwrite a 4-byte little-endian field with a huge size
          if (bytes.length >= 8) {
            int at = 4 + random.nextInt(bytes.length - 7);
            int huge = random.nextBoolean() ? Integer.MAX_VALUE : 0x4000_0000 + random.nextInt(1 << 20);
            for (int k = 0; k < 4; k++) {
              bytes[at + k] = (byte) (huge >>> (8 * k));
            }
          }
        }
        default -> { // random bytes without or with the magic byte
          byte[] foreign = new byte[random.nextInt(24)];
          random.nextBytes(foreign);
          if (foreign.length > 0 && random.nextBoolean()) {
            foreign[0] = (byte) 0xC1;
          }
          bytes = foreign;
        }
      }
    }
    return bytes;
  }
}
