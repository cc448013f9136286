package dev.stowage.compress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.MissingLibraryException;
import dev.stowage.envelope.TestDictionaries;
import dev.stowage.internal.OptionalLibrary;
import dev.stowage.internal.compress.CompressionAccess;
import dev.stowage.internal.compress.ZstdDictionary;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ZstdDictionaryUnitTests {

  @Test
  void theIdIsTheFirstFourBytesOfSha256() throws Exception {
    byte[] bytes = TestDictionaries.TINY_TEXT.getBytes(StandardCharsets.UTF_8);
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
    long expected =
        Long.parseLong(
            String.format("%02x%02x%02x%02x", digest[0], digest[1], digest[2], digest[3]), 16);

    ZstdDictionary dictionary = ZstdDictionary.of(bytes);
    assertThat(dictionary.id())
        .isEqualTo(expected)
        .isEqualTo(ZstdDictionary.idOf(bytes))
        .isEqualTo(0xe43d0deeL);
    assertThat(dictionary.hexId()).isEqualTo("e43d0dee");
    assertThat(ZstdDictionary.hexId(0x0000_00ffL)).isEqualTo("000000ff");
    assertThat(dictionary.size()).isEqualTo(bytes.length);
    assertThat(dictionary)
        .isEqualTo(ZstdDictionary.of(bytes.clone()))
        .hasSameHashCodeAs(ZstdDictionary.of(bytes));
    assertThat(dictionary.toString()).isEqualTo("ZstdDictionary[e43d0dee, 78 bytes]");
  }

  @Test
  void bytesAreCopiedInAndOut() {
    byte[] bytes = "dictionary".getBytes(StandardCharsets.US_ASCII);
    ZstdDictionary dictionary = ZstdDictionary.of(bytes);
    long id = dictionary.id();
    bytes[0] = 'X';
    dictionary.bytes()[1] = 'Y';
    assertThat(new String(dictionary.bytes(), StandardCharsets.US_ASCII)).isEqualTo("dictionary");
    assertThat(dictionary.id()).isEqualTo(id);
  }

  @Test
  void rejectsEmptyDictionariesAndTooFewSamples() {
    assertThatThrownBy(() -> ZstdDictionary.of(new byte[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a zstd dictionary cannot be empty");
    List<byte[]> three = List.of(new byte[] {1}, new byte[] {2}, new byte[] {3}, new byte[0]);
    assertThatThrownBy(() -> ZstdDictionary.train(three, 4096))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "training a zstd dictionary needs at least 16 non-empty samples, got 3");
    assertThatThrownBy(() -> ZstdDictionary.train(List.of(), 100))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("dictionarySize must be at least 256 bytes, got 100");
  }

  @Test
  void theSampleMinimumIsWhereZstdCanTrain() {
    List<byte[]> fifteen =
        Collections.nCopies(15, "{\"id\":1,\"title\":\"x\"}".getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> ZstdDictionary.train(fifteen, 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 16 non-empty samples, got 15");
    List<byte[]> sixteen =
        Collections.nCopies(16, "{\"id\":1,\"title\":\"x\"}".getBytes(StandardCharsets.UTF_8));
    assertThat(ZstdDictionary.train(sixteen, 1024).size()).isPositive();
  }

  @Test
  void trainsADictionaryThatCompressesItsKindOfValues() {
    List<byte[]> samples = new ArrayList<>();
    Random random = new Random(5);
    for (int i = 0; i < 1000; i++) {
      samples.add(
          ("{\"id\":"
                  + random.nextInt(100000)
                  + ",\"title\":\"post number "
                  + random.nextInt(999)
                  + "\",\"author\":\"user"
                  + random.nextInt(50)
                  + "\",\"likes\":"
                  + random.nextInt(300)
                  + ",\"category\":\""
                  + List.of("news", "qna", "free", "notice").get(random.nextInt(4))
                  + "\"}")
              .getBytes(StandardCharsets.UTF_8));
    }
    ZstdDictionary dictionary = ZstdDictionary.train(samples, 4096);
    assertThat(dictionary.size()).isBetween(256, 4096);
    assertThat(dictionary.bytes()).startsWith(0x37, 0xa4, 0x30, 0xec);
    assertThat(ZstdDictionary.train(samples, 4096))
        .as("training is deterministic")
        .isEqualTo(dictionary);
  }

  @Test
  void aMissingLibraryNamesItsCoordinates() {
    OptionalLibrary absent =
        new OptionalLibrary("brotli compression", "org.example.NoSuchBrotli", "org.example:brotli");
    assertThat(absent.isPresent()).isFalse();
    assertThatThrownBy(absent::require)
        .isExactlyInstanceOf(MissingLibraryException.class)
        .hasMessage(
            "brotli compression needs org.example:brotli on the classpath; add it as a dependency");
    assertThat(OptionalLibrary.ZSTD.isPresent()).isTrue();
    assertThat(OptionalLibrary.LZ4.isPresent()).isTrue();
    assertThat(OptionalLibrary.ZSTD.coordinates()).isEqualTo("com.github.luben:zstd-jni");
    assertThat(OptionalLibrary.LZ4.coordinates()).isEqualTo("at.yawk.lz4:lz4-java");
  }

  @Test
  void compressionDescribesItself() {
    assertThat(Compression.none().toString()).isEqualTo("none");
    assertThat(Compression.lz4().toString()).isEqualTo("lz4 from 64 bytes");
    assertThat(CompressionAccess.zstd(TestDictionaries.TINY, 5).minSize(10).toString())
        .isEqualTo("zstd-dict-magicless(level 5, dictionary e43d0dee) from 10 bytes");
    assertThat(
            CompressionAccess.zstd(TestDictionaries.TINY, 5)
                .magicless(false)
                .minSize(10)
                .toString())
        .isEqualTo("zstd-dict(level 5, dictionary e43d0dee) from 10 bytes");
    assertThat(Compression.zstd()).isEqualTo(Compression.zstd(Compression.DEFAULT_ZSTD_LEVEL));
    assertThat(Compression.zstd().minSize(1)).isNotEqualTo(Compression.zstd());
    assertThat(CompressionAccess.dictionary(CompressionAccess.zstd(TestDictionaries.TINY)))
        .contains(TestDictionaries.TINY);
    assertThat(CompressionAccess.dictionary(Compression.lz4())).isEmpty();
  }

  @Test
  void theBytesOfADictionaryMakeTheSameCompressionAsTheDictionaryItself() {
    byte[] bytes = TestDictionaries.TINY.bytes();
    Compression fromBytes = Compression.zstd(bytes);
    assertThat(fromBytes).isEqualTo(CompressionAccess.zstd(TestDictionaries.TINY));
    assertThat(fromBytes.dictionaryId()).hasValue(TestDictionaries.TINY.id());
    assertThat(fromBytes.isMagicless()).isTrue();
    assertThat(Compression.zstd(bytes, 7).level()).isEqualTo(7);
    bytes[0]++; // the compression copied them
    assertThat(CompressionAccess.dictionary(fromBytes)).contains(TestDictionaries.TINY);
    assertThatThrownBy(() -> Compression.zstd(new byte[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cannot be empty");
    assertThatThrownBy(() -> Compression.zstd(bytes, Compression.MAX_ZSTD_LEVEL + 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
