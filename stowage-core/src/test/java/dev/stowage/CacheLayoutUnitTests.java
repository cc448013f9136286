package dev.stowage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CacheLayoutUnitTests {

  @ParameterizedTest
  @CsvSource({"1, 1", "64, 1", "65, 2", "128, 2", "1000000, 15625", "15000000, 234375"})
  void packedSizesBucketsForSixtyFourEntriesEach(long expected, int buckets) {
    CacheLayout layout = CacheLayout.packed(expected);
    assertThat(layout.isPacked()).isTrue();
    assertThat(layout.buckets()).isEqualTo(buckets);
    assertThat(layout).isEqualTo(CacheLayout.packedBuckets(buckets));
  }

  @Test
  void packedTakesUpToMaxBucketsFullBuckets() {
    long most = (long) CacheLayout.MAX_BUCKETS * CacheLayout.FIELDS_PER_BUCKET;
    assertThat(CacheLayout.packed(most).buckets()).isEqualTo(CacheLayout.MAX_BUCKETS);
    assertThatThrownBy(() -> CacheLayout.packed(most + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("expectedEntries must be from 1 to " + most)
        .hasMessageContaining("got " + (most + 1));
  }

  @Test
  void badArgumentsAreRefusedNamingTheLimit() {
    assertThatThrownBy(() -> CacheLayout.packed(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 0");
    assertThatThrownBy(() -> CacheLayout.packed(-5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got -5");
    assertThatThrownBy(() -> CacheLayout.packedBuckets(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("packedBuckets: buckets must be from 1 to 16777216, got 0");
    assertThatThrownBy(() -> CacheLayout.packedBuckets(CacheLayout.MAX_BUCKETS + 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("got 16777217");
  }

  @Test
  void keyPerValueHasNoBuckets() {
    CacheLayout layout = CacheLayout.keyPerValue();
    assertThat(layout.isPacked()).isFalse();
    assertThat(layout.buckets()).isZero();
    assertThatThrownBy(() -> layout.bucketOf("k"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no buckets");
    assertThat(layout)
        .hasToString("CacheLayout.keyPerValue()")
        .isNotEqualTo(CacheLayout.packedBuckets(1));
  }

  @Test
  void theBucketIsCrc32cOfTheKeysUtf8ModuloTheCount() {
    // 0xE3069283 is CRC-32C's published check value, of the ASCII digits 1 to 9.
    long check = 0xE3069283L;
    for (int buckets : new int[] {1, 7, 64, 1000, 15625, CacheLayout.MAX_BUCKETS}) {
      assertThat(CacheLayout.packedBuckets(buckets).bucketOf("123456789"))
          .isEqualTo((int) (check % buckets));
    }
    CacheLayout layout = CacheLayout.packedBuckets(1000);
    assertThat(layout.bucketOf("é"))
        .as("UTF-8, not UTF-16")
        .isNotEqualTo(layout.bucketOf("\u00e9\u0000"));
  }

  @Test
  void keysSpreadEvenlyOverTheBuckets() {
    CacheLayout layout = CacheLayout.packed(64_000);
    Map<Integer, Integer> counts = new HashMap<>();
    for (int i = 0; i < 64_000; i++) {
      counts.merge(layout.bucketOf("person_" + i), 1, Integer::sum);
    }
    assertThat(counts).hasSize(1000);
    assertThat(counts.values()).allSatisfy(n -> assertThat(n).isBetween(30, 110));
  }

  @Test
  void bucketKeysCarryTheNumberAsAHashTag() {
    assertThat(CacheLayout.bucketKey("people:", 42)).isEqualTo("people:{42}");
  }
}
