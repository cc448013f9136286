package dev.stowage.bench.codecs;

import dev.stowage.bench.ProgressReporter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.format.OutputFormat;

/**
 * A JMH output format that prints nothing of JMH's own and reports one progress line per finished
 * configuration instead. It keeps JMH's last lines, so that a failure can be explained.
 */
final class JmhProgressFormat implements OutputFormat {

  private static final int KEPT_LINES = 80;

  private final ProgressReporter progress;
  private final Function<BenchmarkParams, String> label;
  private final Deque<String> lastLines = new ArrayDeque<>();
  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();

  JmhProgressFormat(ProgressReporter progress, Function<BenchmarkParams, String> label) {
    this.progress = Objects.requireNonNull(progress, "progress");
    this.label = Objects.requireNonNull(label, "label");
  }

  /** JMH's last output lines, oldest first. */
  synchronized List<String> lastLines() {
    flushPartial();
    return List.copyOf(lastLines);
  }

  @Override
  public void iteration(BenchmarkParams benchParams, IterationParams params, int iteration) {}

  @Override
  public void iterationResult(
      BenchmarkParams benchParams, IterationParams params, int iteration, IterationResult data) {}

  @Override
  public synchronized void startBenchmark(BenchmarkParams benchParams) {
    keep("# benchmark " + label.apply(benchParams));
  }

  @Override
  public void endBenchmark(BenchmarkResult result) {
    if (result != null) {
      progress.finished(label.apply(result.getParams()));
    }
  }

  @Override
  public void startRun() {}

  @Override
  public void endRun(Collection<RunResult> result) {}

  @Override
  public synchronized void print(String s) {
    write(s.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public synchronized void println(String s) {
    print(s);
    write('\n');
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}

  @Override
  public synchronized void verbosePrintln(String s) {
    println(s);
  }

  @Override
  public synchronized void write(int b) {
    if (b == '\n') {
      flushPartial();
    } else {
      partial.write(b);
    }
  }

  @Override
  public synchronized void write(byte[] b) {
    for (byte value : b) {
      write(value);
    }
  }

  private void flushPartial() {
    if (partial.size() > 0) {
      keep(partial.toString(StandardCharsets.UTF_8));
      partial.reset();
    }
  }

  private void keep(String line) {
    if (line.isBlank()) {
      return;
    }
    if (lastLines.size() == KEPT_LINES) {
      lastLines.removeFirst();
    }
    lastLines.addLast(line);
  }
}
