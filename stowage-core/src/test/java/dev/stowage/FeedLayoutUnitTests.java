package dev.stowage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.internal.format.FeedLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class FeedLayoutUnitTests {

  @ParameterizedTest
  @ValueSource(
      longs = {1, 2, 127, 128, 16_383, 16_384, 120_000, 1L << 32, (1L << 53) - 1, 1L << 53})
  void aMemberStartsWithItsScoreAndEndsWithTheEnvelope(long score) {
    byte[] envelope = {(byte) 0xC1, 0x10, 2, 0, 42};
    byte[] member = FeedLayout.member(score, envelope);

    assertThat(FeedLayout.score(member)).isEqualTo(score);
    assertThat(member).hasSize(FeedLayout.prefixSize(score) + envelope.length);
    assertThat(Arrays.copyOfRange(member, FeedLayout.prefixSize(score), member.length))
        .isEqualTo(envelope);
  }

  @Test
  void prefixesAreAsShortAsTheScoreAllows() {
    assertThat(FeedLayout.member(127, new byte[] {9})).containsExactly(0x7F, 9);
    assertThat(FeedLayout.member(128, new byte[] {9})).containsExactly(0x80, 0x01, 9);
    assertThat(FeedLayout.prefixSize(1L << 53)).isEqualTo(8);
  }

  @Test
  void malformedPrefixesReadAsMinusOne() {
    assertThat(FeedLayout.score(new byte[] {})).isEqualTo(-1);
    assertThat(FeedLayout.score(new byte[] {5})).as("a score and no envelope").isEqualTo(-1);
    assertThat(FeedLayout.score(new byte[] {(byte) 0x85})).as("truncated").isEqualTo(-1);
    assertThat(FeedLayout.score(new byte[] {(byte) 0x85, 0x00, 1})).as("not minimal").isEqualTo(-1);
    byte[] tooLong = {
      (byte) 0x80,
      (byte) 0x80,
      (byte) 0x80,
      (byte) 0x80,
      (byte) 0x80,
      (byte) 0x80,
      (byte) 0x80,
      (byte) 0x80,
      1,
      1
    };
    assertThat(FeedLayout.score(tooLong)).isEqualTo(-1);
    byte[] aboveTwoTo53 = FeedLayout.member(1L << 53, new byte[] {1});
    aboveTwoTo53[0] = (byte) 0x81;
    assertThat(FeedLayout.score(aboveTwoTo53)).isEqualTo(-1);
    assertThat(FeedLayout.envelope(new byte[] {(byte) 0x85})).isNull();
    assertThatThrownBy(() -> FeedLayout.member((1L << 53) + 1, new byte[] {1}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2^53");
  }

  @Test
  void bucketsHoldSixtyFourConsecutiveScores() {
    assertThat(FeedLayout.bucketOf(63)).isZero();
    assertThat(FeedLayout.bucketOf(64)).isEqualTo(1);
    assertThat(FeedLayout.bucketKey("board", 1)).isEqualTo("board:b:1");
    assertThat(FeedLayout.envelope(FeedLayout.member(300, new byte[] {(byte) 0xC1, 7})))
        .containsExactly(0xC1, 7);
  }

  @Test
  void aSealedPayloadHoldsEachMemberBehindItsLength() {
    byte[] small = FeedLayout.member(64, new byte[] {1, 2, 3});
    byte[] large = FeedLayout.member(65, new byte[200]);
    byte[] payload = FeedLayout.sealedPayload(List.of(small, large));

    assertThat(payload).hasSize(1 + small.length + 2 + large.length);
    assertThat(payload[0]).isEqualTo((byte) small.length);
    assertThat(FeedLayout.sealedMembers(payload)).containsExactly(small, large);
    assertThat(FeedLayout.sealedMembers(new byte[0])).isEmpty();
  }

  @Test
  void aMalformedSealedPayloadIsRefused() {
    byte[] payload =
        FeedLayout.sealedPayload(List.of(FeedLayout.member(70, new byte[] {1, 2, 3, 4})));
    assertThatThrownBy(() -> FeedLayout.sealedMembers(Arrays.copyOf(payload, payload.length - 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("runs past the end");
    assertThatThrownBy(() -> FeedLayout.sealedMembers(new byte[] {(byte) 0x80}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("truncated");
    assertThatThrownBy(
            () ->
                FeedLayout.sealedMembers(
                    new byte[] {
                      (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 1
                    }))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("too long");
    List<byte[]> tooMany = new ArrayList<>();
    for (int i = 0; i <= FeedLayout.BUCKET_SIZE; i++) {
      tooMany.add(FeedLayout.member(i + 1, new byte[] {1}));
    }
    assertThatThrownBy(() -> FeedLayout.sealedMembers(FeedLayout.sealedPayload(tooMany)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more than 64");
  }

  @Test
  void aSealedIndexMemberGivesItsCount() {
    assertThat(FeedLayout.sealedIndexMember(12, 64)).isEqualTo("12:64");
    assertThat(FeedLayout.sealedCount("12:64")).isEqualTo(64);
    assertThat(FeedLayout.sealedCount("0:63")).isEqualTo(63);
    assertThat(FeedLayout.sealedCount("12")).as("an open bucket").isEqualTo(-1);
    assertThat(FeedLayout.sealedCount("12:65")).isEqualTo(-1);
    assertThat(FeedLayout.sealedCount("12:0")).isEqualTo(-1);
    assertThat(FeedLayout.sealedCount(":64")).isEqualTo(-1);
    assertThat(FeedLayout.sealedCount("12:6x")).isEqualTo(-1);
  }
}
