package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FiguresUnitTests {

  @Test
  void medianTakesTheMiddleValueOrTheMeanOfTheMiddleTwoWithoutReorderingTheInput() {
    double[] odd = {9, 1, 5};
    assertThat(Figures.median(odd)).isEqualTo(5);
    assertThat(odd).containsExactly(9, 1, 5);
    assertThat(Figures.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
    assertThat(Figures.median(new double[] {7})).isEqualTo(7);
    assertThatThrownBy(() -> Figures.median(new double[0]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void roundKeepsTheGivenDecimalsHalfUp() {
    assertThat(Figures.round(2.34567, 2)).isEqualTo(2.35);
    assertThat(Figures.round(82_203.44, 0)).isEqualTo(82_203);
    assertThat(Figures.round(-1.25, 1)).isEqualTo(-1.2);
  }
}
