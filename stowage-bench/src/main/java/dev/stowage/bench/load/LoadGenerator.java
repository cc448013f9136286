package dev.stowage.bench.load;

import static java.util.Objects.requireNonNull;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;
import org.jspecify.annotations.Nullable;

/**
 * Runs a {@link LoadPlan} against a {@link RequestIssuer}: closed-loop virtual users, each with one
 * request in flight at a time, started at the plan's ramp and stopped at its end.
 *
 * <pre>{@code
 * LoadResult read = LoadGenerator.run("read stowage", new LoadPlan(1000, 200, Duration.ofSeconds(60)),
 *     user -> http.get("/boards?page=1&size=25"), System.err);
 * }</pre>
 *
 * <p>Once the duration is up no user issues another request; the requests in flight are waited for
 * (up to {@link #DEFAULT_DRAIN_TIMEOUT}) and counted, and any still unfinished then count as
 * failures ({@value #UNFINISHED}).
 *
 * <p>Each user's first request is issued from a thread of a cached pool; every later one from the
 * thread that completed the previous stage. An asynchronous issuer therefore needs only its own I/O
 * threads, while a blocking one (whose stages are already complete on return) keeps one pool thread
 * per user, looping without recursion.
 */
public final class LoadGenerator {

  /** How long the requests still in flight at the end are waited for. */
  public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(30);

  /** The failure cause of requests still unfinished once the drain timeout has passed. */
  public static final String UNFINISHED = "unfinished at the end of the run";

  private static final long HIGHEST_MICROS = TimeUnit.MINUTES.toMicros(10);
  private static final long RAMP_TICK_MILLIS = 20;

  private final String label;
  private final LoadPlan plan;
  private final RequestIssuer issuer;
  private final PrintStream progress;
  private final Recorder recorder = new Recorder(HIGHEST_MICROS, 3);
  private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
  private final LongAdder failureCount = new LongAdder();
  private final LongAdder bytes = new LongAdder();
  private final List<CompletableFuture<Void>> users = new ArrayList<>();
  private @Nullable ExecutorService starters;
  private volatile boolean stopping;
  private long startNanos;

  private LoadGenerator(String label, LoadPlan plan, RequestIssuer issuer, PrintStream progress) {
    this.label = Objects.requireNonNull(label, "label");
    this.plan = Objects.requireNonNull(plan, "plan");
    this.issuer = Objects.requireNonNull(issuer, "issuer");
    this.progress = Objects.requireNonNull(progress, "progress");
  }

  /**
   * Runs the plan and returns what it measured, printing a progress line to {@code progress} every
   * {@link LoadPlan#progressInterval()}.
   *
   * @param label what is loaded, for the progress lines, such as {@code "read stowage"}
   * @throws IllegalStateException if interrupted while waiting for the run to end
   */
  public static LoadResult run(
      String label, LoadPlan plan, RequestIssuer issuer, PrintStream progress) {
    return run(label, plan, issuer, progress, DEFAULT_DRAIN_TIMEOUT);
  }

  /**
   * As {@link #run(String, LoadPlan, RequestIssuer, PrintStream)}, waiting at most {@code
   * drainTimeout} for the requests in flight at the end.
   */
  public static LoadResult run(
      String label,
      LoadPlan plan,
      RequestIssuer issuer,
      PrintStream progress,
      Duration drainTimeout) {
    Objects.requireNonNull(drainTimeout, "drainTimeout");
    return new LoadGenerator(label, plan, issuer, progress).execute(drainTimeout);
  }

