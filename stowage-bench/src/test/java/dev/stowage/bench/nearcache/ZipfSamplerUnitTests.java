package dev.stowage.bench.nearcache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ZipfSamplerUnitTests {

  @Test
  void probabilitiesFallAsOneOverTheRankToTheExponentAndSumToOne() {
    ZipfSampler zipf = new ZipfSampler(1_000, 1.0);
    double harmonic = 0;
    for (int rank = 1; rank <= 1_000; rank++) {
      harmonic += 1.0 / rank;
    }
    double sum = 0;
    for (int i = 0; i < zipf.size(); i++) {
      assertThat(zipf.probability(i))
          .as("index %d", i)
          .isCloseTo(1.0 / ((i + 1) * harmonic), within(1e-12));
      sum += zipf.probability(i);
    }
    assertThat(sum).isCloseTo(1.0, within(1e-9));

    ZipfSampler steeper = new ZipfSampler(1_000, 1.5);
    assertThat(steeper.probability(0) / steeper.probability(3))
        .isCloseTo(Math.pow(4, 1.5), within(1e-9));
  }

  @Test
  void theAliasTableHoldsExactlyTheDistribution() {
    for (double exponent : new double[] {0, 0.5, 1.0, 2.0}) {
      ZipfSampler zipf = new ZipfSampler(1_000, exponent);
      for (int i = 0; i < zipf.size(); i++) {
        assertThat(zipf.tableProbability(i))
            .as("s=%s, index %d", exponent, i)
            .isCloseTo(zipf.probability(i), within(1e-12));
      }
    }
  }

  @Test
  void drawsFollowTheDistribution() {
    ZipfSampler zipf = new ZipfSampler(1_000, 1.0);
    SplittableRandom random = new SplittableRandom(1);
    int draws = 1_000_000;
    long[] counts = new long[zipf.size()];
    for (int i = 0; i < draws; i++) {
      counts[zipf.next(random)]++;
    }
    // Chi-square over the ten hottest indexes one by one, then 10..99 and 100..999 as two bins: 11
    // degrees of freedom,
    // whose 0.1% critical value is 31.26.
    int[][] bins = new int[12][];
    for (int i = 0; i < 10; i++) {
      bins[i] = new int[] {i, i};
    }
    bins[10] = new int[] {10, 99};
    bins[11] = new int[] {100, 999};
    double chiSquare = 0;
    for (int[] bin : bins) {
      long observed = 0;
      double expected = 0;
      for (int i = bin[0]; i <= bin[1]; i++) {
        observed += counts[i];
        expected += zipf.probability(i) * draws;
      }
      chiSquare += (observed - expected) * (observed - expected) / expected;
    }
    assertThat(chiSquare).isLessThan(31.26);
    // The hottest index is drawn about twice as often as the second, and the head dominates the
    // tail.
    assertThat((double) counts[0] / counts[1]).isCloseTo(2.0, within(0.05));
    assertThat(counts[0]).isGreaterThan(counts[999] * 500);
  }

  @Test
  void anExponentOfZeroIsUniform() {
    ZipfSampler uniform = new ZipfSampler(10, 0);
    SplittableRandom random = new SplittableRandom(2);
    long[] counts = new long[10];
    for (int i = 0; i < 100_000; i++) {
      counts[uniform.next(random)]++;
    }
    for (long count : counts) {
      assertThat(count).isBetween(9_500L, 10_500L);
    }
  }

  @Test
  void everyDrawIsAnIndexAndOneIndexIsAlwaysDrawn() {
    ZipfSampler zipf = new ZipfSampler(7, 3.0);
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 100_000; i++) {
      assertThat(zipf.next(random)).isBetween(0, 6);
    }
    ZipfSampler single = new ZipfSampler(1, 1.0);
    assertThat(single.next(random)).isZero();
    assertThat(single.probability(0)).isEqualTo(1.0);
  }

  @Test
  void impossibleDistributionsAreRefused() {
    assertThatThrownBy(() -> new ZipfSampler(0, 1.0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a Zipf distribution needs at least 1 index, not 0");
    assertThatThrownBy(() -> new ZipfSampler(10, -0.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("the Zipf exponent must be a finite number of at least 0, not -0.5");
    assertThatThrownBy(() -> new ZipfSampler(10, Double.NaN))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ZipfSampler(10, Double.POSITIVE_INFINITY))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ZipfSampler(10, 1.0).probability(10))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
