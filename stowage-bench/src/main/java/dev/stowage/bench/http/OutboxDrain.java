package dev.stowage.bench.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.bench.BenchmarkRunException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * Whether a board service's events outbox emptied: what its {@code GET /actuator/health} said about
 * the {@code events} component (pending events, events published) once every acknowledged post had
 * been published, or when the wait gave up.
 *
 * <p>The health component's counts are refreshed about once a second, so a pending count of zero
 * alone may be a reading from before the last writes; the outbox counts as drained only when it
 * reads zero pending <em>and</em> at least as many events published as posts were acknowledged
 * (more when a post was committed but its answer lost, or an event was sent twice).
 *
 * @param drained whether the outbox emptied within the wait
 * @param pending events still pending at the last reading: 0 when drained
 * @param published events the service published since it started, at the last reading
 * @param acknowledged posts the service acknowledged, which the published events must cover
 * @param waited from the start of the wait to the reading that ended it
 */
public record OutboxDrain(
    boolean drained, long pending, long published, long acknowledged, Duration waited) {

  /** How long {@link #await} waits for a service's outbox by default. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(2);

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long POLL_MILLIS = 100;

  /** Checks the figures. */
  public OutboxDrain {
    Objects.requireNonNull(waited, "waited");
  }

  /**
   * Reads {@code board}'s health until its outbox is empty and its published events cover {@code
   * acknowledged} posts, or {@code timeout} passes; returns the last reading.
   *
   * @throws BenchmarkRunException if the service does not answer health with an {@code events}
   *     component (it was started without Kafka) or is interrupted
   */
  public static OutboxDrain await(BoardProcess board, long acknowledged, Duration timeout) {
    Objects.requireNonNull(board, "board");
    HttpClient http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(board.url() + "/actuator/health"))
            .timeout(Duration.ofSeconds(10))
            .build();
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    while (true) {
      JsonNode details = eventsDetails(http, request, board);
      long pending = details.path("pending").asLong(-1);
      long published = details.path("published").asLong(-1);
      boolean drained = pending == 0 && published >= acknowledged;
      long now = System.nanoTime();
      if (drained || now >= deadline) {
        return new OutboxDrain(
            drained, pending, published, acknowledged, Duration.ofNanos(now - start));
      }
      try {
        Thread.sleep(POLL_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new BenchmarkRunException(
            "interrupted while waiting for the outbox of " + board.url(), e);
      }
    }
  }

  /**
   * One line for the terminal, such as {@code "drained: 0 pending, 20,412 events published for
   * 20,412 acknowledged posts, 0.3 s"}.
   */
  public String describe() {
    return String.format(
        Locale.ROOT,
        "%s: %,d pending, %,d events published for %,d acknowledged posts, after %.1f s",
        drained ? "drained" : "NOT drained",
        pending,
        published,
        acknowledged,
        waited.toMillis() / 1000.0);
  }

  private static JsonNode eventsDetails(HttpClient http, HttpRequest request, BoardProcess board) {
    String body;
    try {
      // 503 still carries the components: the database may be down while the relay is not.
      body = http.send(request, HttpResponse.BodyHandlers.ofString()).body();
    } catch (IOException e) {
      throw new BenchmarkRunException(
          "GET "
              + request.uri()
              + " failed: "
              + e.getMessage()
              + "; last lines of "
              + board.log()
              + ":\n"
              + board.lastLogLines(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BenchmarkRunException("interrupted reading " + request.uri(), e);
    }
    JsonNode details;
    try {
      details = JSON.readTree(body).path("components").path("events").path("details");
    } catch (IOException e) {
      throw new BenchmarkRunException(
          "GET " + request.uri() + " answered no JSON: " + abbreviate(body), e);
    }
    if (!details.has("pending") || !details.has("published")) {
      throw new BenchmarkRunException(
          "GET "
              + request.uri()
              + " has no events component with pending and"
              + " published counts (was the service started with stowage.board.kafka.bootstrap-servers?): "
              + abbreviate(body),
          null);
    }
    return details;
  }

  private static String abbreviate(String body) {
    return body.length() <= 300 ? body : body.substring(0, 300) + "...";
  }
}
