package dev.stowage.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class ScorePrefixUnitTests {

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 127, 128, 16_383, 16_384, 120_000, 1L << 32, (1L << 53) - 1, 1L << 53})
  void aMemberStartsWithItsScoreAndEndsWithTheEnvelope(long score) {
    byte[] envelope = {(byte) 0xC1, 0x10, 2, 0, 42};
    byte[] member = ScorePrefix.member(score, envelope);

    assertThat(ScorePrefix.read(member)).isEqualTo(score);
    assertThat(member).hasSize(ScorePrefix.size(score) + envelope.length);
    assertThat(java.util.Arrays.copyOfRange(member, ScorePrefix.size(score), member.length)).isEqualTo(envelope);
  }

  @Test
  void prefixesAreAsShortAsTheScoreAllows() {
    assertThat(ScorePrefix.member(127, new byte[] {9})).containsExactly(0x7F, 9);
    assertThat(ScorePrefix.member(128, new byte[] {9})).containsExactly(0x80, 0x01, 9);
    assertThat(ScorePrefix.size(1L << 53)).isEqualTo(8);
  }

  @Test
  void malformedPrefixesReadAsMinusOne() {
    assertThat(ScorePrefix.read(new byte[] {})).isEqualTo(-1);
    assertThat(ScorePrefix.read(new byte[] {5})).as("a score and no envelope").isEqualTo(-1);
    assertThat(ScorePrefix.read(new byte[] {(byte) 0x85})).as("truncated").isEqualTo(-1);
    assertThat(ScorePrefix.read(new byte[] {(byte) 0x85, 0x00, 1})).as("not minimal").isEqualTo(-1);
    byte[] tooLong = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80,
        (byte) 0x80, 1, 1};
    assertThat(ScorePrefix.read(tooLong)).isEqualTo(-1);
    byte[] aboveTwoTo53 = ScorePrefix.member((1L << 53) + 1, new byte[] {1});
    assertThat(ScorePrefix.read(aboveTwoTo53)).isEqualTo(-1);
  }
}
