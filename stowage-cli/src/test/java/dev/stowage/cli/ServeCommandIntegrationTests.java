package dev.stowage.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
}
