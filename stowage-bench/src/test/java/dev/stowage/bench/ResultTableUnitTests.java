package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultTableUnitTests {

  private static ResultRow row(String name, String data, Double totalNs, double size) {
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("codec", name);
    params.put("data", data);
    Map<String, Number> metrics = new LinkedHashMap<>();
    if (totalNs != null) {
      metrics.put("total_ns", totalNs);
    }
    metrics.put("size", size);
    return new ResultRow(name, RowRole.PEER, params, metrics);
  }

  private static final List<ResultRow> ROWS =
      List.of(
          row("json", "board", 2000.0, 600),
          row("kryo", "board", 500.0, 240),
          row("json", "media", 4000.0, 480),
          row("kryo", "media", null, 120));

  private static ResultTable table() {
    return ResultTable.builder()
        .text("codec", ResultRow::name)
        .metric("total ns", "total_ns", 0)
        .metric("size", "size", 1)
        .ratio("total/json", "total_ns")
        .ratio("size/json", "size")
        .baseline("json", "data")
        .groupBy("data")
        .build();
  }

  @Test
  void ratioIsRowOverBaseline() {
    assertThat(ResultTable.ratio(ROWS.get(1), ROWS.get(0), "total_ns")).hasValue(0.25);
    assertThat(ResultTable.ratio(ROWS.get(1), ROWS.get(0), "size")).hasValue(0.4);
    assertThat(ResultTable.ratio(ROWS.get(3), ROWS.get(2), "total_ns")).isEmpty();
    assertThat(ResultTable.ratio(ROWS.get(1), row("zero", "board", 0.0, 0), "size")).isEmpty();
  }

  @Test
  void baselineIsTheNamedRowWithTheSameData() {
    ResultTable table = table();
    assertThat(table.baselineOf(ROWS.get(1), ROWS)).containsSame(ROWS.get(0));
    assertThat(table.baselineOf(ROWS.get(3), ROWS)).containsSame(ROWS.get(2));
    assertThat(table.baselineOf(row("kryo", "person", 1.0, 1), ROWS)).isEmpty();
  }

  @Test
  void rendersAlignedSectionsWithRatiosAgainstTheBaseline() {
    String nl = System.lineSeparator();
    String expected =
        String.join(
            nl,
            "data: board",
            "codec  total ns   size  total/json  size/json",
            "---------------------------------------------",
            "json       2000  600.0        1.00       1.00",
            "kryo        500  240.0        0.25       0.40",
            "",
            "data: media",
            "codec  total ns   size  total/json  size/json",
            "---------------------------------------------",
            "json       4000  480.0        1.00       1.00",
            "kryo          -  120.0           -       0.25",
            "");

    assertThat(table().render(ROWS)).isEqualTo(expected);
  }

  @Test
  void withoutABaselineRatiosAreMissing() {
    String text =
        ResultTable.builder()
            .text("codec", ResultRow::name)
            .ratio("x", "size")
            .build()
            .render(List.of(ROWS.get(1)));

    assertThat(text.lines()).containsExactly("codec  x", "--------", "kryo   -");
  }

  @Test
  void aTableNeedsAColumn() {
    assertThatThrownBy(() -> ResultTable.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a table needs at least one column");
  }
}
