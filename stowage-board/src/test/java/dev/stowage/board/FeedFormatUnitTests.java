package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.DictionaryNotFoundException;
import dev.stowage.Envelope;
import dev.stowage.compress.CompressionIds;
import dev.stowage.compress.ZstdDictionary;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import net.datafaker.Faker;
import org.junit.jupiter.api.Test;

class FeedFormatUnitTests {
  private static final BoardFormats FORMATS = new BoardFormats();

  /** Seed-shaped posts with varied text, made deterministically. */
  static List<byte[]> posts(int count, long seed) {
    Faker faker = new Faker(Locale.US, new Random(seed));
    List<byte[]> fragments = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      NewBoard input = new NewBoard((long) faker.number().numberBetween(1, 100_000),
          faker.name().fullName(), faker.lorem().paragraph(3), faker.address().fullAddress(),
          faker.address().country(), faker.job().title(), faker.finance().creditCard(),
          faker.idNumber().ssnValid(), faker.company().name(), faker.phoneNumber().phoneNumber());
      fragments.add(FORMATS.toJson(Board.create(input, i + 1, 1_701_134_160_000L + i * 1000L)));
    }
    return fragments;
  }

  @Test
  void everyStorageGivesBackTheExactJsonFragment() {
    List<byte[]> posts = posts(300, 1);
    ZstdDictionary dictionary = FeedFormat.train(posts.subList(0, 200));
    for (FeedFormat.Storage storage : FeedFormat.Storage.values()) {
      FeedFormat format = new FeedFormat(storage);
      format.use(dictionary);
      for (byte[] post : posts.subList(200, 300)) {
        byte[] member = format.encode(post);
        assertThat(Envelope.isEnvelope(member)).isTrue();
        assertThat(format.decode(member)).as(storage.name()).isEqualTo(post);
      }
    }
  }

  @Test
  void aDictionaryIsUsedOnlyForZstdDictAndOnlyOnceAdopted() {
    List<byte[]> posts = posts(120, 2);
    FeedFormat format = new FeedFormat(FeedFormat.Storage.ZSTD_DICT);
    assertThat(format.needsDictionary()).isTrue();
    byte[] before = format.encode(posts.get(0));
    assertThat(Envelope.readHeader(before).compressionId()).isEqualTo(CompressionIds.NONE);
    format.use(FeedFormat.train(posts));
    assertThat(format.needsDictionary()).isFalse();
    byte[] after = format.encode(posts.get(1));
    assertThat(Envelope.readHeader(after).compressionId()).isEqualTo(CompressionIds.ZSTD_DICT);
    assertThat(format.decode(before)).isEqualTo(posts.get(0));
    assertThat(format.decode(after)).isEqualTo(posts.get(1));
  }

  @Test
  void plainJsonMembersAsTheSeedWritesThemAreReadAsTheyAre() {
    byte[] plain = "{\"id\":\"x\"}".getBytes(StandardCharsets.UTF_8);
    assertThat(new FeedFormat(FeedFormat.Storage.ZSTD).decode(plain)).isEqualTo(plain);
  }

  @Test
  void anUnknownDictionaryIsAMissNotAWait() {
    List<byte[]> posts = posts(120, 3);
    FeedFormat writer = new FeedFormat(FeedFormat.Storage.ZSTD_DICT);
    ZstdDictionary dictionary = FeedFormat.train(posts);
    writer.use(dictionary);
    byte[] member = writer.encode(posts.get(5));
    FeedFormat reader = new FeedFormat(FeedFormat.Storage.ZSTD_DICT);
    assertThatThrownBy(() -> reader.decode(member))
        .isInstanceOf(DictionaryNotFoundException.class);
    reader.know(dictionary);
    assertThat(reader.decode(member)).isEqualTo(posts.get(5));
    assertThat(reader.needsDictionary()).isTrue();
  }

  @Test
  void storedSizesOfSeedShapedPosts() throws Exception {
    List<byte[]> training = posts(2000, 4);
    List<byte[]> measured = posts(1000, 5);
    ZstdDictionary dictionary = FeedFormat.train(training);
    long json = 0;
    long msgpack = 0;
    long[] stored = new long[FeedFormat.Storage.values().length];
    for (byte[] post : measured) {
      json += post.length;
      msgpack += FORMATS.msgpack().writeValueAsBytes(FORMATS.json().readTree(post)).length;
    }
    for (FeedFormat.Storage storage : FeedFormat.Storage.values()) {
      FeedFormat format = new FeedFormat(storage);
      format.use(dictionary);
      for (byte[] post : measured) {
        stored[storage.ordinal()] += format.encode(post).length;
      }
    }
    int n = measured.size();
    System.out.printf("mean stored size of a post over %d: JSON %d B, MessagePack %d B,"
            + " enveloped JSON %d B, +zstd %d B, +zstd-dict %d B%n", n, json / n, msgpack / n,
        stored[0] / n, stored[1] / n, stored[2] / n);
    assertThat(stored[2]).isLessThan(stored[1]).isLessThan(msgpack);
    assertThat(stored[2]).isLessThan(json * 6 / 10);
  }
}
