package dev.stowage.samples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class SamplesUnitTests {

  /**
   * SHA-256 over the Jackson JSON of board records 0 to 99, one per line. The same in every JVM as
   * long as datafaker (pinned in the parent pom) and the generator are unchanged; a change here
   * changes every benchmark's data, so it must be deliberate.
   */
  private static final String BOARDS_0_TO_99_SHA256 =
      "b31c103554469aeb405ca22fd83f8b99dd9cf6a38bdfc19d234a6bcbc28c9ac7";

  @Test
  void boardRecordsAreTheSameInEveryJvm() throws Exception {
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    for (BoardRecord board : Samples.boards(100)) {
      sha.update(SampleJson.MAPPER.writeValueAsBytes(board));
      sha.update((byte) '\n');
    }
    assertThat(HexFormat.of().formatHex(sha.digest())).isEqualTo(BOARDS_0_TO_99_SHA256);
  }

  @Test
  void aRecordDependsOnlyOnItsIndex() {
    List<BoardRecord> first = Samples.boards(50);
    assertThat(Samples.board(37)).isEqualTo(first.get(37));
    assertThat(Samples.boards(30, 10)).isEqualTo(first.subList(30, 40));
    // Making other kinds in between does not disturb the sequence.
    Samples.person(3);
    Samples.mediaContent(9);
    assertThat(Samples.board(12)).isEqualTo(first.get(12));
    assertThat(Samples.person(4)).isEqualTo(Samples.people(5).get(4));
    assertThat(Samples.item(8)).isEqualTo(Samples.items(9).get(8));
    assertThat(Samples.mediaContent(2)).isEqualTo(Samples.mediaContents(3).get(2));
  }

  @Test
  void concurrentCallersGetTheSameRecords() throws Exception {
    List<BoardRecord> expected = Samples.boards(200);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<BoardRecord>>> futures = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        futures.add(pool.submit(() -> Samples.boards(200)));
      }
      for (Future<List<BoardRecord>> future : futures) {
        assertThat(future.get()).isEqualTo(expected);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  @SuppressWarnings("JavaLocalDateTimeGetNano") // the nanos of the second are what must be zero
  void recordsDifferFromOneAnother() {
    List<BoardRecord> boards = Samples.boards(500);
    assertThat(new HashSet<>(boards.stream().map(BoardRecord::id).toList())).hasSize(500);
    assertThat(new HashSet<>(boards.stream().map(BoardRecord::body).toList()))
        .hasSizeGreaterThan(490);
    assertThat(new HashSet<>(boards.stream().map(BoardRecord::title).toList()))
        .hasSizeGreaterThan(400);
    for (int i = 0; i < boards.size(); i++) {
      BoardRecord board = boards.get(i);
      assertThat(board.score()).isEqualTo(i + 1);
      assertThat(board.id()).matches("[0-9a-f]{24}");
      assertThat(board.credit()).matches("[0-9]{12,19}");
      assertThat(board.ssn()).matches("[0-9]{3}-[0-9]{2}-[0-9]{4}");
      assertThat(board.createdAt().getNano()).isZero();
      assertThat(board.createdTs() / 1000)
          .isEqualTo(board.createdAt().toEpochSecond(ZoneOffset.UTC));
      assertThat(board.body()).contains("\n");
      assertThat(board.address()).contains("\n");
    }
    assertThat(Samples.mediaContents(100).stream().distinct().count()).isEqualTo(100);
  }

  @Test
  void aBoardRecordTakesAboutFiveHundredSixtyBytesOfJson() throws Exception {
    long total = 0;
    for (BoardRecord board : Samples.boards(1000)) {
      total += SampleJson.MAPPER.writeValueAsBytes(board).length;
    }
    // DESIGN.md: "a board record is about 560 bytes of JSON"; the seed's own example is 530.
    assertThat(total / 1000).isBetween(520L, 620L);
  }

  @Test
  void peopleCarryAChecksumThatCatchesAnyChangedField() {
    for (Person person : Samples.people(300)) {
      assertThat(person.checksumMatches()).as("person %d", person.id()).isTrue();
      assertThat(person.sex()).isIn("0", "1");
      assertThat(person.age()).isBetween(0, 29);
      assertThat(
              new Person(
                      person.id() + 1,
                      person.name(),
                      person.address(),
                      person.phone(),
                      person.sex(),
                      person.age(),
                      person.md5())
                  .checksumMatches())
          .isFalse();
      assertThat(
              new Person(
                      person.id(),
                      person.name() + " ",
                      person.address(),
                      person.phone(),
                      person.sex(),
                      person.age(),
                      person.md5())
                  .checksumMatches())
          .isFalse();
      assertThat(
              new Person(
                      person.id(),
                      person.name(),
                      person.address(),
                      person.phone(),
                      person.sex(),
                      person.age() + 1,
                      person.md5())
                  .checksumMatches())
          .isFalse();
    }
    Person first = Samples.person(0);
    assertThat(first.id()).isEqualTo(1);
    byte[] expected = sha(first);
    assertThat(Base64.getDecoder().decode(first.md5())).hasSize(16).isEqualTo(expected);
  }

  @Test
  void itemsHaveFiveFields() {
    assertThat(Item.class.getRecordComponents()).hasSize(5);
    List<Item> items = Samples.items(100);
    assertThat(items.get(0).id()).isEqualTo(1);
    assertThat(items)
        .allSatisfy(
            item -> {
              assertThat(item.name()).isNotBlank();
              assertThat(item.price()).isPositive();
            });
  }

  @Test
  void theKeynoteMediaContentIsJvmSerializersObject() throws Exception {
    MediaContent keynote = Samples.keynoteMediaContent();
    assertThat(keynote.media().persons()).containsExactly("Bill Gates", "Steve Jobs");
    assertThat(keynote.images())
        .extracting(Image::size)
        .containsExactly(Image.Size.LARGE, Image.Size.SMALL);
    assertThat(MediaContent.nestedTypes())
        .containsExactly(Media.class, Media.Player.class, Image.class, Image.Size.class);
  }

  @Test
  void negativeIndexesAndCountsAreRejected() {
    assertThatThrownBy(() -> Samples.board(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> Samples.boards(-2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("-2");
    assertThat(Samples.boards(0)).isEmpty();
  }

  private static byte[] sha(Person p) {
    try {
      String text =
          p.id()
              + "|"
              + p.name()
              + "|"
              + p.address()
              + "|"
              + p.phone()
              + "|"
              + p.sex()
              + "|"
              + p.age();
      return MessageDigest.getInstance("MD5").digest(text.getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
