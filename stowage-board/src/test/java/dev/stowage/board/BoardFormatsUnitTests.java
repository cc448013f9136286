package dev.stowage.board;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.board.protocol.Board;
import dev.stowage.board.protocol.BoardIds;
import dev.stowage.board.protocol.NewBoard;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;

class BoardFormatsUnitTests {
  private final BoardFormats formats = new BoardFormats();

  private static Board board(int i) {
    Map<String, Object> post = BoardPosts.post(i);
    NewBoard input = new ObjectMapper().convertValue(post, NewBoard.class);
    return Board.create(input, 1000 + i, 1_701_134_160_136L + i);
  }

  @Test
  void storedFragmentHasTheSeedsNamesOrderAndDateFormat() {
    String json = new String(formats.toJson(board(1)), StandardCharsets.UTF_8);
    assertThat(json)
        .startsWith(
            "{\"id\":\""
                + BoardIds.of(1_701_134_160L, 1001)
                + "\",\"score\":1001,\"member_id\":60001,\"title\":\"Title number 1\"");
    assertThat(json)
        .containsPattern("\"modified_at\":\"\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\"");
    assertThat(json).endsWith("\"created_ts\":1701134160137}");
  }

  @Test
  void splicedPageIsByteForByteWhatJacksonWritesForTheResponseObject() throws Exception {
    List<Board> boards = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      boards.add(board(i));
    }
    byte[] spliced = BoardFormats.splicePage(formats.toJson(boards));
    assertThat(spliced).isEqualTo(formats.json().writeValueAsBytes(ApiResponse.success(boards)));
    assertThat(BoardFormats.splicePage(List.of()))
        .isEqualTo(formats.json().writeValueAsBytes(ApiResponse.success(List.of())));
    assertThat(BoardFormats.spliceOne(formats.toJson(boards.get(3))))
        .isEqualTo(formats.json().writeValueAsBytes(ApiResponse.success(boards.get(3))));
  }

  @Test
  void transcodedPageIsByteForByteWhatTheMessagePackMapperWrites() throws Exception {
    List<Board> boards = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      boards.add(board(i));
    }
    assertThat(formats.transcodePage(formats.toJson(boards)))
        .isEqualTo(formats.msgpack().writeValueAsBytes(ApiResponse.success(boards)));
    assertThat(formats.transcodeOne(formats.toJson(boards.get(0))))
        .isEqualTo(formats.msgpack().writeValueAsBytes(ApiResponse.success(boards.get(0))));
  }

  @Test
  void jsonIsTheStoredFormatBecauseItSplicesIntoTheDefaultResponse() throws Exception {
    // Measured on the seed-shaped post: MessagePack is smaller in Redis, but JSON is what the
    // default response is made of, so JSON fragments splice with no work at all.
    Board board = board(7);
    int json = formats.toJson(board).length;
    int msgpack = formats.msgpack().writeValueAsBytes(board).length;
    System.out.printf("stored post: JSON %d bytes, MessagePack %d bytes%n", json, msgpack);
    assertThat(msgpack).isLessThan(json);
    assertThat(json - msgpack).isLessThan(json / 4);
  }

  @Test
  void parsingRejectsWhatIsWrongWithAMessage() {
    assertThatThrownBy(() -> formats.parseOne("{".getBytes(UTF_8), false))
        .isInstanceOf(BoardRequestException.class)
        .hasMessageStartingWith("malformed JSON");
    assertThatThrownBy(() -> formats.parseOne("{\"title\":\"t\"}".getBytes(UTF_8), false))
        .hasMessageContaining("missing required fields: member_id, body, address");
    assertThatThrownBy(() -> formats.parseOne("null".getBytes(UTF_8), false))
        .isInstanceOf(BoardRequestException.class);
    assertThatThrownBy(() -> formats.parseMany("{}".getBytes(UTF_8), false))
        .hasMessageContaining("array of posts");
  }

  @Test
  void negotiation() {
    assertThat(BoardFormats.wantsMsgpack(List.of())).isFalse();
    assertThat(BoardFormats.wantsMsgpack(List.of(MediaType.ALL))).isFalse();
    assertThat(BoardFormats.wantsMsgpack(List.of(BoardFormats.MSGPACK))).isTrue();
    assertThat(BoardFormats.wantsMsgpack(List.of(MediaType.APPLICATION_JSON, BoardFormats.MSGPACK)))
        .isFalse();
    assertThat(BoardFormats.isMsgpackBody(null)).isFalse();
    assertThat(BoardFormats.isMsgpackBody(BoardFormats.MSGPACK)).isTrue();
    assertThatThrownBy(() -> BoardFormats.isMsgpackBody(MediaType.TEXT_PLAIN))
        .isInstanceOf(BoardRequestException.class)
        .hasMessageContaining("text/plain");
  }

  @Test
  void idsCarryTheScoreAndRejectAnythingElse() {
    String id = BoardIds.of(1_701_134_160L, 120_000);
    assertThat(id).hasSize(24).isEqualTo("65653f50000000000001d4c0");
    assertThat(BoardIds.scoreOf(id)).isEqualTo(120_000);
    assertThat(BoardIds.scoreOf("65653F50000000000001D4C0")).isEqualTo(-1);
    assertThat(BoardIds.scoreOf("abc")).isEqualTo(-1);
    assertThat(BoardIds.scoreOf(null)).isEqualTo(-1);
  }

  @Test
  void modesParseFromTheirLabels() {
    assertThat(BoardMode.parse("seed-json")).isEqualTo(BoardMode.SEED_JSON);
    assertThat(BoardMode.parse("STOWAGE")).isEqualTo(BoardMode.STOWAGE);
    assertThatThrownBy(() -> BoardMode.parse("fast"))
        .hasMessage("unknown board mode 'fast'; expected one of stowage, seed-json, seed-msgpack");
  }

  @Test
  @SuppressWarnings("JavaLocalDateTimeGetNano") // the nanos of the second are what must be zero
  void createdPostsHaveSecondPrecisionDates() {
    Board board = board(1);
    assertThat(board.createdAt().getNano()).isZero();
    assertThat(board.createdAt())
        .isEqualTo(board.modifiedAt())
        .isBefore(LocalDateTime.now(ZoneId.systemDefault()));
  }
}
