package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultsDocumentUnitTests {

  private static ResultRow row(String name, RowRole role, String codec, double totalNs, long size) {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("codec", codec);
    params.put("compression", "bare");
    params.put("data", "board");
    Map<String, Number> metrics = new LinkedHashMap<>();
    metrics.put("total_ns", totalNs);
    metrics.put("size", size);
    return new ResultRow(name, role, params, metrics);
  }

  private static ResultsDocument document() {
    Map<String, Object> env =
        RunEnvironment.capture(
            "7.0.15", Clock.fixed(Instant.parse("2025-01-02T03:04:05Z"), ZoneOffset.UTC));
    return new ResultsDocument(
        "codecs",
        true,
        env,
        List.of(
            row("json", RowRole.SEED, "json", 2345.5, 583),
            row("kryo+zstd", RowRole.STOWAGE, "kryo", 901.25, 230)));
  }

  @Test
  void writesExactlyTheSharedShapeToBenchNameDotJson(@TempDir Path dir) throws Exception {
    Path file = document().writeTo(dir.resolve("results"));

    assertThat(file).isEqualTo(dir.resolve("results").resolve("codecs.json"));
    JsonNode root = new ObjectMapper().readTree(file.toFile());
    assertThat(fieldNames(root)).containsExactly("bench", "quick", "env", "rows");
    assertThat(root.get("bench").asText()).isEqualTo("codecs");
    assertThat(root.get("quick").isBoolean()).isTrue();
    assertThat(root.get("quick").asBoolean()).isTrue();
    assertThat(root.get("env").isObject()).isTrue();
    assertThat(root.get("rows").isArray()).isTrue();
    assertThat(root.get("rows")).hasSize(2);
    JsonNode first = root.get("rows").get(0);
    assertThat(fieldNames(first)).containsExactly("name", "role", "params", "metrics");
    assertThat(first.get("role").asText()).isEqualTo("seed");
    assertThat(root.get("rows").get(1).get("role").asText()).isEqualTo("stowage");
    assertThat(fieldNames(first.get("params"))).containsExactly("codec", "compression", "data");
    assertThat(first.get("metrics").get("total_ns").isNumber()).isTrue();
    assertThat(first.get("metrics").get("total_ns").asDouble()).isEqualTo(2345.5);
    assertThat(first.get("metrics").get("size").asLong()).isEqualTo(583);
  }

  @Test
  void readsBackWhatItWrote(@TempDir Path dir) {
    ResultsDocument written = document();
    ResultsDocument read = ResultsDocument.read(written.writeTo(dir));

    assertThat(read.bench()).isEqualTo("codecs");
    assertThat(read.quick()).isTrue();
    assertThat(read.env()).containsEntry("redis_version", "7.0.15");
    assertThat(read.rows()).extracting(ResultRow::name).containsExactly("json", "kryo+zstd");
    assertThat(read.rows())
        .extracting(ResultRow::role)
        .containsExactly(RowRole.SEED, RowRole.STOWAGE);
    assertThat(read.rows().get(1).params()).isEqualTo(written.rows().get(1).params());
    assertThat(read.rows().get(1).metric("total_ns")).hasValue(901.25);
    assertThat(read.rows().get(1).metric("size")).hasValue(230.0);
  }

  @Test
  void replacesAnOlderFileAndLeavesNoTemporaryFiles(@TempDir Path dir) throws Exception {
    Files.writeString(dir.resolve("codecs.json"), "old");
    document().writeTo(dir);

    assertThat(Files.readString(dir.resolve("codecs.json"))).startsWith("{");
    try (var files = Files.list(dir)) {
      assertThat(files).containsExactly(dir.resolve("codecs.json"));
    }
  }

  @Test
  void environmentDescribesTheJvmTheDateAndRedis() {
    Map<String, Object> env =
        RunEnvironment.capture(
            "7.2.4", Clock.fixed(Instant.parse("2025-01-02T03:04:05Z"), ZoneOffset.UTC));

    assertThat(env)
        .containsKeys(
            "java_version", "java_vendor", "java_vm", "os", "cores", "max_heap_bytes", "date");
    assertThat(env.get("java_version")).isEqualTo(System.getProperty("java.version"));
    assertThat(env.get("cores")).isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(env.get("date")).isEqualTo("2025-01-02T03:04:05Z");
    assertThat(env.get("redis_version")).isEqualTo("7.2.4");
    assertThat(RunEnvironment.capture()).doesNotContainKey("redis_version");
  }

  @Test
  void rejectsABenchNameThatIsNoPlainFileName() {
    assertThatThrownBy(() -> new ResultsDocument("../evil", false, Map.of(), List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("../evil");
  }

  @Test
  void rejectsAnUnknownRoleWhenReading(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("x.json");
    Files.writeString(
        file,
        "{\"bench\":\"x\",\"quick\":false,\"env\":{},\"rows\":[{\"name\":\"a\",\"role\":\"boss\",\"params\":{},\"metrics\":{}}]}");

    assertThatThrownBy(() -> ResultsDocument.read(file))
        .hasMessageContaining(file.toString())
        .hasStackTraceContaining("boss");
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }
}
