package dev.stowage.bench.report;

/** What a charted metric measures, which decides whether a higher or a lower bar is better. */
public enum MetricKind {
  /** Operations or requests per second; higher is better. */
  THROUGHPUT("throughput", true),
  /** Time for a piece of work; lower is better. */
  TIME("time", false),
  /** A latency percentile; lower is better. */
  LATENCY("latency", false),
  /** Bytes per item or on the wire; lower is better. */
  BYTES("bytes", false),
  /** Memory held by Redis; lower is better. */
  MEMORY("memory", false);

  private final String noun;
  private final boolean higherIsBetter;

  MetricKind(String noun, boolean higherIsBetter) {
    this.noun = noun;
    this.higherIsBetter = higherIsBetter;
  }

  /** The word for what a ratio compares, such as {@code "time"}. */
  public String noun() {
    return noun;
  }

  /** Whether a higher value is the better one. */
  public boolean higherIsBetter() {
    return higherIsBetter;
  }
}
