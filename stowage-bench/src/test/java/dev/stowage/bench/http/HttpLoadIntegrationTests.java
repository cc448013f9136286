package dev.stowage.bench.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.bench.load.LoadGenerator;
import dev.stowage.bench.load.LoadPlan;
import dev.stowage.bench.load.LoadResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** The load generator and both HTTP clients against a small Reactor Netty server that counts. */
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class HttpLoadIntegrationTests {
  private static final String BODY = "hello, load";
  private static final AtomicLong okServed = new AtomicLong();
  private static final AtomicLong failedServed = new AtomicLong();
  private static final AtomicLong closed = new AtomicLong();
  private static final AtomicLong posted = new AtomicLong();
  private static final AtomicLong postedBytes = new AtomicLong();
  private static final AtomicInteger inFlight = new AtomicInteger();
  private static final AtomicInteger maxInFlight = new AtomicInteger();
  private static DisposableServer server;

  private final PrintStream progress =
      new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

  @BeforeAll
  static void startServer() {
    AtomicLong flaky = new AtomicLong();
    AtomicLong closing = new AtomicLong();
    server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .route(
                routes ->
                    routes
                        .get(
                            "/ok",
                            (request, response) -> {
                              okServed.incrementAndGet();
                              return response.sendString(Mono.just(BODY));
                            })
                        .get(
                            "/flaky",
                            (request, response) -> {
                              if (flaky.incrementAndGet() % 3 == 0) {
                                failedServed.incrementAndGet();
                                return response.status(500).sendString(Mono.just("no"));
                              }
                              okServed.incrementAndGet();
                              return response.sendString(Mono.just(BODY));
                            })
                        .get(
                            "/closing",
                            (request, response) -> {
                              if (closing.incrementAndGet() % 4 == 0) {
                                closed.incrementAndGet();
                                response.withConnection(
                                    connection -> {
                                      var unusedClose = connection.channel().close();
                                    });
                                return Mono.never();
                              }
                              okServed.incrementAndGet();
                              return response.sendString(Mono.just(BODY));
                            })
                        .get(
                            "/slow",
                            (request, response) -> {
                              maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
                              return Mono.delay(Duration.ofMillis(30))
                                  .then(Mono.fromRunnable(inFlight::decrementAndGet))
                                  .then(response.sendString(Mono.just(BODY)).then());
                            })
                        .post(
                            "/posts",
                            (request, response) ->
                                request
                                    .receive()
                                    .aggregate()
                                    .asByteArray()
                                    .defaultIfEmpty(new byte[0])
                                    .flatMap(
                                        body -> {
                                          posted.incrementAndGet();
                                          postedBytes.addAndGet(body.length);
                                          return response.sendString(Mono.just("{}")).then();
                                        })))
            .bindNow();
  }

  @AfterAll
  static void stopServer() {
    server.disposeNow();
  }

  private static String url() {
    return "http://127.0.0.1:" + server.port();
  }

  private static void reset() {
    okServed.set(0);
    failedServed.set(0);
    closed.set(0);
    posted.set(0);
    postedBytes.set(0);
  }

  @ParameterizedTest
  @EnumSource(HttpClientKind.class)
  void everyRequestTheServerAnsweredIsCounted(HttpClientKind kind) {
    reset();
    LoadResult result;
    try (HttpLoadClient client = kind.open(url(), 8)) {
      result =
          LoadGenerator.run(
              "ok " + kind.label(),
              new LoadPlan(8, 100, Duration.ofSeconds(1)),
              client.getting("/ok"),
              progress);
    }
    assertThat(result.errors()).isZero();
    assertThat(result.succeeded()).isPositive().isEqualTo(okServed.get());
    assertThat(result.bytes()).isEqualTo(result.succeeded() * BODY.length());
  }

  @ParameterizedTest
  @EnumSource(HttpClientKind.class)
  void serverErrorsAreCountedAsHttp500(HttpClientKind kind) {
    reset();
    LoadResult result;
    try (HttpLoadClient client = kind.open(url(), 4)) {
      result =
          LoadGenerator.run(
              "flaky " + kind.label(),
              new LoadPlan(4, 100, Duration.ofSeconds(1)),
              client.getting("/flaky"),
              progress);
    }
    assertThat(failedServed.get()).isPositive();
    assertThat(result.failures()).containsExactly(Map.entry("HTTP 500", failedServed.get()));
    assertThat(result.succeeded()).isEqualTo(okServed.get());
  }

  @ParameterizedTest
  @EnumSource(HttpClientKind.class)
  void postsSendTheirBodies(HttpClientKind kind) {
    reset();
    byte[] body = "{\"title\":\"a post\"}".getBytes(StandardCharsets.UTF_8);
    LoadResult result;
    try (HttpLoadClient client = kind.open(url(), 4)) {
      result =
          LoadGenerator.run(
              "post " + kind.label(),
              new LoadPlan(4, 100, Duration.ofMillis(800)),
              user -> client.postJson("/posts", body),
              progress);
    }
    assertThat(result.errors()).isZero();
    assertThat(result.succeeded()).isPositive().isEqualTo(posted.get());
    assertThat(postedBytes.get()).isEqualTo(posted.get() * body.length);
    assertThat(result.bytes()).isEqualTo(result.succeeded() * (body.length + 2));
  }

  @ParameterizedTest
  @EnumSource(
      value = HttpClientKind.class,
      names = {"NETTY", "REACTOR"})
  void connectionsClosedWithoutAnAnswerAreCountedAsFailures(HttpClientKind kind) {
    reset();
    LoadResult result;
    try (HttpLoadClient client = kind.open(url(), 4)) {
      result =
          LoadGenerator.run(
              "closing",
              new LoadPlan(4, 100, Duration.ofSeconds(1)),
              client.getting("/closing"),
              progress);
    }
    assertThat(closed.get()).isPositive();
    assertThat(result.errors()).isEqualTo(closed.get());
    assertThat(result.failures().keySet()).allSatisfy(cause -> assertThat(cause).contains("Close"));
    assertThat(result.succeeded()).isEqualTo(okServed.get());
  }

  @ParameterizedTest
  @EnumSource(
      value = HttpClientKind.class,
      names = {"NETTY", "REACTOR"})
  void theRampReachesEveryUserAndNoUserHasTwoRequestsInFlight(HttpClientKind kind) {
    maxInFlight.set(0);
    LoadResult result;
    try (HttpLoadClient client = kind.open(url(), 20)) {
      result =
          LoadGenerator.run(
              "ramp",
              new LoadPlan(20, 40, Duration.ofMillis(1500)),
              client.getting("/slow"),
              progress);
    }
    assertThat(result.usersStarted()).isEqualTo(20);
    assertThat(result.errors()).isZero();
    assertThat(maxInFlight.get()).isBetween(2, 20);
  }
}
