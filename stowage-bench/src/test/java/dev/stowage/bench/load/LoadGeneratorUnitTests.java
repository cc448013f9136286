package dev.stowage.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoadGeneratorUnitTests {
  private final ByteArrayOutputStream printed = new ByteArrayOutputStream();
  private final PrintStream progress = new PrintStream(printed, true, StandardCharsets.UTF_8);

  @Test
  void issuersThatCompleteAtOnceAreCountedWithoutRecursion() {
    AtomicLong calls = new AtomicLong();
    LoadResult result =
        LoadGenerator.run(
            "sync",
            new LoadPlan(3, 1000, Duration.ofMillis(400)),
            user -> {
              calls.incrementAndGet();
              return CompletableFuture.completedFuture(Outcome.success(7));
            },
            progress);

    // Hundreds of thousands of synchronous completions would overflow the stack if each recursed.
    assertThat(result.succeeded()).isEqualTo(calls.get()).isGreaterThan(1000);
    assertThat(result.errors()).isZero();
    assertThat(result.bytes()).isEqualTo(7 * calls.get());
    assertThat(result.usersStarted()).isEqualTo(3);
    assertThat(result.latencyMicros().getTotalCount()).isEqualTo(result.succeeded());
  }

  @Test
  void failuresAreGroupedByCauseAndKeptOutOfTheLatencies() {
    AtomicLong calls = new AtomicLong();
    LoadResult result =
        LoadGenerator.run(
            "mixed",
            new LoadPlan(2, 1000, Duration.ofMillis(300)),
            user -> {
              long n = calls.incrementAndGet();
              if (n % 3 == 0) {
                return CompletableFuture.failedFuture(new IOException("boom"));
              }
              if (n % 3 == 1) {
                throw new IllegalStateException("bad request");
              }
              return CompletableFuture.completedFuture(Outcome.failure("HTTP 500"));
            },
            progress);

    assertThat(result.succeeded()).isZero();
    assertThat(result.failures())
        .containsOnlyKeys("IOException: boom", "IllegalStateException: bad request", "HTTP 500");
    assertThat(result.errors()).isEqualTo(calls.get());
    assertThat(result.latencyMicros().getTotalCount()).isZero();
    assertThat(result.requestsPerSecond()).isZero();
  }

  @Test
  void requestsInFlightAtTheEndAreWaitedForAndCounted() {
    ConcurrentHashMap<Integer, Boolean> users = new ConcurrentHashMap<>();
    LoadResult result =
        LoadGenerator.run(
            "slow",
            new LoadPlan(4, 1000, Duration.ofMillis(200)),
            user -> {
              users.put(user, true);
              return CompletableFuture.supplyAsync(
                  () -> Outcome.success(1),
                  CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS));
            },
            progress);

    // Each user issued exactly one request before the end; each is counted once it completes.
    assertThat(users).hasSize(4);
    assertThat(result.succeeded()).isEqualTo(4);
    assertThat(result.errors()).isZero();
    assertThat(result.elapsed()).isGreaterThanOrEqualTo(Duration.ofMillis(300));
  }

  @Test
  void requestsThatNeverEndCountAsUnfinished() {
    LoadResult result =
        LoadGenerator.run(
            "stuck",
            new LoadPlan(5, 1000, Duration.ofMillis(200)),
            user -> new CompletableFuture<>(),
            progress,
            Duration.ofMillis(100));

    assertThat(result.succeeded()).isZero();
    assertThat(result.failures()).containsExactly(Map.entry(LoadGenerator.UNFINISHED, 5L));
  }

  @Test
  void theRampStartsUsersAtItsRateNotAllAtOnce() {
    LoadResult result =
        LoadGenerator.run(
            "ramp",
            new LoadPlan(100, 10, Duration.ofMillis(900)),
            user ->
                CompletableFuture.supplyAsync(
                    () -> Outcome.success(1),
                    CompletableFuture.delayedExecutor(10, TimeUnit.MILLISECONDS)),
            progress);

    // At 10 users a second, at most 1 + 9 users can have started within 0.9 s.
    assertThat(result.usersStarted()).isBetween(1, 10);
  }

  @Test
  void progressLinesNameTheLoadAndItsUsers() {
    LoadGenerator.run(
        "read demo",
        new LoadPlan(2, 1000, Duration.ofMillis(700), Duration.ofMillis(200)),
        user ->
            CompletableFuture.supplyAsync(
                () -> Outcome.success(1),
                CompletableFuture.delayedExecutor(5, TimeUnit.MILLISECONDS)),
        progress);

    String lines = printed.toString(StandardCharsets.UTF_8);
    assertThat(lines)
        .contains("[read demo]")
        .contains("users 2/2")
        .contains("rps ")
        .contains("errors 0");
  }

  @Test
  void resultMetricsHaveTheKeysOfAResultsRow() {
    LoadResult result =
        LoadGenerator.run(
            "metrics",
            new LoadPlan(1, 1000, Duration.ofMillis(200)),
            user -> CompletableFuture.completedFuture(Outcome.success(10)),
            progress);

    assertThat(result.metrics())
        .containsOnlyKeys(
            "rps",
            "requests",
            "errors",
            "users",
            "mean_ms",
            "p50_ms",
            "p95_ms",
            "p99_ms",
            "max_ms",
            "bytes_per_request",
            "seconds");
    assertThat(result.metrics().get("requests")).isEqualTo(result.succeeded());
    assertThat(result.metrics().get("bytes_per_request")).isEqualTo(10L);
  }

  @Test
  void slicesCombineIntoOneRun() {
    LoadResult first =
        LoadGenerator.run(
            "slice",
            new LoadPlan(2, 1000, Duration.ofMillis(200)),
            user -> CompletableFuture.completedFuture(Outcome.success(3)),
            progress);
    LoadResult second =
        LoadGenerator.run(
            "slice",
            new LoadPlan(3, 1000, Duration.ofMillis(200)),
            user -> CompletableFuture.completedFuture(Outcome.failure("HTTP 503")),
            progress);

    LoadResult both = LoadResult.combine("both", List.of(first, second));

    assertThat(both.succeeded()).isEqualTo(first.succeeded());
    assertThat(both.failures()).containsExactly(Map.entry("HTTP 503", second.errors()));
    assertThat(both.bytes()).isEqualTo(first.bytes());
    assertThat(both.elapsed()).isEqualTo(first.elapsed().plus(second.elapsed()));
    assertThat(both.usersStarted()).isEqualTo(3);
    assertThat(both.latencyMicros().getTotalCount()).isEqualTo(first.succeeded());
    assertThat(first.latencyMicros().getTotalCount()).isEqualTo(first.succeeded());
    assertThatThrownBy(() -> LoadResult.combine("none", List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void plansRejectValuesOutOfRange() {
    assertThatThrownBy(() -> new LoadPlan(0, 1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("users must be at least 1, not 0");
    assertThatThrownBy(() -> new LoadPlan(1, 0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("ramp");
    assertThatThrownBy(() -> new LoadPlan(1, 1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duration");
    assertThat(new LoadPlan(1000, 200, Duration.ofSeconds(60)).rampTime())
        .isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void outcomesKeepACauseExactlyWhenTheyFail() {
    assertThatThrownBy(() -> new Outcome(true, 1, "why"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Outcome(false, 0, null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Outcome.success(-1)).isInstanceOf(IllegalArgumentException.class);
    assertThat(Outcome.failure(new CompletionException(new IOException("reset"))).failure())
        .isEqualTo("IOException: reset");
    assertThat(Outcome.failure(new IllegalStateException("x".repeat(500))).failure()).hasSize(120);
  }
}
