package dev.stowage.bench.codecs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.api.parallel.Resources;

/**
 * One configuration through the whole pipeline: JMH (in a forked JVM by default, in this one with
 * {@code quick}), the phase counters and the results row. The sizes are deterministic, so they must
 * equal what the same fixture encodes here. No timing is asserted beyond "it was measured".
 */
@ResourceLock(Resources.SYSTEM_PROPERTIES) // java.class.path, which the bench sets for JMH's forks
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class CodecBenchmarkSmokeUnitTests {

  @Test
  void oneQuickConfigurationReportsEveryMetric() {
    runAndCheck(true);
  }

  @Test
  void oneThoroughConfigurationRunsInAForkAndReportsEveryMetric() {
    runAndCheck(false);
  }

  private static void runAndCheck(boolean quick) {
    CodecsBench.Plan plan =
        new CodecsBench.Plan(
            quick,
            List.of(CodecUnderTest.KRYO),
            List.of(PayloadVariant.ZSTD_DICT),
            List.of(DataShape.BOARD));
    ByteArrayOutputStream progress = new ByteArrayOutputStream();

    ResultsDocument results =
        CodecsBench.run(plan, new PrintStream(progress, true, StandardCharsets.UTF_8));

    assertThat(results.bench()).isEqualTo("codecs");
    assertThat(results.quick()).isEqualTo(quick);
    assertThat(results.rows()).hasSize(1);
    ResultRow row = results.rows().get(0);
    assertThat(row.name()).isEqualTo("kryo+zstd-dict");
    assertThat(row.role()).isEqualTo(RowRole.STOWAGE);
    for (String phase : List.of("create_ns", "ser_ns", "deser_ns")) {
      assertThat(row.metric(phase).getAsDouble()).as(phase).isPositive();
    }
    assertThat(row.metric("total_ns").getAsDouble())
        .isCloseTo(
            row.metric("create_ns").getAsDouble()
                + row.metric("ser_ns").getAsDouble()
                + row.metric("deser_ns").getAsDouble(),
            Assertions.within(0.5));

    CodecFixture<?, ?> fixture =
        CodecFixture.create(CodecUnderTest.KRYO, PayloadVariant.ZSTD_DICT, DataShape.BOARD);
    assertThat(row.metric("size").getAsDouble())
        .isCloseTo((double) fixture.encodedBytes() / CodecFixture.RECORDS, Assertions.within(0.05));
    assertThat(row.metric("size_deflate").getAsDouble())
        .isCloseTo(
            (double) fixture.deflatedBytes() / CodecFixture.RECORDS, Assertions.within(0.05));
    List<String> lines = progress.toString(StandardCharsets.UTF_8).lines().toList();
    assertThat(lines.get(lines.size() - 1)).startsWith("[1/1] kryo+zstd-dict board");
    if (quick) {
      assertThat(lines.get(0)).startsWith("warmed up every codec in this JVM");
    }
  }
}
