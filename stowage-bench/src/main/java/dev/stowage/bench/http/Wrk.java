package dev.stowage.bench.http;

import dev.stowage.bench.BenchmarkRunException;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code wrk} HTTP benchmark, when it is on the {@code PATH}: run after the loads against the
 * same read page with the same number of connections, an independent client written in C, it shows
 * whether the JVM load generator is what limits the figures.
 *
 * @param executable the {@code wrk} binary
 */
public record Wrk(Path executable) {
  private static final Pattern RPS = Pattern.compile("Requests/sec:\\s+([0-9.]+)");
  private static final Pattern P99 =
      Pattern.compile("^\\s*99(?:\\.000)?%\\s+([0-9.]+)(us|ms|s)\\s*$", Pattern.MULTILINE);
  private static final Pattern NON_2XX = Pattern.compile("Non-2xx or 3xx responses:\\s+(\\d+)");
  private static final Pattern SOCKET_ERRORS =
      Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)");

  /** Requires the executable. */
  public Wrk {
    Objects.requireNonNull(executable, "executable");
  }

  /** {@code wrk} from the {@code PATH}, or empty when there is none. */
  public static Optional<Wrk> onPath() {
    String path = System.getenv("PATH");
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Paths.get(dir, "wrk");
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return Optional.of(new Wrk(candidate));
      }
    }
    return Optional.empty();
  }

  /**
   * What one wrk run measured.
   *
   * @param requestsPerSecond wrk's {@code Requests/sec}, all responses counted
   * @param p99Millis the 99th percentile latency
   * @param errors non-2xx responses plus socket errors
   */
  public record Result(double requestsPerSecond, double p99Millis, long errors) {}

  /**
   * Runs {@code wrk -t threads -c connections -d duration --latency url}.
   *
   * @throws BenchmarkRunException if wrk fails or prints no {@code Requests/sec}; the message
   *     includes its output
   */
  public Result run(String url, int connections, int threads, Duration duration) {
    int seconds = (int) Math.max(1, duration.toSeconds());
    List<String> command =
        List.of(
            executable.toString(),
            "-t" + Math.max(1, Math.min(threads, connections)),
            "-c" + connections,
            "-d" + seconds + "s",
            "--latency",
            url);
    String output;
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(seconds + 30L, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new BenchmarkRunException("wrk did not finish: " + String.join(" ", command), null);
      }
      if (process.exitValue() != 0) {
        throw new BenchmarkRunException(
            "wrk exited with status " + process.exitValue() + ":\n" + output, null);
      }
    } catch (IOException e) {
      throw new BenchmarkRunException("cannot run " + executable + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkRunException("interrupted while running wrk", e);
    }
    return parse(output);
  }

  /**
   * Reads wrk's report.
   *
   * @throws BenchmarkRunException if it has no {@code Requests/sec} line
   */
  static Result parse(String output) {
    Matcher rps = RPS.matcher(output);
    if (!rps.find()) {
      throw new BenchmarkRunException("wrk printed no Requests/sec:\n" + output, null);
    }
    double p99 = 0.0;
    Matcher latency = P99.matcher(output);
    if (latency.find()) {
      double value = Double.parseDouble(latency.group(1));
      p99 =
          switch (latency.group(2).toLowerCase(Locale.ROOT)) {
            case "us" -> value / 1000.0;
            case "s" -> value * 1000.0;
            default -> value;
          };
    }
    long errors = 0;
    Matcher non2xx = NON_2XX.matcher(output);
    if (non2xx.find()) {
      errors += Long.parseLong(non2xx.group(1));
    }
    Matcher socket = SOCKET_ERRORS.matcher(output);
    if (socket.find()) {
      for (int group = 1; group <= 4; group++) {
        errors += Long.parseLong(socket.group(group));
      }
    }
    return new Result(Double.parseDouble(rps.group(1)), p99, errors);
  }
}
