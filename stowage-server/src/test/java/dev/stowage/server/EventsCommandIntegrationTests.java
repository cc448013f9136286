package dev.stowage.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.cli.StowageCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code serve --kafka} alone starts an embedded broker and publishes every created post's event to
 * it; {@code events --from-beginning --max N} prints them, one JSON line each.
 */
@Order(1) // one of the module's longest classes: started first (see the parent pom)
class EventsCommandIntegrationTests {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String POST =
      "{\"member_id\":1,\"title\":\"t\",\"body\":\"b\","
          + "\"address\":\"a\",\"country\":\"c\",\"job\":\"j\",\"credit\":\"1\",\"ssn\":\"s\","
          + "\"company\":\"co\",\"phone_number\":\"p\"}";

  @Test
  void serveWithAnEmbeddedBrokerPublishesAndEventsPrintsOneJsonLinePerPost() throws Exception {
    ServeCommand serve = new ServeCommand();
    new CommandLine(serve).parseArgs("--port", "0", "--kafka");
    StringWriter printed = new StringWriter();
    try (ServeCommand.Running running = serve.start(new PrintWriter(printed))) {
      String kafka = Objects.requireNonNull(running.embeddedKafka()).bootstrapServers();
      assertThat(printed.toString())
          .contains("stowage board events to kafka " + kafka + " embedded, topic board-events");
      HttpClient http = HttpClient.newHttpClient();
      List<String> ids = new ArrayList<>();
      JsonNode one = JSON.readTree(post(http, running.board().url() + "/boards", POST));
      ids.add(one.get("data").get("id").asText());
      JSON.readTree(
              post(http, running.board().url() + "/boards/bulk", "[" + POST + "," + POST + "]"))
          .get("data")
          .forEach(item -> ids.add(item.get("id").asText()));

      StringWriter out = new StringWriter();
      StringWriter err = new StringWriter();
      CommandLine cli =
          StowageCli.commandLine().setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
      assertThat(
              cli.execute(
                  "events", "--kafka", kafka, "--from-beginning", "--max", "3", "--timeout", "60"))
          .as(err.toString())
          .isZero();

      // A topic that does not exist (nothing creates it): asked again until the timeout, then a
      // clear error, not a consumer's exception.
      StringWriter missing = new StringWriter();
      CommandLine other =
          StowageCli.commandLine()
              .setOut(new PrintWriter(new StringWriter()))
              .setErr(new PrintWriter(missing));
      assertThat(
              other.execute(
                  "events", "--kafka", kafka, "--topic", "no-such-topic", "--timeout", "1.5"))
          .isEqualTo(1);
      assertThat(missing.toString())
          .contains("events: no topic no-such-topic on " + kafka + " before the timeout");

      List<String> lines = out.toString().lines().toList();
      assertThat(lines).hasSize(3);
      List<String> printedIds = new ArrayList<>();
      long previousScore = 0;
      for (String line : lines) {
        JsonNode event = JSON.readTree(line);
        assertThat(event.get("version").asInt()).isEqualTo(1);
        assertThat(event.get("type").asText()).isEqualTo("post-created");
        assertThat(event.get("board").asText()).isEqualTo("board");
        assertThat(event.get("post").get("title").asText()).isEqualTo("t");
        assertThat(event.get("score").asLong()).isGreaterThan(previousScore);
        previousScore = event.get("score").asLong();
        printedIds.add(event.get("id").asText());
      }
      assertThat(printedIds).isEqualTo(ids);

      // Without --from-beginning it waits for the next event: none comes before the timeout.
      StringWriter next = new StringWriter();
      assertThat(
              StowageCli.commandLine()
                  .setOut(new PrintWriter(next))
                  .execute("events", "--kafka", kafka, "--timeout", "2"))
          .isZero();
      assertThat(next.toString()).isEmpty();
    }
  }

  @Test
  void refusesEventOptionsWithoutKafkaAndABadMax() {
    StringWriter err = new StringWriter();
    CommandLine line = StowageCli.commandLine().setErr(new PrintWriter(err));
    assertThat(line.execute("serve", "--port", "0", "--kafka-topic", "x")).isEqualTo(2);
    assertThat(err.toString())
        .contains("serve: --kafka-topic and --event-backlog-limit need --kafka");
    assertThat(line.execute("events", "--kafka", "127.0.0.1:1", "--max", "0")).isEqualTo(2);
    assertThat(err.toString()).contains("events: --max and --timeout must be above 0");
  }

  private static String post(HttpClient http, String url, String body) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }
}
