package dev.stowage.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.ScoredValue;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How the inspector tells a feed's index members, its sealed buckets' keys and its buckets' keys.
 */
class FeedLayoutUnitTests {
  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void indexMembersNameOpenAndSealedBuckets() {
    assertThat(FeedLayout.bucketNumber(bytes("0"))).isZero();
    assertThat(FeedLayout.bucketNumber(bytes("17"))).isEqualTo(17L);
    assertThat(FeedLayout.bucketNumber(bytes("0:63"))).isZero();
    assertThat(FeedLayout.bucketNumber(bytes("3:64"))).isEqualTo(3L);
    assertThat(FeedLayout.bucketNumber(bytes("140737488355328:1")))
        .isEqualTo(1L << 47); // 2^53 / 64
    assertThat(FeedLayout.sealedCount(bytes("3:64"))).isEqualTo(64);
    assertThat(FeedLayout.sealedCount(bytes("3"))).isEqualTo(-1);
    for (String bad :
        List.of(
            "",
            "01",
            "01:5",
            "3:",
            ":5",
            "3:0",
            "3:65",
            "3:6a",
            "3:64:1",
            "x",
            "-1",
            "3:-1",
            "140737488355329",
            "99999999999999999999:1")) {
      assertThat(FeedLayout.bucketNumber(bytes(bad))).as("'%s'", bad).isNull();
    }
    assertThat(
            FeedLayout.looksLikeIndex(
                List.of(ScoredValue.just(0, bytes("0:63")), ScoredValue.just(1, bytes("1")))))
        .isTrue();
    assertThat(FeedLayout.looksLikeIndex(List.of(ScoredValue.just(1, bytes("0:63"))))).isFalse();
    assertThat(FeedLayout.looksLikeIndex(List.of())).isFalse();
  }

  @Test
  void aMemberNamesTheKeyOfItsBucket() {
    assertThat(
            new String(FeedLayout.keyOf(bytes("{board}"), bytes("2:64")), StandardCharsets.UTF_8))
        .isEqualTo("{board}:s:2");
    assertThat(new String(FeedLayout.keyOf(bytes("{board}"), bytes("3")), StandardCharsets.UTF_8))
        .isEqualTo("{board}:b:3");
    assertThat(FeedLayout.typeOf(bytes("2:64"))).isEqualTo("string");
    assertThat(FeedLayout.typeOf(bytes("3"))).isEqualTo("list");
  }

  @Test
  void sealedKeysAreSplitIntoTheirFeedAndBucket() {
    FeedLayout.SealedKey sealed = FeedLayout.parseSealedKey(bytes("board:s:12"));
    assertThat(sealed).isNotNull();
    assertThat(new String(sealed.feedKey(), StandardCharsets.UTF_8)).isEqualTo("board");
    assertThat(sealed.bucket()).isEqualTo(12L);
    assertThat(
            new String(
                FeedLayout.parseSealedKey(bytes("a:s:b:s:0")).feedKey(), StandardCharsets.UTF_8))
        .isEqualTo("a:s:b");
    for (String other :
        List.of("board:s:", ":s:1", "board:b:1", "board:s:01", "board:s:1x", "boards1", "s:1")) {
      assertThat(FeedLayout.parseSealedKey(bytes(other))).as("'%s'", other).isNull();
    }
    assertThat(FeedLayout.indexSaysSealed(List.of(bytes("12:64")), 12)).isTrue();
    assertThat(FeedLayout.indexSaysSealed(List.of(bytes("12")), 12)).isFalse();
    assertThat(FeedLayout.indexSaysSealed(List.of(bytes("11:64")), 12)).isFalse();
    assertThat(FeedLayout.indexSaysSealed(null, 12)).isFalse();
  }
}
