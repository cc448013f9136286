package dev.stowage.codec;

import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * Board records for codec and envelope tests: generated ones from the samples module, and edge
 * cases that every codec must carry unchanged.
 */
public final class BoardRecordFixtures {
  /** Korean text, as the first seed's users write. */
  public static final String KOREAN = "안녕하세요, 게시판에 오신 것을 환영합니다";

  /** Chinese text, as the fifth seed's users write. */
  public static final String CHINESE = "缓存中的对象序列化测试";

  /** Emoji, including a skin tone, a family (joiners) and a flag (regional indicators). */
  public static final String EMOJI = "cache 🚀🔥👍🏽 family 👨‍👩‍👧‍👦 flag 🇰🇷";

  private BoardRecordFixtures() {}

  /** Board records {@code 0} to {@code n - 1} of the samples module. */
  public static List<BoardRecord> generated(int n) {
    return Samples.boards(n);
  }

  /**
   * Nulls, empty strings, Korean, Chinese and emoji text, a body of a megabyte, the extremes of
   * {@code long}, and dates from year 1 to year 9999 (whole seconds, as the seed's format keeps).
   */
  public static List<BoardRecord> edgeCases() {
    BoardRecord base = Samples.board(7);
    List<BoardRecord> edges = new ArrayList<>();
    edges.add(
        new BoardRecord(
            null, 0, 0, null, null, null, null, null, null, null, null, null, null, null, 0));
    LocalDateTime leapDay = LocalDateTime.of(2024, 2, 29, 12, 0, 0);
    edges.add(new BoardRecord("", 1, 1, "", "", "", "", "", "", "", "", "", leapDay, leapDay, 1));
    edges.add(withText(base, KOREAN, KOREAN + "\n" + CHINESE + "\n" + EMOJI));
    edges.add(withText(base, CHINESE, CHINESE.repeat(40)));
    edges.add(withText(base, EMOJI, EMOJI + " " + KOREAN));
    StringBuilder megabyte = new StringBuilder(1 << 20);
    while (megabyte.length() < 1 << 20) {
      megabyte.append(base.body()).append(' ').append(KOREAN).append('\n');
    }
    edges.add(withText(base, base.title(), megabyte.toString()));
    edges.add(
        new BoardRecord(
            base.id(),
            Long.MIN_VALUE,
            Long.MAX_VALUE,
            base.title(),
            base.body(),
            base.address(),
            base.country(),
            base.job(),
            base.credit(),
            base.ssn(),
            base.company(),
            base.phoneNumber(),
            LocalDateTime.of(1, 1, 1, 0, 0, 0),
            LocalDateTime.of(9999, 12, 31, 23, 59, 59),
            Long.MIN_VALUE));
    edges.add(
        new BoardRecord(
            base.id(),
            Long.MAX_VALUE,
            Long.MIN_VALUE,
            base.title(),
            base.body(),
            base.address(),
            base.country(),
            base.job(),
            base.credit(),
            base.ssn(),
            base.company(),
            base.phoneNumber(),
            LocalDateTime.of(1970, 1, 1, 0, 0, 0),
            null,
            Long.MAX_VALUE));
    edges.add(
        new BoardRecord(
            base.id(),
            -1,
            -1,
            base.title(),
            null,
            base.address(),
            null,
            base.job(),
            null,
            base.ssn(),
            null,
            base.phoneNumber(),
            null,
            LocalDateTime.of(1969, 12, 31, 23, 59, 59),
            -1));
    return List.copyOf(edges);
  }

  private static BoardRecord withText(BoardRecord b, String title, String body) {
    return new BoardRecord(
        b.id(),
        b.score(),
        b.memberId(),
        title,
        body,
        title + " 1-2",
        title,
        title,
        b.credit(),
        b.ssn(),
        title,
        b.phoneNumber(),
        b.modifiedAt(),
        b.createdAt(),
        b.createdTs());
  }
}