  private LoadResult execute(Duration drainTimeout) {
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            runnable -> {
              Thread thread = new Thread(runnable, "load-" + label.replace(' ', '-'));
              thread.setDaemon(true);
              return thread;
            });
    AtomicInteger starterCount = new AtomicInteger();
    starters =
        Executors.newCachedThreadPool(
            runnable -> {
              Thread thread = new Thread(runnable, "load-user-" + starterCount.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    Histogram total = new Histogram(HIGHEST_MICROS, 3);
    AtomicLong lastFailures = new AtomicLong();
    AtomicLong lastTick = new AtomicLong();
    try {
      startNanos = System.nanoTime();
      lastTick.set(startNanos);
      long durationNanos = plan.duration().toNanos();
      var unusedTask =
          scheduler.scheduleAtFixedRate(
              () -> ramp(durationNanos), 0, RAMP_TICK_MILLIS, TimeUnit.MILLISECONDS);
      long intervalMillis = plan.progressInterval().toMillis();
      var unusedTask2 =
          scheduler.scheduleAtFixedRate(
              () -> {
                synchronized (total) {
                  report(total, lastFailures, lastTick);
                }
              },
              intervalMillis,
              intervalMillis,
              TimeUnit.MILLISECONDS);
      sleepUntil(startNanos + durationNanos);
      stopping = true;
      CompletableFuture<?>[] started;
      synchronized (users) {
        started = users.toArray(CompletableFuture[]::new);
      }
      long unfinished = 0;
      try {
        CompletableFuture.allOf(started).get(drainTimeout.toNanos(), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        for (CompletableFuture<?> user : started) {
          unfinished += user.isDone() ? 0 : 1;
        }
      } catch (ExecutionException e) {
        throw new IllegalStateException(
            "a virtual user of '" + label + "' failed: " + e.getCause(), e.getCause());
      }
      long endNanos = System.nanoTime();
      scheduler.shutdownNow();
      if (unfinished > 0) {
        failures.computeIfAbsent(UNFINISHED, k -> new LongAdder()).add(unfinished);
      }
      synchronized (total) {
        total.add(recorder.getIntervalHistogram());
      }
      return new LoadResult(
          label,
          started.length,
          total.getTotalCount(),
          sortedFailures(),
          bytes.sum(),
          Duration.ofNanos(endNanos - startNanos),
          total.copy());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopping = true;
      throw new IllegalStateException("interrupted while loading '" + label + "'", e);
    } finally {
      stopping = true;
      scheduler.shutdownNow();
      starters.shutdown();
    }
  }

  /** Starts the users the ramp calls for by now. Runs on the scheduler thread only. */
  private void ramp(long durationNanos) {
    long elapsed = System.nanoTime() - startNanos;
    if (stopping || elapsed >= durationNanos) {
      return;
    }
    long due = Math.min(plan.users(), 1 + (long) (elapsed / 1e9 * plan.rampPerSecond()));
    while (users.size() < due && !stopping) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      int user;
      synchronized (users) {
        user = users.size();
        users.add(done);
      }
      VirtualUser virtualUser = new VirtualUser(user, done);
      requireNonNull(starters, "starters").execute(virtualUser::next);
    }
  }

  private void report(Histogram total, AtomicLong lastFailures, AtomicLong lastTick) {
    Histogram interval = recorder.getIntervalHistogram();
    total.add(interval);
    long now = System.nanoTime();
    double seconds = Math.max(1e-9, (now - lastTick.getAndSet(now)) / 1e9);
    long failed = failureCount.sum();
    long newFailures = failed - lastFailures.getAndSet(failed);
    int started;
    synchronized (users) {
      started = users.size();
    }
    progress.printf(
        Locale.ROOT,
        "[%s] %5s  users %d/%d  rps %.0f  p50 %.1fms  p99 %.1fms  errors %d (total %d)%n",
        label,
        Duration.ofNanos(now - startNanos).toSeconds() + "s",
        started,
        plan.users(),
        interval.getTotalCount() / seconds,
        interval.getTotalCount() == 0 ? 0.0 : interval.getValueAtPercentile(50) / 1000.0,
        interval.getTotalCount() == 0 ? 0.0 : interval.getValueAtPercentile(99) / 1000.0,
        newFailures,
        failed);
    progress.flush();
  }

  private Map<String, Long> sortedFailures() {
    Map<String, Long> sorted = new LinkedHashMap<>();
    failures.entrySet().stream()
        .sorted((a, b) -> Long.compare(b.getValue().sum(), a.getValue().sum()))
        .forEach(e -> sorted.put(e.getKey(), e.getValue().sum()));
    return sorted;
  }

  private void record(long issuedNanos, @Nullable Outcome outcome, @Nullable Throwable error) {
    if (error == null && outcome != null && outcome.success()) {
      long micros = (System.nanoTime() - issuedNanos) / 1000;
      recorder.recordValue(Math.min(Math.max(micros, 0), HIGHEST_MICROS));
      bytes.add(outcome.bytes());
      return;
    }
    String cause =
        error != null
            ? Outcome.failure(error).failure()
            : outcome == null ? "no outcome" : outcome.failure();
    failures.computeIfAbsent(cause, k -> new LongAdder()).increment();
    failureCount.increment();
  }

  private static void sleepUntil(long deadlineNanos) throws InterruptedException {
    long left;
    while ((left = deadlineNanos - System.nanoTime()) > 0) {
      TimeUnit.NANOSECONDS.sleep(Math.min(left, TimeUnit.MILLISECONDS.toNanos(100)));
    }
  }

  /** One closed-loop user: issues the next request when the previous one has completed. */
  private final class VirtualUser {
    private final int index;
    private final CompletableFuture<Void> done;

    VirtualUser(int index, CompletableFuture<Void> done) {
      this.index = index;
      this.done = done;
    }

    /**
     * Issues requests until one is still in flight on return, or the run is stopping. Stages that
     * complete at once are handled in this loop rather than by recursion.
     */
    void next() {
      while (!stopping) {
        long issued = System.nanoTime();
        CompletableFuture<Outcome> stage;
        try {
          CompletionStage<Outcome> returned = issuer.issue(index);
          stage =
              returned == null
                  ? CompletableFuture.failedFuture(
                      new IllegalStateException("the issuer returned no stage"))
                  : returned.toCompletableFuture();
        } catch (RuntimeException e) {
          stage = CompletableFuture.failedFuture(e);
        }
        if (stage.isDone()) {
          Outcome outcome = stage.exceptionally(e -> null).join();
          Throwable error = stage.isCompletedExceptionally() ? exceptionOf(stage) : null;
          record(issued, outcome, error);
          continue;
        }
        var unusedStage =
            stage.whenComplete(
                (outcome, error) -> {
                  record(issued, outcome, error);
                  next();
                });
        return;
      }
      done.complete(null);
    }
  }

  private static @Nullable Throwable exceptionOf(CompletableFuture<?> stage) {
    try {
      stage.join();
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }
}
