package dev.stowage.spring;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.NamingConvention;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The names a Prometheus scrape shows for a meter, by the rules Micrometer's Prometheus registry
 * applies (its {@code PrometheusNamingConvention} and the Prometheus client it writes with):
 * snake_case; the base unit appended unless the name already ends with it (seconds for timers);
 * a counter's name ending in {@code _total}, added once. {@code micrometer-registry-prometheus} is
 * not in this offline build's repository, so the tests apply these rules to the meters of a
 * {@link io.micrometer.core.instrument.simple.SimpleMeterRegistry}.
 */
final class PrometheusNames {
  private PrometheusNames() {}

  /** The sample names of {@code meter} in Prometheus's text format. */
  static List<String> of(Meter meter) {
    Meter.Id id = meter.getId();
    String name = NamingConvention.snakeCase.name(id.getName(), id.getType(), id.getBaseUnit());
    return switch (id.getType()) {
      case COUNTER -> List.of(strip(withUnit(strip(name, "_total"), id.getBaseUnit()), "_total") + "_total");
      case TIMER, LONG_TASK_TIMER -> {
        String timer = withUnit(name, "seconds");
        yield List.of(timer + "_count", timer + "_sum");
      }
      case DISTRIBUTION_SUMMARY -> {
        String summary = withUnit(name, id.getBaseUnit());
        yield List.of(summary + "_count", summary + "_sum");
      }
      default -> List.of(withUnit(name, id.getBaseUnit()));
    };
  }

  private static String withUnit(String name, @Nullable String unit) {
    return unit == null || name.endsWith("_" + unit) ? name : name + "_" + unit;
  }

  private static String strip(String name, String suffix) {
    return name.endsWith(suffix) ? name.substring(0, name.length() - suffix.length()) : name;
  }
}
