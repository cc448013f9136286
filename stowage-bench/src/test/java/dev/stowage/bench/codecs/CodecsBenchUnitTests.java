package dev.stowage.bench.codecs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.bench.ResultRow;
import dev.stowage.bench.ResultsDocument;
import dev.stowage.bench.RowRole;
import dev.stowage.bench.RunEnvironment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.TimeValue;

class CodecsBenchUnitTests {

  @Test
  void rowsCarryTheT3ParamsMetricsAndRoles() {
    ResultRow json =
        new CodecMeasurement(
                CodecUnderTest.JSON,
                PayloadVariant.BARE,
                DataShape.BOARD,
                100,
                400,
                700.04,
                583.25,
                351)
            .toRow();
    ResultRow msgpack =
        new CodecMeasurement(
                CodecUnderTest.MSGPACK, PayloadVariant.BARE, DataShape.MEDIA, 1, 2, 3, 4, 5)
            .toRow();
    ResultRow kryo =
        new CodecMeasurement(
                CodecUnderTest.KRYO, PayloadVariant.BARE, DataShape.BOARD, 1, 2, 3, 4, 5)
            .toRow();
    ResultRow enveloped =
        new CodecMeasurement(
                CodecUnderTest.JSON, PayloadVariant.NONE, DataShape.BOARD, 1, 2, 3, 4, 5)
            .toRow();
    ResultRow dict =
        new CodecMeasurement(
                CodecUnderTest.FORY, PayloadVariant.ZSTD_DICT, DataShape.MEDIA, 1, 2, 3, 4, 5)
            .toRow();

    assertThat(json.name()).isEqualTo("json");
    assertThat(json.params())
        .containsExactly(
            Assertions.entry("codec", "json"),
            Assertions.entry("compression", "bare"),
            Assertions.entry("data", "board"));
    assertThat(json.metrics())
        .containsOnlyKeys("create_ns", "ser_ns", "deser_ns", "total_ns", "size", "size_deflate");
    assertThat(json.metrics().keySet())
        .containsExactly("create_ns", "ser_ns", "deser_ns", "total_ns", "size", "size_deflate");
    assertThat(json.metric("total_ns")).hasValue(1200.0);
    assertThat(json.metric("deser_ns")).hasValue(700.0);
    assertThat(json.metric("size")).hasValue(583.3);

    assertThat(json.role()).isEqualTo(RowRole.SEED);
    assertThat(msgpack.role()).isEqualTo(RowRole.SEED);
    assertThat(kryo.role()).isEqualTo(RowRole.PEER);
    assertThat(enveloped.role()).isEqualTo(RowRole.STOWAGE);
    assertThat(enveloped.name()).isEqualTo("json+envelope");
    assertThat(dict.role()).isEqualTo(RowRole.STOWAGE);
    assertThat(dict.name()).isEqualTo("fory+zstd-dict");
    assertThat(dict.params())
        .containsEntry("compression", "zstd-dict")
        .containsEntry("data", "media");
  }

