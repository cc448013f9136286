package dev.stowage.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.DictionaryNotFoundException;
import dev.stowage.StowageException;
import dev.stowage.embedded.RedisServer;
import dev.stowage.envelope.TestCodecs;
import dev.stowage.envelope.TestDictionaries;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.Envelope;
import dev.stowage.internal.store.DictionaryStore;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@WithRedis
class DictionaryStoreIntegrationTests {
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> connection;

  @BeforeAll
  static void connect(RedisServer redis) {
    client = RedisClient.create(redis.uri());
    connection = client.connect(ByteArrayCodec.INSTANCE);
  }

  @AfterAll
  static void disconnect() {
    connection.close();
    client.shutdown();
  }

  @BeforeEach
  void emptyRedis(RedisServer redis) {
    redis.flushAll();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void savesOnceUnderTheContentAddressedKey() {
    DictionaryStore store = new DictionaryStore(connection);
    assertThat(store.save(TestDictionaries.TINY)).isTrue();
    assertThat(store.save(TestDictionaries.TINY)).isFalse();
    assertThat(new DictionaryStore(connection).save(TestDictionaries.TINY)).isFalse();

    assertThat(DictionaryStore.key(TestDictionaries.TINY.id())).isEqualTo("stowage:dict:e43d0dee");
    assertThat(connection.sync().get(bytes("stowage:dict:e43d0dee")))
        .isEqualTo(TestDictionaries.TINY.bytes());
    assertThat(connection.sync().ttl(bytes("stowage:dict:e43d0dee"))).as("no expiry").isEqualTo(-1);
  }

  @Test
  void resolvesFromRedisOnFirstUseThenFromItsCache() {
    new DictionaryStore(connection).save(TestDictionaries.TINY);
    DictionaryStore reader = new DictionaryStore(connection);
    assertThat(reader.resolve(TestDictionaries.TINY.id())).isEqualTo(TestDictionaries.TINY);

    connection.sync().flushall();
    assertThat(reader.resolve(TestDictionaries.TINY.id()))
        .as("cached in-process")
        .isEqualTo(TestDictionaries.TINY);
    assertThatThrownBy(() -> new DictionaryStore(connection).resolve(TestDictionaries.TINY.id()))
        .isInstanceOf(DictionaryNotFoundException.class);
  }

  @Test
  void cachesWhatItSaves() {
    DictionaryStore store = new DictionaryStore(connection);
    store.save(TestDictionaries.TINY);
    connection.sync().flushall();
    assertThat(store.resolve(TestDictionaries.TINY.id())).isEqualTo(TestDictionaries.TINY);
  }

  @Test
  void anAbsentIdIsNotFound() {
    assertThatThrownBy(() -> new DictionaryStore(connection).resolve(0x1234abcdL))
        .isInstanceOfSatisfying(
            DictionaryNotFoundException.class,
            e -> assertThat(e.dictionaryId()).isEqualTo(0x1234abcdL))
        .hasMessage(
            "zstd dictionary 1234abcd was not found (no key stowage:dict:1234abcd in Redis)");
  }

  @Test
  void bytesThatDoNotHashToTheirIdAreRejected() {
    ZstdDictionary real = ZstdDictionary.of(bytes("the real dictionary"));
    connection.sync().set(bytes(DictionaryStore.key(real.id())), bytes("tampered bytes"));
    DictionaryStore store = new DictionaryStore(connection);
    assertThatThrownBy(() -> store.resolve(real.id()))
        .isInstanceOf(DictionaryNotFoundException.class)
        .hasMessageContaining(
            "stowage:dict:"
                + real.hexId()
                + " is corrupt: its 14 bytes hash to "
                + ZstdDictionary.hexId(ZstdDictionary.idOf(bytes("tampered bytes"))));
    assertThatThrownBy(() -> store.save(real))
        .isExactlyInstanceOf(StowageException.class)
        .hasMessageContaining("stowage:dict:" + real.hexId() + " already holds 14 other bytes");
    assertThat(connection.sync().get(bytes(DictionaryStore.key(real.id()))))
        .as("left as it is")
        .isEqualTo(bytes("tampered bytes"));
  }

  @Test
  void listsStoredIdsWithScan() {
    DictionaryStore store = new DictionaryStore(connection);
    List<Long> saved = new ArrayList<>();
    for (int i = 0; i < 1200; i++) {
      ZstdDictionary dictionary = ZstdDictionary.of(bytes("dictionary number " + i));
      store.save(dictionary);
      saved.add(dictionary.id());
    }
    connection.sync().set(bytes("stowage:dict:not-an-id"), bytes("x"));
    connection.sync().set(bytes("other:key"), bytes("x"));

    assertThat(store.list()).hasSize(1200).isSorted().containsExactlyInAnyOrderElementsOf(saved);
    assertThat(new DictionaryStore(connection).list()).isEqualTo(store.list());
  }

  @Test
  void anEnvelopeCodecReadsDictionaryValuesThroughTheStore() {
    List<byte[]> samples = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      samples.add(
          bytes(
              "{\"id\":"
                  + i
                  + ",\"title\":\"post "
                  + (i * 7919 % 1000)
                  + "\",\"author\":\"user"
                  + (i % 37)
                  + "\",\"tags\":[\"redis\",\"cache\"]}"));
    }
    ZstdDictionary trained = ZstdDictionary.train(samples, 2048);
    new DictionaryStore(connection).save(trained);

    EnvelopeCodec<String> writer =
        EnvelopeCodec.builder(TestCodecs.UTF8)
            .compression(CompressionAccess.zstd(trained).minSize(0))
            .build();
    String value =
        "{\"id\":9001,\"title\":\"post 12\",\"author\":\"user3\",\"tags\":[\"redis\",\"cache\"]}";
    byte[] encoded = writer.encode(value);
    assertThat(Envelope.readHeader(encoded).dictionaryId()).isEqualTo(trained.id());

    EnvelopeCodec<String> reader =
        EnvelopeCodec.builder(TestCodecs.UTF16)
            .alsoRead(TestCodecs.UTF8)
            .dictionaries(new DictionaryStore(connection))
            .build();
    assertThat(reader.decode(encoded)).isEqualTo(value);
  }

  @Test
  void redisFailuresAreStowageExceptions() {
    try (RedisServer own = RedisServer.start()) {
      RedisURI uri = RedisURI.create(own.uri());
      uri.setTimeout(Duration.ofMillis(500));
      RedisClient shortTimeout = RedisClient.create(uri);
      try (StatefulRedisConnection<byte[], byte[]> doomed =
          shortTimeout.connect(ByteArrayCodec.INSTANCE)) {
        DictionaryStore store = new DictionaryStore(doomed);
        own.stop();
        assertThatThrownBy(() -> store.resolve(42))
            .isExactlyInstanceOf(StowageException.class)
            .hasMessageStartingWith("could not load zstd dictionary 0000002a from Redis");
        assertThatThrownBy(store::list)
            .isExactlyInstanceOf(StowageException.class)
            .hasMessageStartingWith("could not list zstd dictionaries");
      } finally {
        shortTimeout.shutdown(Duration.ZERO, Duration.ofSeconds(1));
      }
    }
  }
}
