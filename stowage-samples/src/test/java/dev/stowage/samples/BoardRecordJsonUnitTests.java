package dev.stowage.samples;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The board record's JSON is the seed's: its 15 names in its order, and its date format. */
class BoardRecordJsonUnitTests {

  /** One element of the seed's list response, as its post prints it. */
  private static final String SEED_ELEMENT =
      """
      {
          "id": "65653f5000b66559c04fe767",
          "score": 120000,
          "member_id": 71642,
          "title": "Jamie Terrell",
          "body": "Five move if necessary final mind. Seem stop sound successful.\\nYard positive clear beat building American whatever education.",
          "address": "98886 Johnson Squares Suite 099\\nNorth Christophershire, VA 12430",
          "country": "Iran",
          "job": "Automotive engineer",
          "credit": "38926412620637",
          "ssn": "177-97-5494",
          "company": "Barnes Ltd",
          "phone_number": "941-836-2530x59041",
          "modified_at": "2023-11-28 10:16:00",
          "created_at": "2023-11-28 10:16:00",
          "created_ts": 1701134160136
      }""";

  @Test
  void writesTheSeedsNamesInTheSeedsOrder() throws Exception {
    JsonNode json =
        SampleJson.MAPPER.readTree(SampleJson.MAPPER.writeValueAsBytes(Samples.board(5)));
    List<String> names = new ArrayList<>();
    json.fieldNames().forEachRemaining(names::add);
    List<String> seedNames = new ArrayList<>();
    SampleJson.MAPPER.readTree(SEED_ELEMENT).fieldNames().forEachRemaining(seedNames::add);
    assertThat(names).isEqualTo(seedNames).hasSize(15);
    assertThat(json.get("score").isIntegralNumber()).isTrue();
    assertThat(json.get("member_id").isIntegralNumber()).isTrue();
    assertThat(json.get("created_ts").isIntegralNumber()).isTrue();
    assertThat(json.get("created_at").asText())
        .matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}");
    assertThat(json.get("modified_at").asText())
        .matches("\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}");
  }

  @Test
  void readsTheSeedsDocument() throws Exception {
    BoardRecord record = SampleJson.MAPPER.readValue(SEED_ELEMENT, BoardRecord.class);
    assertThat(record.id()).isEqualTo("65653f5000b66559c04fe767");
    assertThat(record.score()).isEqualTo(120_000);
    assertThat(record.memberId()).isEqualTo(71_642);
    assertThat(record.phoneNumber()).isEqualTo("941-836-2530x59041");
    assertThat(record.createdAt()).isEqualTo(LocalDateTime.of(2023, 11, 28, 10, 16, 0));
    assertThat(record.modifiedAt()).isEqualTo(record.createdAt());
    assertThat(record.createdTs()).isEqualTo(1_701_134_160_136L);
    assertThat(record.body()).contains("\n");
    // And writes it back to the same document.
    assertThat(SampleJson.MAPPER.readTree(SampleJson.MAPPER.writeValueAsBytes(record)))
        .isEqualTo(SampleJson.MAPPER.readTree(SEED_ELEMENT));
  }

  @Test
  void generatedRecordsSurviveJson() throws Exception {
    for (BoardRecord board : Samples.boards(200)) {
      assertThat(
              SampleJson.MAPPER.readValue(
                  SampleJson.MAPPER.writeValueAsBytes(board), BoardRecord.class))
          .isEqualTo(board);
    }
  }
}