  @Test
  void theTableComparesWithBareJsonOnTheSameData(@TempDir Path dir) {
    List<ResultRow> rows = new ArrayList<>();
    rows.add(
        new CodecMeasurement(
                CodecUnderTest.JSON, PayloadVariant.BARE, DataShape.BOARD, 100, 400, 500, 600, 300)
            .toRow());
    rows.add(
        new CodecMeasurement(
                CodecUnderTest.KRYO, PayloadVariant.ZSTD, DataShape.BOARD, 50, 100, 100, 240, 210)
            .toRow());
    rows.add(
        new CodecMeasurement(
                CodecUnderTest.MSGPACK_COMPACT,
                PayloadVariant.NONE,
                DataShape.BOARD,
                30,
                90,
                130,
                396,
                320)
            .toRow());
    rows.add(
        new CodecMeasurement(
                CodecUnderTest.MSGPACK_COMPACT,
                PayloadVariant.ZSTD_DICT,
                DataShape.BOARD,
                30,
                300,
                300,
                215,
                226)
            .toRow());
    rows.add(
        new CodecMeasurement(
                CodecUnderTest.JSON, PayloadVariant.BARE, DataShape.MEDIA, 200, 800, 1000, 480, 300)
            .toRow());
    rows.add(
        new CodecMeasurement(
                CodecUnderTest.KRYO, PayloadVariant.ZSTD, DataShape.MEDIA, 100, 100, 200, 240, 150)
            .toRow());
    ResultsDocument document =
        ResultsDocument.read(
            new ResultsDocument("codecs", true, RunEnvironment.capture(), rows).writeTo(dir));

    List<String> lines = CodecsBench.table().render(document.rows()).lines().toList();

    assertThat(lines.get(0)).isEqualTo("data: board");
    assertThat(lines.get(1).split("\\s+"))
        .containsExactly(
            "codec",
            "role",
            "create",
            "ser",
            "deser",
            "total",
            "ns",
            "size",
            "+dfl",
            "total/json",
            "size/json",
            "dfl/json",
            "default");
    assertThat(lines.get(3).split("\\s+"))
        .containsExactly(
            "json", "seed", "100", "400", "500", "1000", "600", "300", "1.00", "1.00", "1.00", "-");
    assertThat(lines.get(4).split("\\s+"))
        .containsExactly(
            "kryo+zstd",
            "stowage",
            "50",
            "100",
            "100",
            "250",
            "240",
            "210",
            "0.25",
            "0.40",
            "0.70",
            "-");
    assertThat(lines.get(5).split("\\s+"))
        .containsExactly(
            "msgpack-compact+envelope",
            "stowage",
            "30",
            "90",
            "130",
            "250",
            "396",
            "320",
            "0.25",
            "0.66",
            "1.07",
            "standard");
    assertThat(lines.get(6).split("\\s+")).endsWith("learned");
    assertThat(lines.get(8)).isEqualTo("data: media");
    assertThat(lines.get(12).split("\\s+"))
        .containsExactly(
            "kryo+zstd",
            "stowage",
            "100",
            "100",
            "200",
            "400",
            "240",
            "150",
            "0.20",
            "0.50",
            "0.50",
            "-");
  }

  @Test
  void jmhRunsOnlyTheCodecBenchmarkWithThePlansParams() {
    CodecsBench.Plan plan =
        new CodecsBench.Plan(
            true,
            List.of(CodecUnderTest.KRYO, CodecUnderTest.JSON),
            List.of(PayloadVariant.BARE, PayloadVariant.ZSTD_DICT),
            List.of(DataShape.MEDIA));
    Options options = CodecsBench.jmhOptions(plan);

    assertThat(options.getIncludes()).hasSize(1);
    assertThat("dev.stowage.bench.codecs.CodecBenchmark.createSerDeser")
        .matches(options.getIncludes().get(0));
    assertThat(options.getParameter("codec").get()).containsExactly("kryo", "json");
    assertThat(options.getParameter("compression").get()).containsExactly("bare", "zstd-dict");
    assertThat(options.getParameter("data").get()).containsExactly("media");
    assertThat(options.getForkCount().get()).as("quick runs in this JVM").isEqualTo(0);
    assertThat(CodecsBench.jmhOptions(CodecsBench.Plan.everything(false)).getForkCount().get())
        .as("thorough forks")
        .isEqualTo(1);
    assertThat(options.getMeasurementTime().get()).isEqualTo(CodecsBench.QUICK.measurementTime());
    assertThat(
            CodecsBench.jmhOptions(CodecsBench.Plan.everything(false)).getMeasurementTime().get())
        .isEqualTo(TimeValue.seconds(1));
    assertThat(plan.configurations()).isEqualTo(4);
  }

  @Test
  void namesParseBackAndUnknownNamesListTheChoices() {
    for (CodecUnderTest codec : CodecUnderTest.values()) {
      assertThat(CodecUnderTest.forName(codec.cliName())).isSameAs(codec);
    }
    for (PayloadVariant variant : PayloadVariant.values()) {
      assertThat(PayloadVariant.forName(variant.paramName())).isSameAs(variant);
    }
    assertThatThrownBy(() -> CodecUnderTest.forName("yaml"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "unknown codec 'yaml'; choose from json, fastjson2, msgpack, msgpack-compact, kryo, fory, protobuf, avro, thrift, jdk");
  }
}
