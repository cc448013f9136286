package dev.stowage.bench;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import org.jspecify.annotations.Nullable;

/**
 * One measured configuration of a benchmark.
 *
 * @param name a short label for the table, such as {@code "kryo+zstd"}
 * @param role why the row is there
 * @param params what was configured (for codecs: {@code codec}, {@code compression}, {@code data})
 * @param metrics what was measured, by metric name (for codecs: {@code create_ns}, {@code size},
 *     ...)
 */
@JsonPropertyOrder({"name", "role", "params", "metrics"})
public record ResultRow(
    String name, RowRole role, Map<String, Object> params, Map<String, Number> metrics) {

  /** Copies the maps, keeping their order; none of the arguments may be {@code null}. */
  public ResultRow {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(role, "role");
    params =
        Collections.unmodifiableMap(new LinkedHashMap<>(Objects.requireNonNull(params, "params")));
    metrics =
        Collections.unmodifiableMap(
            new LinkedHashMap<>(Objects.requireNonNull(metrics, "metrics")));
  }

  /** The metric as a double, or empty if the row does not have it. */
  public OptionalDouble metric(String key) {
    Number value = metrics.get(key);
    return value == null ? OptionalDouble.empty() : OptionalDouble.of(value.doubleValue());
  }

  /** The parameter as text, or {@code null} if the row does not have it. */
  public @Nullable String param(String key) {
    Object value = params.get(key);
    return value == null ? null : value.toString();
  }
}
