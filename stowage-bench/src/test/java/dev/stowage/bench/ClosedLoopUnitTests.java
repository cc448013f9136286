package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

/** {@link ClosedLoop}'s rounds: the rate of each part of a timed run. */
class ClosedLoopUnitTests {

  @Test
  void aTimedRunSplitIntoRoundsCountsEachRoundsRate() {
    // A call takes about a millisecond for the first 300 ms, then about five: the rounds see it.
    long started = System.nanoTime();
    ClosedLoop.Result result =
        ClosedLoop.run(
            "rounds",
            1,
            Long.MAX_VALUE,
            Duration.ofMillis(900),
            3,
            (thread, sequence) -> {
              boolean slow = System.nanoTime() - started > Duration.ofMillis(300).toNanos();
              LockSupport.parkNanos(Duration.ofMillis(slow ? 5 : 1).toNanos());
            });
    assertThat(result.roundRates()).hasSize(3);
    double first = result.roundRates()[0];
    double last = result.roundRates()[2];
    assertThat(first).as("round rates %s", result).isGreaterThan(last * 1.5);
    double sum = 0;
    for (double rate : result.roundRates()) {
      sum += rate * 0.3;
    }
    assertThat(sum)
        .as("the rounds add up to the run")
        .isCloseTo((double) result.operations(), offsetOf(result));

    Map<String, Number> metrics = new LinkedHashMap<>();
    result.putRounds(metrics, "ops_per_s");
    assertThat(metrics).containsOnlyKeys("ops_per_s_min", "ops_per_s_max", "ops_per_s_rounds");
    assertThat(metrics.get("ops_per_s_rounds")).isEqualTo(3);
    assertThat(metrics.get("ops_per_s_min").doubleValue())
        .isLessThan(metrics.get("ops_per_s_max").doubleValue());
  }

  private static Offset<Double> offsetOf(ClosedLoop.Result result) {
    // The rounds are timed by the coordinating thread: a call may straddle a boundary, and the
    // last call may end after the last round.
    return Offset.offset(Math.max(5, result.operations() * 0.1));
  }

  @Test
  void aRunEndedByItsOperationsHasNoRoundsAndPutsNothing() {
    ClosedLoop.Result result =
        ClosedLoop.run("counted", 2, 100, Duration.ofSeconds(30), 3, (thread, sequence) -> {});
    assertThat(result.operations()).isEqualTo(100);
    assertThat(result.roundRates()).isEmpty();
    Map<String, Number> metrics = new LinkedHashMap<>();
    result.putRounds(metrics, "ops_per_s");
    assertThat(metrics).isEmpty();
  }

  @Test
  void oneRoundIsNoSpread() {
    ClosedLoop.Result result =
        ClosedLoop.run("one", 1, Long.MAX_VALUE, Duration.ofMillis(50), (thread, sequence) -> {});
    assertThat(result.roundRates()).isEmpty();
    assertThatThrownBy(
            () -> ClosedLoop.run("none", 1, 1, Duration.ofMillis(50), 0, (thread, sequence) -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rounds must be at least 1");
  }
}
