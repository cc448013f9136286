package dev.stowage.bench.http;

import dev.stowage.bench.load.Outcome;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * {@link HttpLoadClient} on the JDK's {@link HttpClient} (HTTP/1.1, which opens a connection per
 * concurrent request and keeps it alive), with its callbacks on a fixed pool of threads. Kept
 * beside {@link ReactorHttpLoadClient} so the two can be compared on the same server.
 */
public final class JdkHttpLoadClient implements HttpLoadClient {
  private static final Duration RESPONSE_TIMEOUT = Duration.ofSeconds(60);

  private final String baseUrl;
  private final ExecutorService executor;
  private final HttpClient client;

  /** A client for {@code baseUrl} running its callbacks on {@code threads} threads. */
  public JdkHttpLoadClient(String baseUrl, int threads) {
    this.baseUrl = Objects.requireNonNull(baseUrl, "baseUrl");
    AtomicInteger count = new AtomicInteger();
    this.executor =
        Executors.newFixedThreadPool(
            Math.max(1, threads),
            runnable -> {
              Thread thread = new Thread(runnable, "bench-jdk-http-" + count.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    this.client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .executor(executor)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
  }

  @Override
  public CompletionStage<Outcome> get(String path, @Nullable String accept) {
    return send(accepting(HttpRequest.newBuilder(URI.create(baseUrl + path)).GET(), accept), 0);
  }

  @Override
  public CompletionStage<Outcome> post(
      String path, String contentType, @Nullable String accept, byte[] body) {
    return send(
        accepting(
            HttpRequest.newBuilder(URI.create(baseUrl + path))
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)),
            accept),
        body.length);
  }

  private static HttpRequest.Builder accepting(
      HttpRequest.Builder request, @Nullable String accept) {
    return accept == null ? request : request.header("Accept", accept);
  }

  private CompletionStage<Outcome> send(HttpRequest.Builder request, long sent) {
    return client
        .sendAsync(request.timeout(RESPONSE_TIMEOUT).build(), info -> new CountingSubscriber())
        .handle(
            (response, error) -> {
              if (error != null) {
                return Outcome.failure(error);
              }
              int status = response.statusCode();
              return status / 100 == 2
                  ? Outcome.success(sent + response.body())
                  : Outcome.failure(HttpLoadClient.statusFailure(status));
            });
  }

  @Override
  public void close() {
    executor.shutdownNow();
    try {
      executor.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Counts the body's bytes and drops them. */
  private static final class CountingSubscriber implements HttpResponse.BodySubscriber<Long> {
    private final CompletableFuture<Long> result = new CompletableFuture<>();
    private long total;

    @Override
    public CompletionStage<Long> getBody() {
      return result;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
      subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(List<ByteBuffer> items) {
      for (ByteBuffer item : items) {
        total += item.remaining();
      }
    }

    @Override
    public void onError(Throwable throwable) {
      result.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
      result.complete(total);
    }
  }
}
