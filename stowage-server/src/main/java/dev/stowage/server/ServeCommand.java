package dev.stowage.server;

import dev.stowage.board.BoardMode;
import dev.stowage.board.BoardServer;
import dev.stowage.board.FeedCompression;
import dev.stowage.board.HttpOptions;
import dev.stowage.board.events.BoardEventOptions;
import dev.stowage.board.events.BoardEvents;
import dev.stowage.board.tcp.BoardTcpServer;
import dev.stowage.board.tcp.TcpOptions;
import dev.stowage.embedded.KafkaBroker;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.embedded.RedisServer;
import io.lettuce.core.RedisURI;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stowage serve}: runs the board service until interrupted. Without {@code --redis} it
 * starts an embedded {@code redis-server} on an ephemeral port; {@code --redis-cluster} runs it on
 * a Redis Cluster instead, the one its URLs name or, alone, an embedded one of six nodes, closed
 * with the service. {@code --kafka} publishes a Kafka event for every created post, to the brokers
 * it names or, alone, to an embedded one-node broker closed with the service; without it no event
 * is written. {@code --db} names the database of record, R2DBC (PostgreSQL, H2) or MongoDB ({@code
 * mongodb://}, a server the user runs: serve starts no MongoDB); without it the database of record
 * is an in-memory H2. Prints one line {@code stowage board listening on http://…} that scripts (and
 * {@code stowage bench http}) can wait for.
 */
@Command(
    name = "serve",
    mixinStandardHelpOptions = true,
    description = "Run the board service (the first seed's API) until interrupted.")
public final class ServeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(
      names = "--port",
      defaultValue = "8080",
      description = "HTTP port; 0 for an ephemeral one (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(
      names = "--redis",
      paramLabel = "URL",
      description =
          "Redis to use, such as redis://127.0.0.1:6379 (default: start an embedded one).")
  String redis;

  @Option(
      names = "--redis-cluster",
      arity = "0..1",
      fallbackValue = "",
      paramLabel = "URL[,URL...]",
      description =
          "A Redis Cluster to use instead, through one or more of its nodes joined by"
              + " commas, such as redis://10.0.0.1:6379,redis://10.0.0.2:6379; alone, start an embedded"
              + " one (three masters with a replica each). Stowage mode only.")
  String redisCluster;

  @Option(
      names = "--db",
      paramLabel = "URL",
      description =
          "Database of record: an R2DBC URL, such as"
              + " r2dbc:postgresql://postgres@127.0.0.1:5432/board, or a MongoDB one, such as"
              + " mongodb://127.0.0.1:27017/board (a MongoDB you run; none is embedded)"
              + " (default: in-memory H2).")
  String db;

  @Option(
      names = "--mode",
      defaultValue = "stowage",
      paramLabel = "MODE",
      description = "stowage, seed-json or seed-msgpack (default: ${DEFAULT-VALUE}).")
  String mode;

  @Option(
      names = "--compression",
      defaultValue = "zstd-dict",
      paramLabel = "KIND",
      description =
          "How stowage mode compresses the feed: zstd-dict, zstd or none"
              + " (default: ${DEFAULT-VALUE}).")
  String compression;

  @Option(
      names = "--kafka",
      arity = "0..1",
      fallbackValue = "",
      paramLabel = "HOST:PORT[,...]",
      description =
          "Publish a Kafka event for every created post (through an outbox) to these"
              + " brokers, such as 127.0.0.1:9092; alone, start an embedded one-node broker"
              + " (default: no events).")
  String kafka;

  @Option(
      names = "--kafka-topic",
      paramLabel = "TOPIC",
      defaultValue = BoardEventOptions.DEFAULT_TOPIC,
      description = "The events' topic (default: ${DEFAULT-VALUE}).")
  String kafkaTopic;

  @Option(
      names = "--event-backlog-limit",
      paramLabel = "N",
      description =
          "Pending events from which the relay's status says it is over its limit and"
              + " warns; posts are still accepted (default: 100000).")
  Long eventBacklogLimit;

  @Option(
      names = "--no-near-cache",
      description =
          "Read every page from Redis: stowage mode otherwise keeps decoded pages in the process"
              + " while Redis, tracking its reads, says the feed has not changed.")
  boolean noNearCache;

  @Option(
      names = "--tcp-port",
      paramLabel = "PORT",
      description =
          "Also serve the binary protocol (docs/PROTOCOL.md) on this TCP port; 0 for an"
              + " ephemeral one (default: none).")
  Integer tcpPort;

  @Option(
      names = "--tls-port",
      paramLabel = "PORT",
      description =
          "Also serve the binary protocol over TLS on this port; needs --tls-cert and"
              + " --tls-key, or --tls-self-signed (default: none).")
  Integer tlsPort;

  @Option(
      names = "--tls-cert",
      paramLabel = "PEM",
      description = "The TLS certificate chain (PEM).")
  Path tlsCert;

  @Option(
      names = "--tls-key",
      paramLabel = "PEM",
      description = "The TLS private key (PEM, PKCS#8).")
  Path tlsKey;

  @Option(
      names = "--tls-self-signed",
      description =
          "Generate a self-signed certificate for localhost at start (tests and demos only).")
  boolean tlsSelfSigned;

  @Option(
      names = "--tcp-host",
      paramLabel = "ADDRESS",
      defaultValue = TcpOptions.DEFAULT_HOST,
      description = "Address the TCP and TLS ports bind to (default: ${DEFAULT-VALUE}).")
  String tcpHost;

  @Option(
      names = "--tcp-max-frame",
      paramLabel = "BYTES",
      description = "Largest frame the TCP endpoint reads (default: 4194304).")
  Integer tcpMaxFrame;

  @Option(
      names = "--tcp-idle-timeout",
      paramLabel = "SECONDS",
      description =
          "Close a TCP connection with nothing in flight after this long without a byte"
              + " (default: 60).")
  Double tcpIdleTimeout;

  @Option(
      names = "--tcp-read-timeout",
      paramLabel = "SECONDS",
      description =
          "Close a TCP connection that stalls this long in the middle of a frame"
              + " (default: 10).")
  Double tcpReadTimeout;

  @Option(
      names = "--tcp-frame-timeout",
      paramLabel = "SECONDS",
      description =
          "Close a TCP connection whose frame is not complete this long after its first"
              + " byte, however steadily it comes (default: 30).")
  Double tcpFrameTimeout;

  @Option(
      names = "--tcp-max-connections",
      paramLabel = "N",
      description =
          "Most TCP connections open at once, plain and TLS together; beyond them the"
              + " longest idle one makes room (default: 4096).")
  Integer tcpMaxConnections;

  @Option(
      names = "--tcp-max-connections-per-address",
      paramLabel = "N",
      description = "Most TCP connections open at once from one remote address (default: 256).")
  Integer tcpMaxConnectionsPerAddress;

  @Option(
      names = "--tcp-max-in-flight",
      paramLabel = "N",
      description =
          "Requests in flight per TCP connection before the server pauses reading it"
              + " (default: 1024).")
  Integer tcpMaxInFlight;

  @Option(
      names = "--tcp-max-posts-in-flight",
      paramLabel = "N",
      description =
          "Posts a TCP connection's page requests may ask for at once, each until its"
              + " reply has left the server, before the server pauses reading it; bounds the Redis and"
              + " database reads behind its pages (default: 4000).")
  Integer tcpMaxPostsInFlight;

  @Option(
      names = "--tcp-max-unsent",
      paramLabel = "BYTES",
      description =
          "Most bytes of replies a TCP connection may hold unsent (its client not"
              + " reading); reading it stops at half, and a reply past the bound closes it"
              + " (default: 16777216).")
  Integer tcpMaxUnsent;

  @Option(
      names = "--tcp-write-timeout",
      paramLabel = "SECONDS",
      description =
          "Close a TCP connection whose reply has not left the server this long after"
              + " it was written (default: 30).")
  Double tcpWriteTimeout;

  @Option(
      names = "--http-idle-timeout",
      paramLabel = "SECONDS",
      description = "Close an HTTP connection that waits this long for a request (default: 60).")
  Double httpIdleTimeout;

  @Option(
      names = "--http-request-read-timeout",
      paramLabel = "SECONDS",
      description =
          "Answer 408 and close when a request's headers and body have not all arrived"
              + " this long after its first byte (default: 30).")
  Double httpRequestReadTimeout;

  @Option(
      names = "--http-max-connections",
      paramLabel = "N",
      description =
          "Most HTTP connections open at once; beyond them the longest idle one makes"
              + " room, and when none is idle the newcomer is answered 503 (default: 4096).")
  Integer httpMaxConnections;

  @Option(
      names = "--http-max-connections-per-address",
      paramLabel = "N",
      description =
          "Most HTTP connections open at once from one remote address; each further one"
              + " is answered 503 (default: 256).")
  Integer httpMaxConnectionsPerAddress;

  @Option(
      names = "--http-write-timeout",
      paramLabel = "SECONDS",
      description =
          "Close an HTTP connection whose response has not left the server this long"
              + " after it was written (default: 30).")
  Double httpWriteTimeout;

  @Option(
      names = "--http-max-unsent",
      paramLabel = "BYTES",
      description =
          "Write-buffer bound of an HTTP connection: reading it stops at half unsent"
              + " and resumes at a quarter; a connection holds one response unsent at most"
              + " (default: 16777216).")
  Integer httpMaxUnsent;

  /**
   * The HTTP API's connection limits.
   *
   * @throws IllegalArgumentException if an option is out of range
   */
  HttpOptions httpOptions() {
    HttpOptions.Builder http = HttpOptions.builder();
    if (httpIdleTimeout != null) {
      http.idleTimeout(seconds(httpIdleTimeout, "--http-idle-timeout"));
    }
    if (httpRequestReadTimeout != null) {
      http.requestReadTimeout(seconds(httpRequestReadTimeout, "--http-request-read-timeout"));
    }
    if (httpMaxConnections != null) {
      http.maxConnections(httpMaxConnections);
    }
    if (httpMaxConnectionsPerAddress != null) {
      http.maxConnectionsPerAddress(httpMaxConnectionsPerAddress);
    }
    if (httpWriteTimeout != null) {
      http.writeTimeout(seconds(httpWriteTimeout, "--http-write-timeout"));
    }
    if (httpMaxUnsent != null) {
      http.maxUnsentBytes(httpMaxUnsent);
    }
    return http.build();
  }

  /**
   * The TCP endpoint's options, or null when no TCP or TLS port is asked for.
   *
   * @throws IllegalArgumentException if an option is out of range or TLS lacks a certificate
   */
  @Nullable TcpOptions tcpOptions() {
    if (tcpPort == null && tlsPort == null) {
      if (tlsCert != null || tlsKey != null || tlsSelfSigned) {
        throw new IllegalArgumentException(
            "--tls-cert, --tls-key and --tls-self-signed need" + " --tls-port");
      }
      return null;
    }
    TcpOptions.Builder tcp = TcpOptions.builder().host(tcpHost).port(tcpPort).tlsPort(tlsPort);
    if (tlsCert != null || tlsKey != null) {
      if (tlsCert == null || tlsKey == null) {
        throw new IllegalArgumentException("give both --tls-cert and --tls-key");
      }
      tcp.tlsCertificate(tlsCert, tlsKey);
    }
    if (tlsSelfSigned) {
      tcp.tlsSelfSigned();
    }
    if (tcpMaxFrame != null) {
      tcp.maxFrameBytes(tcpMaxFrame);
    }
    if (tcpIdleTimeout != null) {
      tcp.idleTimeout(seconds(tcpIdleTimeout, "--tcp-idle-timeout"));
    }
    if (tcpReadTimeout != null) {
      tcp.readTimeout(seconds(tcpReadTimeout, "--tcp-read-timeout"));
    }
    if (tcpFrameTimeout != null) {
      tcp.frameTimeout(seconds(tcpFrameTimeout, "--tcp-frame-timeout"));
    }
    if (tcpMaxConnections != null) {
      tcp.maxConnections(tcpMaxConnections);
    }
    if (tcpMaxConnectionsPerAddress != null) {
      tcp.maxConnectionsPerAddress(tcpMaxConnectionsPerAddress);
    }
    if (tcpMaxInFlight != null) {
      tcp.maxInFlight(tcpMaxInFlight);
    }
    if (tcpMaxPostsInFlight != null) {
      tcp.maxPostsInFlight(tcpMaxPostsInFlight);
    }
    if (tcpMaxUnsent != null) {
      tcp.maxUnsentBytes(tcpMaxUnsent);
    }
    if (tcpWriteTimeout != null) {
      tcp.writeTimeout(seconds(tcpWriteTimeout, "--tcp-write-timeout"));
    }
    return tcp.build();
  }

  private static Duration seconds(double value, String option) {
    if (!(value > 0) || value > 86_400) {
      throw new IllegalArgumentException(option + " must be from 0 to 86400 seconds, got " + value);
    }
    return Duration.ofNanos(Math.round(value * 1e9));
  }

  /**
   * The seed URIs that {@code --redis-cluster} names, or an empty list when it names none (an
   * embedded cluster is started then).
   *
   * @throws IllegalArgumentException if an entry is empty or not a Redis URL
   */
  List<String> clusterSeeds() {
    List<String> seeds = new ArrayList<>();
    if (redisCluster == null || redisCluster.isBlank()) {
      return seeds;
    }
    for (String seed : redisCluster.split(",", -1)) {
      if (seed.isBlank()) {
        throw new IllegalArgumentException(
            "--redis-cluster takes node URLs joined by commas, such"
                + " as redis://10.0.0.1:6379,redis://10.0.0.2:6379, with no empty one; got '"
                + redisCluster
                + "'");
      }
      try {
        RedisURI.create(seed.strip());
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "--redis-cluster: not a Redis URL: '" + seed.strip() + "' (" + e.getMessage() + ")", e);
      }
      seeds.add(seed.strip());
    }
    return seeds;
  }

  /** A started service and the embedded Redis, Redis Cluster and Kafka broker it owns, if any. */
  record Running(
      BoardServer board,
      @Nullable RedisServer embeddedRedis,
      @Nullable RedisClusterSet embeddedCluster,
      @Nullable KafkaBroker embeddedKafka)
      implements AutoCloseable {
    @Override
    public void close() {
      try {
        board.close();
      } finally {
        if (embeddedRedis != null) {
          embeddedRedis.close();
        }
        if (embeddedCluster != null) {
          embeddedCluster.close();
        }
        if (embeddedKafka != null) {
          embeddedKafka.close();
        }
      }
    }
  }

  /**
   * The events' options, or null without {@code --kafka}.
   *
   * @param embedded the broker started for {@code --kafka} alone, or null
   * @throws IllegalArgumentException if the topic or the limit is invalid
   */
  @Nullable BoardEventOptions eventOptions(@Nullable KafkaBroker embedded) {
    if (kafka == null) {
      if (eventBacklogLimit != null || !BoardEventOptions.DEFAULT_TOPIC.equals(kafkaTopic)) {
        throw new IllegalArgumentException("--kafka-topic and --event-backlog-limit need --kafka");
      }
      return null;
    }
    BoardEventOptions.Builder events =
        BoardEventOptions.builder(embedded != null ? embedded.bootstrapServers() : kafka)
            .topic(kafkaTopic);
    if (eventBacklogLimit != null) {
      events.backlogLimit(eventBacklogLimit);
    }
    return events.build();
  }

  /** The broker {@code --kafka} alone asks for, started; null otherwise. */
  private @Nullable KafkaBroker embeddedKafka() {
    return kafka != null && kafka.isBlank() ? KafkaBroker.start() : null;
  }

  /** Starts the service and prints where it listens; the caller closes the result. */
  Running start(PrintWriter out) {
    BoardMode boardMode = BoardMode.parse(mode);
    FeedCompression feedCompression = FeedCompression.parse(compression);
    TcpOptions tcp = tcpOptions();
    HttpOptions http = httpOptions();
    if (tcp != null && boardMode != BoardMode.STOWAGE) {
      throw new IllegalArgumentException(
          "the TCP endpoint serves stowage mode only, not "
              + boardMode.label()
              + "; drop --tcp-port/--tls-port or use --mode stowage");
    }
    if (kafka == null || !kafka.isBlank()) {
      eventOptions(null); // checked before any server starts; with an embedded broker, once it runs
    }
    if (redisCluster != null) {
      return startOnCluster(out, boardMode, feedCompression, tcp, http);
    }
    RedisServer embedded = redis == null ? RedisServer.start() : null;
    String redisUri = embedded != null ? embedded.uri() : redis;
    KafkaBroker embeddedKafka = null;
    try {
      embeddedKafka = embeddedKafka();
      BoardServer board =
          BoardServer.start(
              port,
              redisUri,
              db,
              boardMode,
              feedCompression,
              tcp,
              http,
              !noNearCache,
              eventOptions(embeddedKafka));
      printListening(
          out,
          board,
          boardMode,
          "redis " + redisUri + (embedded != null ? " embedded" : ""),
          tcp,
          embeddedKafka);
      return new Running(board, embedded, null, embeddedKafka);
    } catch (RuntimeException e) {
      if (embedded != null) {
        embedded.close();
      }
      if (embeddedKafka != null) {
        embeddedKafka.close();
      }
      throw e;
    }
  }

  /** {@code --redis-cluster}: on the cluster it names, or on an embedded one started here. */
  private Running startOnCluster(
      PrintWriter out,
      BoardMode boardMode,
      FeedCompression feedCompression,
      @Nullable TcpOptions tcp,
      HttpOptions http) {
    if (redis != null) {
      throw new IllegalArgumentException(
          "--redis and --redis-cluster name two Redis deployments;"
              + " pass one (--redis-cluster alone starts an embedded cluster)");
    }
    if (boardMode != BoardMode.STOWAGE) {
      throw new IllegalArgumentException(
          "--redis-cluster serves stowage mode only, not "
              + boardMode.label()
              + ": the seed modes keep the seed's single-server commands; drop"
              + " --redis-cluster or use --mode stowage");
    }
    List<String> seeds = clusterSeeds();
    RedisClusterSet embedded = seeds.isEmpty() ? RedisClusterSet.start() : null;
    KafkaBroker embeddedKafka = null;
    try {
      embeddedKafka = embeddedKafka();
      List<String> used = embedded != null ? embedded.uris() : seeds;
      BoardServer board =
          BoardServer.startOnCluster(
              port,
              used,
              db,
              feedCompression,
              tcp,
              http,
              !noNearCache,
              eventOptions(embeddedKafka));
      printListening(
          out,
          board,
          boardMode,
          "redis cluster " + String.join(",", used) + (embedded != null ? " embedded" : ""),
          tcp,
          embeddedKafka);
      return new Running(board, null, embedded, embeddedKafka);
    } catch (RuntimeException e) {
      if (embedded != null) {
        embedded.close();
      }
      if (embeddedKafka != null) {
        embeddedKafka.close();
      }
      throw e;
    }
  }

  private void printListening(
      PrintWriter out,
      BoardServer board,
      BoardMode boardMode,
      String redisUsed,
      @Nullable TcpOptions tcp,
      @Nullable KafkaBroker embeddedKafka) {
    out.printf(
        "stowage board listening on %s (mode %s, %s, db %s)%n",
        board.url(), boardMode.label(), redisUsed, db != null ? db : "in-memory H2");
    BoardEvents events = board.events();
    if (events != null) {
      out.printf(
          "stowage board events to kafka %s%s, topic %s%n",
          events.options().bootstrapServers(),
          embeddedKafka != null ? " embedded" : "",
          events.options().topic());
    }
    BoardTcpServer endpoint = board.tcp();
    if (tcp != null && endpoint != null && endpoint.port() > 0) {
      out.printf("stowage board protocol on tcp://%s:%d%n", tcp.host(), endpoint.port());
    }
    if (tcp != null && endpoint != null && endpoint.tlsPort() > 0) {
      out.printf(
          "stowage board protocol on tls://%s:%d (certificate %s)%n",
          tcp.host(), endpoint.tlsPort(), endpoint.tlsCertificate());
    }
    out.flush();
  }

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out =
        spec != null
            ? spec.commandLine().getOut()
            : new PrintWriter(System.out, false, Charset.defaultCharset());
    Running running;
    try {
      running = start(out);
    } catch (IllegalArgumentException e) {
      PrintWriter err =
          spec != null
              ? spec.commandLine().getErr()
              : new PrintWriter(System.err, false, Charset.defaultCharset());
      err.println("serve: " + e.getMessage());
      err.flush();
      return 2;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  running.close();
                  stopped.countDown();
                },
                "stowage-serve-shutdown"));
    stopped.await();
    return 0;
  }
}
