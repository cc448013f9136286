package dev.stowage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.codec.Codecs;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.CompressionIds;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.format.StowageKeys;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import dev.stowage.testkit.WithRedis;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Encoding#envelopeCodec(Stowage)}, for values no cache writes: it saves the dictionary and
 * the schema it writes with in the Stowage's Redis, and reads the dictionaries other processes
 * saved.
 */
@WithRedis
class EncodingEnvelopeCodecIntegrationTests {
  private Stowage stowage;

  @BeforeEach
  void connect(RedisServer redis) {
    redis.flushAll();
    stowage = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterEach
  void close() {
    stowage.close();
  }

  @Test
  void aTrainedDictionaryIsSavedInRedisAndAnotherProcessReadsThroughIt(RedisServer redis) {
    List<BoardRecord> samples = Samples.boards(1, 200);
    EnvelopeCodec<BoardRecord> writer =
        Encoding.of(Codecs.json(BoardRecord.class))
            .trainDictionary(samples, 4096)
            .envelopeCodec(stowage);
    byte[] value = writer.encode(samples.get(5));
    Envelope.Header header = writer.header(value);
    assertThat(header.compressionId()).isEqualTo(CompressionIds.ZSTD_DICT_MAGICLESS);
    assertThat(redis.command("EXISTS", DictionaryStore.key(header.dictionaryId()))).isEqualTo(":1");

    try (Stowage another = Stowage.builder().redis(redis.uri()).build()) {
      EnvelopeCodec<BoardRecord> reader =
          Encoding.of(Codecs.json(BoardRecord.class)).envelopeCodec(another);
      assertThat(reader.decode(value)).isEqualTo(samples.get(5));
    }
    assertThatThrownBy(
            () -> Encoding.of(Codecs.json(BoardRecord.class)).envelopeCodec().decode(value))
        .isInstanceOf(DictionaryNotFoundException.class);
  }

  @Test
  void theSchemaOfAnEvolvingCodecIsSavedForReadersOfAnotherShape(RedisServer redis) {
    EnvelopeCodec<BoardRecord> writer =
        Encoding.of(Codecs.msgpackCompact(BoardRecord.class)).envelopeCodec(stowage);
    int fingerprint = writer.schemaVersion().orElseThrow();
    assertThat(redis.command("EXISTS", StowageKeys.schema(fingerprint))).isEqualTo(":1");
  }
}
