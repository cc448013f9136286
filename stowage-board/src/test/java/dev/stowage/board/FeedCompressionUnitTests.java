package dev.stowage.board;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import net.datafaker.Faker;
import org.junit.jupiter.api.Test;

/**
 * How stowage mode stores a post: its JSON fragment in an envelope ({@link Codecs#jsonBytes()}),
 * compressed as {@link FeedCompression} says, read back byte for byte.
 */
class FeedCompressionUnitTests {
  private static final BoardFormats FORMATS = new BoardFormats();

  /** The size of the dictionary core learns from a feed's first 1,000 posts (at most 64 KiB). */
  private static final int LEARNED_DICTIONARY_BYTES = 64 * 1024;

  private static final Encoding<byte[]> JSON = Encoding.of(Codecs.jsonBytes());

  /** Seed-shaped posts with varied text, made deterministically. */
  static List<byte[]> posts(int count, long seed) {
    Faker faker = new Faker(Locale.US, new Random(seed));
    List<byte[]> fragments = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      NewBoard input =
          new NewBoard(
              (long) faker.number().numberBetween(1, 100_000),
              faker.name().fullName(),
              faker.lorem().paragraph(3),
              faker.address().fullAddress(),
              faker.address().country(),
              faker.job().title(),
              faker.finance().creditCard(),
              faker.idNumber().ssnValid(),
              faker.company().name(),
              faker.phoneNumber().phoneNumber());
      fragments.add(FORMATS.toJson(Board.create(input, i + 1, 1_701_134_160_000L + i * 1000L)));
    }
    return fragments;
  }

  @Test
  void labelsParseAsTheCommandLineSpellsThem() {
    for (FeedCompression compression : FeedCompression.values()) {
      assertThat(FeedCompression.parse(compression.label())).isEqualTo(compression);
      assertThat(FeedCompression.parse(" " + compression.label().toUpperCase(Locale.ROOT) + " "))
          .isEqualTo(compression);
    }
    assertThat(FeedCompression.parse("zstd-dict")).isEqualTo(FeedCompression.ZSTD_DICT);
    assertThatThrownBy(() -> FeedCompression.parse("gzip"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown feed compression 'gzip'; expected none, zstd or zstd-dict");
  }

  @Test
  void everyStoredFormGivesBackTheExactJsonFragment() {
    List<byte[]> posts = posts(1100, 1);
    for (Map.Entry<String, Encoding<byte[]>> stored :
        storedForms(posts.subList(0, 1000)).entrySet()) {
      Encoding.Serializer<byte[]> codec = stored.getValue().serializer();
      for (byte[] post : posts.subList(1000, 1100)) {
        byte[] envelope = codec.encode(post);
        assertThat(Encoding.Serializer.isEnvelope(envelope)).isTrue();
        assertThat(codec.decode(envelope)).as(stored.getKey()).isEqualTo(post);
      }
    }
  }

  @Test
  void theLearnedDictionaryCompressesAPostThatTheStandardCompressionLeavesAsItIs() {
    List<byte[]> posts = posts(1001, 2);
    byte[] post = posts.get(1000);
    assertThat(post.length).isLessThan(Compression.STANDARD_MIN_SIZE);
    byte[] before = JSON.compression(Compression.standard()).serializer().encode(post);
    byte[] after =
        JSON.trainDictionary(posts.subList(0, 1000), LEARNED_DICTIONARY_BYTES)
            .serializer()
            .encode(post);
    assertThat(Inspector.header(before).orElseThrow().isCompressed()).isFalse();
    assertThat(Inspector.header(after).orElseThrow().compressionName())
        .isEqualTo("zstd-dict-magicless");
    assertThat(after.length).isLessThan(before.length / 2);
  }

  @Test
  void storedSizesOfSeedShapedPosts() throws Exception {
    List<byte[]> firstPosts = posts(1000, 4);
    List<byte[]> measured = posts(1000, 5);
    long json = 0;
    long msgpack = 0;
    for (byte[] post : measured) {
      json += post.length;
      msgpack += FORMATS.msgpack().writeValueAsBytes(FORMATS.json().readTree(post)).length;
    }
    Map<String, Long> stored = new LinkedHashMap<>();
    for (Map.Entry<String, Encoding<byte[]>> form : storedForms(firstPosts).entrySet()) {
      Encoding.Serializer<byte[]> codec = form.getValue().serializer();
      long total = 0;
      for (byte[] post : measured) {
        total += codec.encode(post).length;
      }
      stored.put(form.getKey(), total);
    }
    int n = measured.size();
    System.out.printf(
        "mean stored size of a post over %d: JSON %d B, MessagePack %d B,"
            + " enveloped JSON %d B, zstd %d B, zstd with the dictionary learned from the first"
            + " 1,000 (at most %d B) %d B%n",
        n,
        json / n,
        msgpack / n,
        stored.get("none") / n,
        stored.get("zstd") / n,
        LEARNED_DICTIONARY_BYTES,
        stored.get("zstd-dict") / n);
    assertThat(stored.get("zstd-dict")).isLessThan(stored.get("zstd")).isLessThan(msgpack);
    assertThat(stored.get("zstd-dict")).isLessThan(json * 6 / 10);
  }

  /**
   * The stored forms by label: what each {@link FeedCompression} writes a post of this size with,
   * the dictionary trained on {@code firstPosts}.
   */
  private static Map<String, Encoding<byte[]>> storedForms(List<byte[]> firstPosts) {
    Map<String, Encoding<byte[]>> forms = new LinkedHashMap<>();
    forms.put(FeedCompression.NONE.label(), JSON.compression(Compression.none()));
    forms.put(FeedCompression.ZSTD.label(), JSON.compression(Compression.zstd()));
    forms.put(
        FeedCompression.ZSTD_DICT.label(),
        JSON.trainDictionary(firstPosts, LEARNED_DICTIONARY_BYTES));
    return forms;
  }
}
