package dev.stowage.bench.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The seed figures resource, and the specs of the known tables that refer to it. */
class SeedFiguresUnitTests {

  @Test
  void everySeedTableThatAKnownBenchReproducesHasFigures() {
    SeedFigures seeds = SeedFigures.load();
    assertThat(seeds.tables())
        .extracting(SeedFigures.SeedTable::id)
        .containsExactly("T1", "T2", "T3", "T4", "T5", "T6");
    for (TableSpec spec : TableSpec.known()) {
      for (String id : spec.seedTables()) {
        assertThat(seeds.table(id))
            .as(spec.bench() + " -> " + id)
            .hasValueSatisfying(table -> assertThat(table.figures()).isNotEmpty());
      }
    }
    assertThat(seeds.table("T2").orElseThrow().figures())
        .anySatisfy(
            figure -> {
              assertThat(figure.label()).isEqualTo("N=30,000, one by one");
              assertThat(figure.value()).isEqualTo(2078.0);
              assertThat(figure.unit()).isEqualTo("ms");
            });
  }

  @Test
  void metricNamesSayWhatTheyMeasure() {
    assertThat(TableSpec.kindOf("rps")).isEqualTo(MetricKind.THROUGHPUT);
    assertThat(TableSpec.kindOf("add_ops_per_s")).isEqualTo(MetricKind.THROUGHPUT);
    assertThat(TableSpec.kindOf("p99_ms")).isEqualTo(MetricKind.LATENCY);
    assertThat(TableSpec.kindOf("check_p50_ms")).isEqualTo(MetricKind.LATENCY);
    assertThat(TableSpec.kindOf("median_ms")).isEqualTo(MetricKind.TIME);
    assertThat(TableSpec.kindOf("redis_used_memory_mb")).isEqualTo(MetricKind.MEMORY);
    assertThat(TableSpec.kindOf("wire_bytes_per_request")).isEqualTo(MetricKind.BYTES);
    assertThat(TableSpec.kindOf("size_deflate")).isEqualTo(MetricKind.BYTES);
    assertThat(TableSpec.kindOf("errors")).isNull();
    assertThat(TableSpec.kindOf("requests")).isNull();
  }
}
