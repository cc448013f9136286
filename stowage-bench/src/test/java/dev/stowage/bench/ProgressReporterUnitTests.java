package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ProgressReporterUnitTests {

  @Test
  void printsALinePerConfigurationWithTheTimeLeftEstimatedWithoutTheFirst() {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ProgressReporter progress =
        new ProgressReporter(10, new PrintStream(bytes, true, StandardCharsets.UTF_8), now::get);

    // The first configuration pays for the start-up: ten times as long as the others.
    now.addAndGet(Duration.ofSeconds(20).toNanos());
    progress.finished("json board");
    now.addAndGet(Duration.ofSeconds(2).toNanos());
    progress.finished("kryo board");
    now.addAndGet(Duration.ofSeconds(4).toNanos());
    progress.finished("fory board");

    assertThat(bytes.toString(StandardCharsets.UTF_8).lines())
        .containsExactly(
            "[ 1/10] json board  20s  elapsed 20s",
            "[ 2/10] kryo board  2.0s  elapsed 22s  ETA 16s",
            "[ 3/10] fory board  4.0s  elapsed 26s  ETA 21s");
    assertThat(progress.done()).isEqualTo(3);
  }

  @Test
  void theLastLineHasNoEstimate() {
    AtomicLong now = new AtomicLong();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    ProgressReporter progress =
        new ProgressReporter(1, new PrintStream(bytes, true, StandardCharsets.UTF_8), now::get);
    now.set(Duration.ofMillis(1500).toNanos());

    progress.finished("only");

    assertThat(bytes.toString(StandardCharsets.UTF_8).strip())
        .isEqualTo("[1/1] only  1.5s  elapsed 1.5s");
  }

  @Test
  void formatsDurationsShortly() {
    assertThat(ProgressReporter.format(Duration.ofMillis(850))).isEqualTo("850ms");
    assertThat(ProgressReporter.format(Duration.ofMillis(1420))).isEqualTo("1.4s");
    assertThat(ProgressReporter.format(Duration.ofSeconds(42))).isEqualTo("42s");
    assertThat(ProgressReporter.format(Duration.ofSeconds(125))).isEqualTo("2m05s");
    assertThat(ProgressReporter.format(Duration.ofMinutes(63))).isEqualTo("1h03m");
    assertThat(ProgressReporter.format(Duration.ofSeconds(-3))).isEqualTo("0ms");
  }
}
