package dev.stowage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.internal.format.FeedLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the inspector reads of the stored format without Redis, for tools: feed index members, feed
 * entries, sealed buckets' payloads, fingerprints and dictionaries trained offline. Each reading is
 * checked against the format's own writer.
 */
class InspectorFormatUnitTests {
  private static byte[] ascii(String text) {
    return text.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void aFeedIndexMemberNamesAnOpenOrASealedBucketAndNothingElseDoes() {
    Inspector.FeedBucket open = Inspector.feedBucket(ascii("5")).orElseThrow();
    assertThat(open.bucket()).isEqualTo(5);
    assertThat(open.sealed()).isFalse();
    assertThat(open.key("board")).isEqualTo(Inspector.Keys.feedBucket("board", 5));

    byte[] member = ascii(FeedLayout.sealedIndexMember(7, 64));
    Inspector.FeedBucket sealed = Inspector.feedBucket(member).orElseThrow();
    assertThat(sealed.bucket()).isEqualTo(7);
    assertThat(sealed.sealedCount()).isEqualTo(64);
    assertThat(sealed.key("board")).isEqualTo(Inspector.Keys.feedSealedBucket("board", 7));

    long lastBucket = FeedLayout.MAX_SCORE / FeedLayout.BUCKET_SIZE;
    assertThat(Inspector.feedBucket(ascii(Long.toString(lastBucket)))).isPresent();
    for (String other :
        List.of(
            "",
            "05",
            "-1",
            "5:",
            "5:0",
            "5:65",
            ":3",
            "x",
            "5:3:1",
            Long.toString(lastBucket + 1),
            "1".repeat(25))) {
      assertThat(Inspector.feedBucket(ascii(other))).as("'%s'", other).isEmpty();
    }
  }

  @Test
  void aFeedEntryGivesItsScoreAndValueAndAnythingElseNeither() {
    byte[] envelope = Encoding.of(Codecs.string()).serializer().encode("hello");
    for (long score : List.of(0L, 127L, 128L, 1L << 40, FeedLayout.MAX_SCORE)) {
      byte[] element = FeedLayout.member(score, envelope);
      assertThat(Inspector.feedEntryScore(element)).hasValue(score);
      assertThat(Inspector.feedEntryValue(element))
          .hasValueSatisfying(v -> assertThat(v).isEqualTo(envelope));
    }
    // A truncated score, a score with nothing after it, an overlong (not minimal) varint.
    for (byte[] other :
        List.of(
            new byte[] {(byte) 0x80},
            new byte[] {5},
            new byte[] {(byte) 0x85, 0x00, 1},
            new byte[0])) {
      assertThat(Inspector.feedEntryScore(other)).isEmpty();
      assertThat(Inspector.feedEntryValue(other)).isEmpty();
    }
  }

  @Test
  void aSealedBucketsPayloadSplitsIntoItsEntriesAndAnythingElseIsAnEnvelopeException() {
    List<byte[]> entries = new ArrayList<>();
    for (int i = 0; i < FeedLayout.BUCKET_SIZE; i++) {
      entries.add(FeedLayout.member(i, ascii("entry " + i)));
    }
    byte[] payload = FeedLayout.sealedPayload(entries);
    assertThat(Inspector.sealedBucketEntries(payload)).containsExactlyElementsOf(entries);
    assertThat(Inspector.sealedBucketEntries(new byte[0])).isEmpty();

    byte[] cut = Arrays.copyOf(payload, payload.length - 3);
    assertThatThrownBy(() -> Inspector.sealedBucketEntries(cut))
        .isInstanceOf(EnvelopeException.class)
        .hasMessageStartingWith("not a sealed feed bucket: ");
    List<byte[]> tooMany = new ArrayList<>(entries);
    tooMany.add(ascii("one more"));
    byte[] overfull = FeedLayout.sealedPayload(tooMany);
    assertThatThrownBy(() -> Inspector.sealedBucketEntries(overfull))
        .isInstanceOf(EnvelopeException.class)
        .hasMessageContaining("more than 64");
  }

  @Test
  void fingerprintsAreShownWithSevenHexDigitsOrMore() {
    assertThat(Inspector.hexFingerprint(0x1234)).isEqualTo("0001234");
    assertThat(Inspector.hexFingerprint(0x7fffffff)).isEqualTo("7fffffff");
    int fingerprint = Inspector.schemaFingerprint("{\"type\":\"record\"}");
    assertThat(Inspector.Keys.schema(fingerprint)).endsWith(Inspector.hexFingerprint(fingerprint));
  }

  @Test
  void aDictionaryTrainedOfflineCompressesUnderItsOwnId() {
    List<byte[]> samples = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      samples.add(
          ascii("{\"id\":" + i + ",\"title\":\"post " + i + "\",\"body\":\"a body of words\"}"));
    }
    byte[] dictionary = Compression.trainDictionary(samples, 1024);
    assertThat(dictionary.length).isBetween(Encoding.MIN_DICTIONARY_SIZE, 1024);
    assertThat(Compression.zstd(dictionary).dictionaryId())
        .hasValue(Inspector.dictionaryId(dictionary));
    Encoding.Serializer<byte[]> serializer =
        Encoding.of(Codecs.jsonBytes())
            .compression(Compression.zstd(dictionary).minSize(0))
            .serializer();
    byte[] stored = serializer.encode(samples.get(7));
    assertThat(Inspector.header(stored).orElseThrow().dictionaryId())
        .hasValue(Inspector.dictionaryId(dictionary));
    assertThat(serializer.decode(stored)).isEqualTo(samples.get(7));

    List<byte[]> few = Collections.nCopies(Encoding.MIN_LEARNING_SAMPLES - 1, samples.get(0));
    assertThatThrownBy(() -> Compression.trainDictionary(few, 1024))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Compression.trainDictionary(samples, Encoding.MIN_DICTIONARY_SIZE - 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("dictionarySize must be at least");
  }
}
