package dev.stowage.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.HttpOptions;
import dev.stowage.board.client.StowageBoardClient;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.board.tcp.BoardTcpServer;
import dev.stowage.board.tcp.TcpOptions;
import dev.stowage.cli.StowageCli;
import dev.stowage.embedded.RedisClusterSet;
import dev.stowage.testkit.MongoTestServer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

@Order(1) // one of the module's longest classes: started first (see the parent pom)
class ServeCommandIntegrationTests {

  @Test
  void servesWithAnEmbeddedRedisAndH2AndSaysWhereItListens() throws Exception {
    ServeCommand command = new ServeCommand();
    new CommandLine(command).parseArgs("--port", "0", "--mode", "stowage");
    StringWriter printed = new StringWriter();
    try (ServeCommand.Running running = command.start(new PrintWriter(printed))) {
      assertThat(running.embeddedRedis()).isNotNull();
      assertThat(running.embeddedRedis().port()).isNotEqualTo(6379);
      assertThat(printed.toString())
          .startsWith(
              "stowage board listening on "
                  + running.board().url()
                  + " (mode stowage, redis "
                  + running.embeddedRedis().uri()
                  + " embedded, db in-memory H2)");
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> created =
          http.send(
              HttpRequest.newBuilder(URI.create(running.board().url() + "/boards"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"member_id\":1,\"title\":\"t\",\"body\":\"b\","
                              + "\"address\":\"a\",\"country\":\"c\",\"job\":\"j\",\"credit\":\"1\",\"ssn\":\"s\","
                              + "\"company\":\"co\",\"phone_number\":\"p\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).isEqualTo(200);
      HttpResponse<String> page =
          http.send(
              HttpRequest.newBuilder(URI.create(running.board().url() + "/boards?page=1&size=25"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(page.body())
          .startsWith("{\"code\":200,\"message\":\"success\",\"data\":[{\"id\":")
          .contains("\"title\":\"t\"");
    }
  }

  /**
   * {@code --db mongodb://… --kafka}, the first seed's whole stack: the posts are stored in
   * MongoDB, each has its event on the embedded broker ({@code stowage events} prints it), and they
   * are there for the next serve. The MongoDB server is mongo-java-server, a wire-compatible test
   * server started by the test, not MongoDB; the broker is a real one.
   */
  @Test
  void servesWithMongodbAsTheDatabaseOfRecord() throws Exception {
    try (MongoTestServer mongo = MongoTestServer.start()) {
      String id;
      ServeCommand first = new ServeCommand();
      // The first seed's whole stack: MongoDB (here the compatible test server) and Kafka.
      new CommandLine(first).parseArgs("--port", "0", "--db", mongo.url(), "--kafka");
      StringWriter printed = new StringWriter();
      HttpClient http = HttpClient.newHttpClient();
      try (ServeCommand.Running running = first.start(new PrintWriter(printed))) {
        assertThat(printed.toString()).contains(", db " + mongo.url() + ")");
        HttpResponse<String> created =
            http.send(
                HttpRequest.newBuilder(URI.create(running.board().url() + "/boards"))
                    .header("Content-Type", "application/json")
                    .POST(
                        HttpRequest.BodyPublishers.ofString(
                            "{\"member_id\":1,\"title\":\"in mongo\","
                                + "\"body\":\"b\",\"address\":\"a\",\"country\":\"c\",\"job\":\"j\","
                                + "\"credit\":\"1\",\"ssn\":\"s\",\"company\":\"co\",\"phone_number\":\"p\"}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
        id = new ObjectMapper().readTree(created.body()).get("data").get("id").asText();

        // Its event, relayed from the pending event in the post's document.
        String kafka = Objects.requireNonNull(running.embeddedKafka()).bootstrapServers();
        StringWriter events = new StringWriter();
        StringWriter errors = new StringWriter();
        assertThat(
                StowageCli.commandLine()
                    .setOut(new PrintWriter(events))
                    .setErr(new PrintWriter(errors))
                    .execute(
                        "events",
                        "--kafka",
                        kafka,
                        "--from-beginning",
                        "--max",
                        "1",
                        "--timeout",
                        "60"))
            .as(errors.toString())
            .isZero();
        JsonNode event = new ObjectMapper().readTree(events.toString().strip());
        assertThat(event.get("id").asText()).isEqualTo(id);
        assertThat(event.at("/post/title").asText()).isEqualTo("in mongo");
      }
      // A second serve on another embedded Redis finds the post in MongoDB.
      ServeCommand second = new ServeCommand();
      new CommandLine(second).parseArgs("--port", "0", "--db", mongo.url());
      try (ServeCommand.Running running = second.start(new PrintWriter(new StringWriter()))) {
        HttpResponse<String> found =
            http.send(
                HttpRequest.newBuilder(URI.create(running.board().url() + "/boards/" + id)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(found.statusCode()).isEqualTo(200);
        assertThat(found.body()).contains("\"id\":\"" + id + "\"", "\"title\":\"in mongo\"");
        HttpResponse<String> page =
            http.send(
                HttpRequest.newBuilder(URI.create(running.board().url() + "/boards?page=1&size=25"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(page.body()).contains("\"id\":\"" + id + "\"");
      }
    }
  }

  @Test
  void servesTheBinaryProtocolOnPlainAndTlsPortsWhenAsked() throws Exception {
    ServeCommand command = new ServeCommand();
    new CommandLine(command)
        .parseArgs(
            "--port",
            "0",
            "--tcp-port",
            "0",
            "--tls-port",
            "0",
            "--tls-self-signed",
            "--tcp-idle-timeout",
            "30",
            "--tcp-max-connections",
            "64");
    StringWriter printed = new StringWriter();
    try (ServeCommand.Running running = command.start(new PrintWriter(printed))) {
      BoardTcpServer tcp = running.board().tcp();
      assertThat(tcp.options().idleTimeout()).isEqualTo(Duration.ofSeconds(30));
      assertThat(tcp.options().maxConnections()).isEqualTo(64);
      assertThat(printed.toString())
          .contains("stowage board protocol on tcp://127.0.0.1:" + tcp.port() + "\n")
          .contains(
              "stowage board protocol on tls://127.0.0.1:" + tcp.tlsPort() + " (certificate ");
      try (StowageBoardClient plain = StowageBoardClient.builder("127.0.0.1", tcp.port()).build();
          StowageBoardClient tls =
              StowageBoardClient.builder("127.0.0.1", tcp.tlsPort())
                  .tls(tcp.tlsCertificate())
                  .tlsServerName("localhost")
                  .build()) {
        Board created =
            plain
                .create(new NewBoard(1L, "t", "b", "a", "c", "j", "1", "s", "co", "p"))
                .get(30, TimeUnit.SECONDS);
        assertThat(tls.page(1, 25).get(30, TimeUnit.SECONDS)).containsExactly(created);
      }
    }
  }

  @Test
  void theConnectionLimitsOfBothTransportsComeFromTheirOptions() throws Exception {
    ServeCommand command = new ServeCommand();
    new CommandLine(command)
        .parseArgs(
            "--port",
            "0",
            "--tcp-port",
            "0",
            "--http-idle-timeout",
            "5",
            "--http-request-read-timeout",
            "2.5",
            "--http-max-connections",
            "100",
            "--tcp-frame-timeout",
            "12",
            "--tcp-max-connections-per-address",
            "7",
            "--tcp-max-posts-in-flight",
            "600",
            "--http-write-timeout",
            "4",
            "--http-max-unsent",
            "1048576");
    try (ServeCommand.Running running = command.start(new PrintWriter(new StringWriter()))) {
      HttpOptions http = running.board().settings().http();
      assertThat(http.idleTimeout()).isEqualTo(Duration.ofSeconds(5));
      assertThat(http.requestReadTimeout()).isEqualTo(Duration.ofMillis(2500));
      assertThat(http.maxConnections()).isEqualTo(100);
      assertThat(http.writeTimeout()).isEqualTo(Duration.ofSeconds(4));
      assertThat(http.maxUnsentBytes()).isEqualTo(1048576);
      TcpOptions tcp = running.board().tcp().options();
      assertThat(tcp.frameTimeout()).isEqualTo(Duration.ofSeconds(12));
      assertThat(tcp.maxConnectionsPerAddress()).isEqualTo(7);
      assertThat(tcp.maxPostsInFlight()).isEqualTo(600);
    }
    ServeCommand defaults = new ServeCommand();
    new CommandLine(defaults).parseArgs("--port", "0");
    assertThat(defaults.httpOptions()).hasToString(HttpOptions.defaults().toString());
  }

  @Test
  void badTcpOptionsAreUsageErrorsNamingTheOption() {
    StringWriter err = new StringWriter();
    CommandLine line = StowageCli.commandLine().setErr(new PrintWriter(err));
    assertThat(line.execute("serve", "--port", "0", "--tls-port", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("serve: the TLS port needs a certificate and key");
    assertThat(line.execute("serve", "--port", "0", "--tcp-port", "0", "--tcp-idle-timeout", "0"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--tcp-idle-timeout must be from 0 to 86400 seconds, got 0.0");
    assertThat(line.execute("serve", "--port", "0", "--tcp-port", "0", "--mode", "seed-json"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("the TCP endpoint serves stowage mode only, not seed-json");
    assertThat(line.execute("serve", "--port", "0", "--tls-self-signed")).isEqualTo(2);
    assertThat(err.toString())
        .contains("--tls-cert, --tls-key and --tls-self-signed need --tls-port");
    assertThat(line.execute("serve", "--port", "0", "--http-request-read-timeout", "0"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--http-request-read-timeout must be from 0 to 86400 seconds, got 0.0");
    assertThat(line.execute("serve", "--port", "0", "--http-write-timeout", "0")).isEqualTo(2);
    assertThat(err.toString())
        .contains("--http-write-timeout must be from 0 to 86400 seconds, got 0.0");
    assertThat(line.execute("serve", "--port", "0", "--http-max-unsent", "1000")).isEqualTo(2);
    assertThat(err.toString())
        .contains("maxUnsentBytes must be from 65536 to 1073741824, got 1000");
    assertThat(
            line.execute(
                "serve",
                "--port",
                "0",
                "--tcp-port",
                "0",
                "--tcp-max-connections-per-address",
                "0"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("maxConnectionsPerAddress must be at least 1, got 0");
    assertThat(
            line.execute(
                "serve", "--port", "0", "--tcp-port", "0", "--tcp-max-posts-in-flight", "0"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("maxPostsInFlight must be at least 1, got 0");
  }

  @Test
  void redisClusterAloneStartsAnEmbeddedClusterAndClosesItWithTheService() throws Exception {
    ServeCommand command = new ServeCommand();
    new CommandLine(command).parseArgs("--port", "0", "--redis-cluster");
    StringWriter printed = new StringWriter();
    RedisClusterSet cluster;
    try (ServeCommand.Running running = command.start(new PrintWriter(printed))) {
      cluster = running.embeddedCluster();
      assertThat(cluster).isNotNull();
      assertThat(running.embeddedRedis()).isNull();
      assertThat(cluster.nodes())
          .hasSize(6)
          .allSatisfy(node -> assertThat(node.port()).isNotEqualTo(6379));
      assertThat(cluster.masters()).hasSize(3);
      assertThat(printed.toString())
          .startsWith(
              "stowage board listening on "
                  + running.board().url()
                  + " (mode stowage, redis cluster "
                  + String.join(",", cluster.uris())
                  + " embedded, db in-memory H2)");
      assertThat(running.board().settings().redisCluster()).isTrue();
      assertThat(postThenFirstTitle(running.board().url(), "on the embedded cluster"))
          .isEqualTo("on the embedded cluster");
      assertThat(cluster.masterOf("{board}").reply("EXISTS", "{board}")).isEqualTo(1L);
    }
    assertThat(cluster.nodes())
        .as("closed with the service")
        .noneSatisfy(node -> assertThat(node.isRunning()).isTrue());
  }

  @Test
  void redisClusterWithUrlsUsesThatClusterAndLeavesItRunning() throws Exception {
    try (RedisClusterSet cluster = RedisClusterSet.start(0)) {
      String seeds = cluster.uris().get(1) + "," + cluster.uris().get(2);
      ServeCommand command = new ServeCommand();
      new CommandLine(command)
          .parseArgs("--port", "0", "--redis-cluster", seeds, "--compression", "none");
      StringWriter printed = new StringWriter();
      try (ServeCommand.Running running = command.start(new PrintWriter(printed))) {
        assertThat(running.embeddedCluster()).isNull();
        assertThat(running.embeddedRedis()).isNull();
        assertThat(printed.toString())
            .startsWith(
                "stowage board listening on "
                    + running.board().url()
                    + " (mode stowage, redis cluster "
                    + seeds
                    + ", db in-memory H2)");
        assertThat(postThenFirstTitle(running.board().url(), "on a given cluster"))
            .isEqualTo("on a given cluster");
        assertThat(cluster.masterOf("{board}").reply("EXISTS", "{board}:counter")).isEqualTo(1L);
      }
      assertThat(cluster.masters()).as("a cluster the command was given stays up").hasSize(3);
    }
  }

  @Test
  void redisClusterUsageErrorsSayWhatIsWrong() {
    StringWriter err = new StringWriter();
    CommandLine line = StowageCli.commandLine().setErr(new PrintWriter(err));
    assertThat(
            line.execute(
                "serve", "--port", "0", "--redis", "redis://127.0.0.1:1", "--redis-cluster"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "serve: --redis and --redis-cluster name two Redis deployments;"
                + " pass one (--redis-cluster alone starts an embedded cluster)");
    assertThat(line.execute("serve", "--port", "0", "--redis-cluster", "--mode", "seed-json"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "serve: --redis-cluster serves stowage mode only, not seed-json:"
                + " the seed modes keep the seed's single-server commands; drop --redis-cluster or use --mode stowage");
    assertThat(
            line.execute(
                "serve",
                "--port",
                "0",
                "--redis-cluster",
                "redis://127.0.0.1:1,,redis://127.0.0.1:2"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "serve: --redis-cluster takes node URLs joined by commas, such as"
                + " redis://10.0.0.1:6379,redis://10.0.0.2:6379, with no empty one; got"
                + " 'redis://127.0.0.1:1,,redis://127.0.0.1:2'");
    assertThat(line.execute("serve", "--port", "0", "--redis-cluster", "not a url")).isEqualTo(2);
    assertThat(err.toString()).contains("serve: --redis-cluster: not a Redis URL: 'not a url' (");
  }

  /**
   * Posts one board titled {@code title}, then returns the title of the newest on the first page.
   */
  private static String postThenFirstTitle(String url, String title) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "/boards"))
                .header("Content-Type", "application/json")
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"member_id\":1,\"title\":\""
                            + title
                            + "\",\"body\":\"b\","
                            + "\"address\":\"a\",\"country\":\"c\",\"job\":\"j\",\"credit\":\"1\",\"ssn\":\"s\","
                            + "\"company\":\"co\",\"phone_number\":\"p\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    HttpResponse<String> page =
        http.send(
            HttpRequest.newBuilder(URI.create(url + "/boards?page=1&size=1")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(page.statusCode()).as(page.body()).isEqualTo(200);
    return new ObjectMapper().readTree(page.body()).get("data").get(0).get("title").asText();
  }
}
