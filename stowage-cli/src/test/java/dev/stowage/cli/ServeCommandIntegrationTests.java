package dev.stowage.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.board.HttpOptions;
import dev.stowage.board.client.StowageBoardClient;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.NewBoard;
import dev.stowage.board.tcp.BoardTcpServer;
import dev.stowage.board.tcp.TcpOptions;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ServeCommandIntegrationTests {

  @Test
  void servesWithAnEmbeddedRedisAndH2AndSaysWhereItListens() throws Exception {
    ServeCommand command = new ServeCommand();
    new CommandLine(command).parseArgs("--port", "0", "--mode", "stowage");
    StringWriter printed = new StringWriter();
    try (ServeCommand.Running running = command.start(new PrintWriter(printed))) {
      assertThat(running.embeddedRedis()).isNotNull();
      assertThat(running.embeddedRedis().port()).isNotEqualTo(6379);
      assertThat(printed.toString()).startsWith("stowage board listening on "
          + running.board().url() + " (mode stowage, redis " + running.embeddedRedis().uri()
          + " embedded, db in-memory H2)");
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> created = http.send(HttpRequest.newBuilder(
              URI.create(running.board().url() + "/boards"))
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString("{\"member_id\":1,\"title\":\"t\",\"body\":\"b\","
              + "\"address\":\"a\",\"country\":\"c\",\"job\":\"j\",\"credit\":\"1\",\"ssn\":\"s\","
              + "\"company\":\"co\",\"phone_number\":\"p\"}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(created.statusCode()).isEqualTo(200);
      HttpResponse<String> page = http.send(HttpRequest.newBuilder(
          URI.create(running.board().url() + "/boards?page=1&size=25")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(page.body()).startsWith("{\"code\":200,\"message\":\"success\",\"data\":[{\"id\":")
          .contains("\"title\":\"t\"");
    }
  }

  @Test
  void servesTheBinaryProtocolOnPlainAndTlsPortsWhenAsked() throws Exception {
    ServeCommand command = new ServeCommand();
    new CommandLine(command).parseArgs("--port", "0", "--tcp-port", "0", "--tls-port", "0",
        "--tls-self-signed", "--tcp-idle-timeout", "30", "--tcp-max-connections", "64");
    StringWriter printed = new StringWriter();
    try (ServeCommand.Running running = command.start(new PrintWriter(printed))) {
      BoardTcpServer tcp = running.board().tcp();
      assertThat(tcp.options().idleTimeout()).isEqualTo(Duration.ofSeconds(30));
      assertThat(tcp.options().maxConnections()).isEqualTo(64);
      assertThat(printed.toString())
          .contains("stowage board protocol on tcp://127.0.0.1:" + tcp.port() + "\n")
          .contains("stowage board protocol on tls://127.0.0.1:" + tcp.tlsPort() + " (certificate ");
      try (StowageBoardClient plain = StowageBoardClient.builder("127.0.0.1", tcp.port()).build();
          StowageBoardClient tls = StowageBoardClient.builder("127.0.0.1", tcp.tlsPort())
              .tls(tcp.tlsCertificate()).tlsServerName("localhost").build()) {
        Board created = plain.create(new NewBoard(1L, "t", "b", "a", "c", "j", "1", "s", "co", "p"))
            .get(30, TimeUnit.SECONDS);
        assertThat(tls.page(1, 25).get(30, TimeUnit.SECONDS)).containsExactly(created);
      }
    }
  }

  @Test
  void theConnectionLimitsOfBothTransportsComeFromTheirOptions() throws Exception {
    ServeCommand command = new ServeCommand();
    new CommandLine(command).parseArgs("--port", "0", "--tcp-port", "0",
        "--http-idle-timeout", "5", "--http-request-read-timeout", "2.5",
        "--http-max-connections", "100", "--tcp-frame-timeout", "12",
        "--tcp-max-connections-per-address", "7");
    try (ServeCommand.Running running = command.start(new PrintWriter(new StringWriter()))) {
      HttpOptions http = running.board().settings().http();
      assertThat(http.idleTimeout()).isEqualTo(Duration.ofSeconds(5));
      assertThat(http.requestReadTimeout()).isEqualTo(Duration.ofMillis(2500));
      assertThat(http.maxConnections()).isEqualTo(100);
      TcpOptions tcp = running.board().tcp().options();
      assertThat(tcp.frameTimeout()).isEqualTo(Duration.ofSeconds(12));
      assertThat(tcp.maxConnectionsPerAddress()).isEqualTo(7);
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
    assertThat(err.toString()).contains("--tcp-idle-timeout must be from 0 to 86400 seconds, got 0.0");
    assertThat(line.execute("serve", "--port", "0", "--tcp-port", "0", "--mode", "seed-json"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("the TCP endpoint serves stowage mode only, not seed-json");
    assertThat(line.execute("serve", "--port", "0", "--tls-self-signed")).isEqualTo(2);
    assertThat(err.toString()).contains("--tls-cert, --tls-key and --tls-self-signed need --tls-port");
    assertThat(line.execute("serve", "--port", "0", "--http-request-read-timeout", "0"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains("--http-request-read-timeout must be from 0 to 86400 seconds, got 0.0");
    assertThat(line.execute("serve", "--port", "0", "--tcp-port", "0",
        "--tcp-max-connections-per-address", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("maxConnectionsPerAddress must be at least 1, got 0");
  }
}
