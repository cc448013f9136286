package dev.stowage.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.HdrHistogram.Histogram;

/**
 * Runs an operation from many caller threads at once, each calling again as soon as its previous
 * call returns (a closed loop, like a load tool's virtual users), and records every call's latency
 * in an HdrHistogram.
 *
 * <p>The run stops when {@code maxOperations} calls have been started or {@code maxDuration} has
 * passed, whichever comes first. The first failure stops the run and is rethrown as a {@link
 * BenchmarkRunException}: a benchmark whose calls fail measures nothing.
 */
public final class ClosedLoop {

  /** One call of the workload. {@code sequence} counts calls across all threads, from 0. */
  @FunctionalInterface
  public interface Operation {
    void call(int thread, long sequence) throws Exception;
  }

  /**
   * What a run measured.
   *
   * @param operations calls completed
   * @param wallNanos from the first call's start to the last call's end
   * @param processCpuNanos CPU time this JVM used meanwhile (all threads), or -1 if unknown
   * @param latencyNanos every call's latency
   * @param roundRates calls per second in each round of a run bounded by time and split into rounds
   *     (consecutive equal parts of its duration); empty otherwise
   */
  @SuppressWarnings("ArrayRecordComponent") // a result, never compared or used as a key
  public record Result(
      long operations,
      long wallNanos,
      long processCpuNanos,
      Histogram latencyNanos,
      double[] roundRates) {

    /**
     * Puts the figures of the rounds into {@code metrics} beside {@code metric} (this run's calls
     * per second): {@code <metric>_min} and {@code <metric>_max}, the lowest and highest rate of a
     * round, and {@code <metric>_rounds}, when there were at least two rounds. The report gives a
     * ratio's spread from them.
     */
    public void putRounds(Map<String, Number> metrics, String metric) {
      if (roundRates.length < 2) {
        return;
      }
      double min = Arrays.stream(roundRates).min().orElse(0);
      double max = Arrays.stream(roundRates).max().orElse(0);
      metrics.put(metric + "_min", Figures.round(min, 1));
      metrics.put(metric + "_max", Figures.round(max, 1));
      metrics.put(metric + "_rounds", roundRates.length);
    }

    /** Calls per second. */
    public double opsPerSecond() {
      return wallNanos == 0 ? 0 : operations * 1e9 / wallNanos;
    }

    /** A latency percentile in milliseconds. */
    public double percentileMillis(double percentile) {
      return latencyNanos.getValueAtPercentile(percentile) / 1e6;
    }

    /** This JVM's CPU use as a percentage of one core, or -1 if unknown. */
    public double cpuPercentOfOneCore() {
      return processCpuNanos < 0 || wallNanos == 0 ? -1 : processCpuNanos * 100.0 / wallNanos;
    }
  }

  /** The rounds a timed run is split into to show how steady its rate was. */
  public static final int ROUNDS = 3;

  private ClosedLoop() {}

  /**
   * Runs {@code operation} from {@code threads} threads.
   *
   * @throws BenchmarkRunException if a call throws; the message names the first failure
   */
  public static Result run(
      String label, int threads, long maxOperations, Duration maxDuration, Operation operation) {
    return run(label, threads, maxOperations, maxDuration, 1, operation);
  }

  /**
   * Runs {@code operation} from {@code threads} threads, and counts the calls per second in each of
   * {@code rounds} consecutive equal parts of {@code maxDuration}: how steady the rate was, at no
   * extra time. A round cut short (the run ended by {@code maxOperations} or a failure) is not
   * counted.
   *
   * @throws BenchmarkRunException if a call throws; the message names the first failure
   */
  public static Result run(
      String label,
      int threads,
      long maxOperations,
      Duration maxDuration,
      int rounds,
      Operation operation) {
    Objects.requireNonNull(operation, "operation");
    if (rounds < 1) {
      throw new IllegalArgumentException("rounds must be at least 1, not " + rounds);
    }
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, not " + threads);
    }
    AtomicLong tickets = new AtomicLong();
    AtomicLong completed = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Histogram> histograms = new ArrayList<>();
    CountDownLatch start = new CountDownLatch(1);
    CountDownLatch done = new CountDownLatch(threads);
    long[] deadlineHolder = new long[1];
    for (int t = 0; t < threads; t++) {
      Histogram histogram = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
      histograms.add(histogram);
      int thread = t;
      Thread worker =
          new Thread(
              () -> {
                try {
                  start.await();
                  long deadline = deadlineHolder[0];
                  while (failure.get() == null) {
                    long sequence = tickets.getAndIncrement();
                    if (sequence >= maxOperations) {
                      break;
                    }
                    long begin = System.nanoTime();
                    if (begin >= deadline) {
                      break;
                    }
                    operation.call(thread, sequence);
                    histogram.recordValue(
                        Math.min(System.nanoTime() - begin, histogram.getHighestTrackableValue()));
                    completed.incrementAndGet();
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                } finally {
                  done.countDown();
                }
              },
              label + "-" + t);
      worker.setDaemon(true);
      worker.start();
    }
    long cpuBefore = processCpuNanos();
    long begin = System.nanoTime();
    deadlineHolder[0] = begin + maxDuration.toNanos();
    start.countDown();
    double[] rates = new double[rounds > 1 ? rounds : 0];
    int measured = 0;
    try {
      long roundNanos = maxDuration.toNanos() / rounds;
      long roundStart = begin;
      long countAtStart = 0;
      for (int round = 1; round < rounds + 1 && rates.length > 0; round++) {
        long until = begin + round * roundNanos;
        if (done.await(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS)) {
          break;
        }
        long now = System.nanoTime();
        long count = completed.get();
        rates[measured++] = (count - countAtStart) * 1e9 / Math.max(1, now - roundStart);
        roundStart = now;
        countAtStart = count;
      }
      done.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkRunException(label + " was interrupted", e);
    }
    long wall = System.nanoTime() - begin;
    long cpuAfter = processCpuNanos();
    if (failure.get() != null) {
      Throwable cause = failure.get();
      throw new BenchmarkRunException(label + " failed: " + cause, cause);
    }
    Histogram all = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    histograms.forEach(all::add);
    long cpu = cpuBefore < 0 || cpuAfter < 0 ? -1 : cpuAfter - cpuBefore;
    return new Result(completed.get(), wall, cpu, all, Arrays.copyOf(rates, measured));
  }

  /** The CPU time this JVM has used, in nanoseconds, or -1 when the platform does not say. */
  public static long processCpuNanos() {
    if (ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os) {
      return os.getProcessCpuTime();
    }
    return -1;
  }
}
