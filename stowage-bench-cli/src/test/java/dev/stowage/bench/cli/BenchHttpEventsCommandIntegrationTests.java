package dev.stowage.bench.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import java.nio.file.Path;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code stowage bench http --events}: apart from {@link BenchHttpCommandIntegrationTests}, so that
 * the two long runs (each starts its board services, this one a Kafka broker too) go side by side.
 */
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class BenchHttpEventsCommandIntegrationTests {

  @Test
  void eventsPutTheWritesWithAnOutboxBesideTheWritesWithoutAndDrainIt(@TempDir Path out) {
    CliRun run = CliRun.tinyHttpBench(out, "--modes", "stowage", "--events");

    assertThat(run.exit()).as(run.stderr()).isZero();
    ResultsDocument results = ResultsDocument.read(out.resolve("http.json"));
    assertThat(results.rows())
        .extracting(ResultRow::name)
        .containsExactly("stowage", "stowage+events", "stowage");
    assertThat(results.rows())
        .extracting(row -> row.param("load"))
        .containsExactly("write", "write", "read");
    assertThat(results.rows())
        .extracting(row -> row.param("events"))
        .containsExactly("off", "on", "off");
    ResultRow on = results.rows().get(1);
    assertThat(on.metric("errors").getAsDouble()).isZero();
    assertThat(on.param("kafka")).contains("KRaft").contains("loopback");
    assertThat(on.param("kafka_version"))
        .isNotBlank()
        .isEqualTo(results.env().get("kafka_version"));
    assertThat(on.metric("events_rps_ratio").getAsDouble()).isPositive();
    assertThat(on.metric("events_rps_ratio_min").getAsDouble())
        .isPositive()
        .isLessThanOrEqualTo(on.metric("events_rps_ratio_max").getAsDouble());
    // Drained: nothing pending, and every post acknowledged (preload and writes) published.
    assertThat(on.metric("outbox_pending").getAsDouble()).isZero();
    assertThat(on.metric("posts_acknowledged").getAsDouble())
        .isGreaterThanOrEqualTo(200 + on.metric("requests").getAsDouble());
    assertThat(on.metric("events_published").getAsDouble())
        .isGreaterThanOrEqualTo(on.metric("posts_acknowledged").getAsDouble());
    assertThat(results.rows().get(0).param("kafka"))
        .as("the events-off row names no broker")
        .isNull();
    assertThat(run.stdout())
        .contains("rps on/off")
        .contains("stowage+events: outbox drained after the load: 0 pending");
  }
}
