package dev.stowage.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ScanProgressUnitTests {
  private static final long SECOND = 1_000_000_000L;
  private long now = 5 * SECOND;

  @Test
  void aCursorsPositionIsItsBitsReversed() {
    assertThat(ScanProgress.cursorPosition("0")).isZero();
    assertThat(ScanProgress.cursorPosition("1")).isEqualTo(0.5);
    assertThat(ScanProgress.cursorPosition("2")).isEqualTo(0.25);
    assertThat(ScanProgress.cursorPosition("3")).isEqualTo(0.75);
    assertThat(ScanProgress.cursorPosition("18446744073709551615")).isCloseTo(1.0, within(1e-9));
    assertThat(ScanProgress.cursorPosition("not a number")).isNaN();
  }

  @Test
  void theShareComesFromTheCursorAndTheTimeLeftFromTheTimeSoFar() {
    ScanProgress progress = new ScanProgress(100_000, null, () -> now);
    assertThat(progress.line()).isEqualTo("scanned 0 keys · 0% of 100,000 in the database");

    now += 10 * SECOND;
    progress.update(2_500, "2"); // a quarter of the table walked, whatever the pattern matched
    assertThat(progress.fraction()).isEqualTo(0.25);
    assertThat(progress.line())
        .isEqualTo("scanned 2,500 keys · 25% of 100,000 in the database · about 30s left");

    now += 290 * SECOND;
    progress.update(3_000, "1");
    assertThat(progress.line())
        .isEqualTo("scanned 3,000 keys · 50% of 100,000 in the database · about 5m 00s left");

    progress.update(5_000, "0");
    assertThat(progress.fraction()).isEqualTo(1.0);
    assertThat(progress.line()).isEqualTo("scanned 5,000 keys · 100% of 100,000 in the database");
  }

  @Test
  void aCursorThatGoesBackIsNotTrustedAgainAndDbsizeEstimatesInstead() {
    ScanProgress progress = new ScanProgress(1_000, null, () -> now);
    progress.update(100, "1");
    assertThat(progress.fraction()).isEqualTo(0.5);
    progress.update(200, "2");
    assertThat(progress.fraction()).isEqualTo(0.2);
    progress.update(300, "3");
    assertThat(progress.fraction()).isEqualTo(0.3);
    progress.update(5_000, "7"); // more keys than DBSIZE said: never 100% before the end
    assertThat(progress.fraction()).isEqualTo(0.99);
  }

  @Test
  void aLimitIsAFloorAndAnUnknownDbsizeIsLeftOut() {
    ScanProgress progress = new ScanProgress(-1, 400L, () -> now);
    now += 2 * SECOND;
    progress.update(100, "4"); // the cursor says 12.5%, the limit 25%
    assertThat(progress.fraction()).isEqualTo(0.25);
    assertThat(progress.line()).isEqualTo("scanned 100 keys · 25% · about 6s left");
  }

  @Test
  void durationsAreShortAndPadded() {
    assertThat(ScanProgress.duration(0)).isEqualTo("0s");
    assertThat(ScanProgress.duration(59)).isEqualTo("59s");
    assertThat(ScanProgress.duration(61)).isEqualTo("1m 01s");
    assertThat(ScanProgress.duration(3_600 * 2 + 7 * 60 + 30)).isEqualTo("2h 07m");
  }
}
