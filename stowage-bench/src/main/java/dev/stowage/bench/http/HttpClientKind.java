package dev.stowage.bench.http;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** Which HTTP client the virtual users send with. */
public enum HttpClientKind {
  /**
   * {@link NettyHttpLoadClient}: Netty's HTTP codec and a queue of idle connections, nothing more;
   * the cheapest per request, so the default.
   */
  NETTY,
  /** {@link ReactorHttpLoadClient}: Netty event loops, a pool of one connection per user. */
  REACTOR,
  /** {@link JdkHttpLoadClient}: {@code java.net.http.HttpClient}. */
  JDK;

  /** The name on the command line: {@code reactor} or {@code jdk}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The kind named {@code label} (case-insensitive).
   *
   * @throws IllegalArgumentException naming the accepted labels
   */
  public static HttpClientKind parse(String label) {
    for (HttpClientKind kind : values()) {
      if (kind.label().equalsIgnoreCase(label.strip())) {
        return kind;
      }
    }
    throw new IllegalArgumentException(
        "unknown HTTP client '"
            + label
            + "'; expected one of "
            + Arrays.stream(values()).map(HttpClientKind::label).collect(Collectors.joining(", ")));
  }

  /**
   * A client of this kind for {@code baseUrl}, sized for {@code users} concurrent users, with half
   * the cores as I/O threads (at least one): the service under load runs on the same machine.
   */
  public HttpLoadClient open(String baseUrl, int users) {
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    return switch (this) {
      case NETTY -> new NettyHttpLoadClient(baseUrl, threads);
      case REACTOR -> new ReactorHttpLoadClient(baseUrl, users, threads);
      case JDK -> new JdkHttpLoadClient(baseUrl, threads);
    };
  }
}
