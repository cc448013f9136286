package dev.stowage.codec;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Posts for the codec tests: generated ones from a fixed seed and the edge cases. */
final class PostFixtures {
  static final String KOREAN = "안녕하세요, 게시판에 오신 것을 환영합니다";
  static final String CHINESE = "缓存中的对象序列化测试";
  static final String EMOJI = "cache 🚀🔥👍🏽 family 👨‍👩‍👧‍👦 flag 🇰🇷";

  private PostFixtures() {}

  /** Posts whose every field is set, from a seeded random source. */
  @SuppressWarnings("EnumOrdinal") // a random constant: the index only picks one
  static List<Post> generated(int count, long seed) {
    Random random = new Random(seed);
    List<Post> posts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      posts.add(
          new Post(
              random.nextLong(),
              (long) random.nextInt(1_000_000),
              "title " + Long.toString(random.nextLong(), 36),
              "body " + Long.toString(random.nextLong(), 36).repeat(1 + random.nextInt(20)),
              BigDecimal.valueOf(random.nextInt(100_000_000), 2),
              Instant.ofEpochSecond(
                  1_600_000_000L + random.nextInt(200_000_000), random.nextInt(1_000_000_000)),
              LocalDateTime.of(
                  2020 + random.nextInt(6),
                  1 + random.nextInt(12),
                  1 + random.nextInt(28),
                  random.nextInt(24),
                  random.nextInt(60),
                  random.nextInt(60),
                  random.nextInt(1_000_000_000)),
              LocalDate.of(
                  1990 + random.nextInt(40), 1 + random.nextInt(12), 1 + random.nextInt(28)),
              List.of("tag" + random.nextInt(100), "tag" + random.nextInt(100)),
              Post.Status.values()[random.nextInt(Post.Status.values().length)],
              new Post.Author(
                  "author " + random.nextInt(1000), random.nextInt(90), random.nextDouble())));
    }
    return posts;
  }

  /** The edge cases: other scripts, empty text, nulls, a 1 MB body, extreme longs and dates. */
  static List<Post> edgeCases() {
    Post base = generated(1, 7).get(0);
    return List.of(
        withText(base, KOREAN, KOREAN + " " + CHINESE),
        withText(base, CHINESE, CHINESE.repeat(50)),
        withText(base, EMOJI, EMOJI.repeat(10)),
        withText(base, "", ""),
        withText(
            base, "1 MB body", "x".repeat(700_000) + KOREAN.repeat(10_000).substring(0, 100_000)),
        new Post(
            Long.MIN_VALUE,
            Long.MAX_VALUE,
            "min and max",
            "b",
            new BigDecimal("-99999999999999999999.999999"),
            Instant.parse("1970-01-01T00:00:00Z"),
            LocalDateTime.of(1, 1, 1, 0, 0),
            LocalDate.of(9999, 12, 31),
            List.of(),
            Post.Status.HIDDEN,
            new Post.Author("", 0, -0.5)),
        new Post(
            Long.MAX_VALUE,
            Long.MIN_VALUE,
            "dates",
            "b",
            BigDecimal.ZERO,
            Instant.parse("2038-01-19T03:14:08.123456789Z"),
            LocalDateTime.of(2024, 2, 29, 23, 59, 59, 999_999_999),
            LocalDate.of(1900, 1, 1),
            List.of("", KOREAN, EMOJI),
            Post.Status.DRAFT,
            base.author()),
        new Post(0, null, "nulls", null, null, null, null, null, null, null, null));
  }

  private static Post withText(Post post, String title, String body) {
    return new Post(
        post.id(),
        post.memberId(),
        title,
        body,
        post.credit(),
        post.createdAt(),
        post.modifiedAt(),
        post.day(),
        List.of(title, firstCodePoints(body, 20)),
        post.status(),
        new Post.Author(title, post.author().age(), post.author().rating()));
  }

  private static String firstCodePoints(String text, int count) {
    StringBuilder out = new StringBuilder();
    text.codePoints().limit(count).forEach(out::appendCodePoint);
    return out.toString();
  }
}
