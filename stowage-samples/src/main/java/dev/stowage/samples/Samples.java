package dev.stowage.samples;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.LongStream;
import net.datafaker.Faker;

/**
 * Deterministic records for tests and benchmarks, made with datafaker (US English) from fixed
 * seeds.
 *
 * <p>Record {@code i} of a kind depends only on {@code i}, the kind and the pinned datafaker
 * version: {@code board(7)} is the same value in every JVM, on every machine, whether it is made
 * alone or as part of {@code boards(100)}. Different indexes give different records.
 *
 * <p>Thread-safe. Making a record takes some microseconds (datafaker resolves expressions), so
 * benchmarks make their records up front.
 */
public final class Samples {

  /** The epoch second that the first board record was created at: 2023-11-28 00:00:00 UTC. */
  public static final long BOARD_EPOCH_SECOND = 1_701_129_600L;

  private static final long BOARD_SEED = 0x5EED_0000_B0A2DL;
  private static final long ITEM_SEED = 0x5EED_0000_17E3L;
  private static final long PERSON_SEED = 0x5EED_0000_9E25L;
  private static final long MEDIA_SEED = 0x5EED_0000_3ED1L;

  private static final int[][] VIDEO_SIZES = {{640, 480}, {1280, 720}, {1920, 1080}, {854, 480}};
  private static final String[] VIDEO_FORMATS = {
    "video/mpg4", "video/mp4", "video/webm", "video/quicktime"
  };

  /** The generator is not thread-safe; its Random is reseeded for every record. */
  private static final Random RANDOM = new Random(0);

  private static final Faker FAKER = new Faker(Locale.US, RANDOM);

  private Samples() {}

  /**
   * Board record {@code i}: score {@code i + 1}, created {@code i} minutes (plus up to a minute)
   * after {@link #BOARD_EPOCH_SECOND}, realistic text in every field. Its JSON takes about 560
   * bytes.
   *
   * @throws IllegalArgumentException if {@code i} is negative
   */
  public static BoardRecord board(long i) {
    requireIndex(i);
    synchronized (FAKER) {
      reseed(BOARD_SEED, i);
      long createdSecond = BOARD_EPOCH_SECOND + i * 60 + RANDOM.nextInt(60);
      long createdTs = createdSecond * 1000 + RANDOM.nextInt(1000);
      LocalDateTime created = LocalDateTime.ofEpochSecond(createdSecond, 0, ZoneOffset.UTC);
      String id = String.format(Locale.ROOT, "%08x%016x", createdSecond, RANDOM.nextLong());
      String title = FAKER.name().fullName();
      String body =
          FAKER.lorem().sentence(3 + RANDOM.nextInt(4))
              + " "
              + FAKER.lorem().sentence(2 + RANDOM.nextInt(4))
              + "\n"
              + FAKER.lorem().sentence(3 + RANDOM.nextInt(4));
      String address =
          FAKER.address().streetAddress(RANDOM.nextBoolean())
              + "\n"
              + FAKER.address().city()
              + ", "
              + FAKER.address().stateAbbr()
              + " "
              + FAKER.address().zipCode();
      return new BoardRecord(
          id,
          i + 1,
          1 + RANDOM.nextInt(100_000),
          title,
          body,
          address,
          FAKER.address().country(),
          FAKER.job().title(),
          FAKER.finance().creditCard().replaceAll("[^0-9]", ""),
          FAKER.idNumber().ssnValid(),
          FAKER.company().name(),
          FAKER.phoneNumber().phoneNumber(),
          created,
          created,
          createdTs);
    }
  }

  /** Board records {@code 0} to {@code n - 1}. */
  public static List<BoardRecord> boards(int n) {
    return boards(0, n);
  }

  /**
   * Board records {@code from} to {@code from + n - 1}: records that {@link #boards(int)} does not
   * hold when {@code from >= n}.
   */
  public static List<BoardRecord> boards(long from, int n) {
    requireCount(n);
    requireIndex(from);
    return LongStream.range(from, from + n).mapToObj(Samples::board).toList();
  }

  /**
   * Item {@code i}, with id {@code i + 1}.
   *
   * @throws IllegalArgumentException if {@code i} is negative
   */
  public static Item item(long i) {
    requireIndex(i);
    synchronized (FAKER) {
      reseed(ITEM_SEED, i);
      return new Item(
          i + 1,
          FAKER.commerce().productName(),
          FAKER.lorem().sentence(6 + RANDOM.nextInt(6)),
          100 + RANDOM.nextInt(1_000_000),
          RANDOM.nextInt(500));
    }
  }

  /** Items {@code 0} to {@code n - 1}. */
  public static List<Item> items(int n) {
    requireCount(n);
    return LongStream.range(0, n).mapToObj(Samples::item).toList();
  }

  /**
   * Person {@code i}, with id {@code i + 1} (the seed's counter), sex {@code "0"} or {@code "1"},
   * age 0 to 29 and a matching checksum.
   *
   * @throws IllegalArgumentException if {@code i} is negative
   */
  public static Person person(long i) {
    requireIndex(i);
    synchronized (FAKER) {
      reseed(PERSON_SEED, i);
      return Person.of(
          i + 1,
          FAKER.name().fullName(),
          FAKER.address().streetAddress(),
          FAKER.phoneNumber().cellPhone(),
          RANDOM.nextBoolean() ? "1" : "0",
          RANDOM.nextInt(30));
    }
  }

  /** People {@code 0} to {@code n - 1}. */
  public static List<Person> people(int n) {
    requireCount(n);
    return LongStream.range(0, n).mapToObj(Samples::person).toList();
  }

  /**
   * Media content {@code i}: a video with one to three people and a large and a small picture,
   * varied in every field the way the jvm-serializers object is (some titles and the copyright are
   * {@code null}, the bitrate is sometimes unknown).
   *
   * @throws IllegalArgumentException if {@code i} is negative
   */
  public static MediaContent mediaContent(long i) {
    requireIndex(i);
    synchronized (FAKER) {
      reseed(MEDIA_SEED, i);
      String host = "http://" + FAKER.internet().domainName();
      String slug = FAKER.lorem().word() + "-" + FAKER.lorem().word();
      String title = FAKER.book().title();
      int[] dimensions = VIDEO_SIZES[RANDOM.nextInt(VIDEO_SIZES.length)];
      int personCount = 1 + RANDOM.nextInt(3);
      List<String> persons = new ArrayList<>(personCount);
      for (int p = 0; p < personCount; p++) {
        persons.add(FAKER.name().fullName());
      }
      boolean hasBitrate = RANDOM.nextInt(4) != 0;
      Media media =
          new Media(
              host + "/" + slug + ".mpg",
              title,
              dimensions[0],
              dimensions[1],
              VIDEO_FORMATS[RANDOM.nextInt(VIDEO_FORMATS.length)],
              60_000L + RANDOM.nextInt(7_200_000),
              1_000_000L + (RANDOM.nextLong() & 0x3FFF_FFFFL),
              hasBitrate ? 128 * (1 + RANDOM.nextInt(4096)) : 0,
              hasBitrate,
              List.copyOf(persons),
              RANDOM.nextInt(5) == 0 ? Media.Player.FLASH : Media.Player.JAVA,
              RANDOM.nextInt(3) == 0
                  ? "Copyright " + (2000 + RANDOM.nextInt(25)) + " " + FAKER.company().name()
                  : null);
      boolean titled = RANDOM.nextBoolean();
      List<Image> images =
          List.of(
              new Image(
                  host + "/" + slug + "_large.jpg",
                  titled ? title : null,
                  1024,
                  768,
                  Image.Size.LARGE),
              new Image(
                  host + "/" + slug + "_small.jpg",
                  titled ? title : null,
                  320,
                  240,
                  Image.Size.SMALL));
      return new MediaContent(media, images);
    }
  }

  /** Media contents {@code 0} to {@code n - 1}. */
  public static List<MediaContent> mediaContents(int n) {
    return mediaContents(0, n);
  }

  /** Media contents {@code from} to {@code from + n - 1}. */
  public static List<MediaContent> mediaContents(long from, int n) {
    requireCount(n);
    requireIndex(from);
    return LongStream.range(from, from + n).mapToObj(Samples::mediaContent).toList();
  }

  /**
   * The media content that jvm-serializers itself encodes (a conference keynote video with two
   * pictures), for comparing sizes with its published tables.
   */
  public static MediaContent keynoteMediaContent() {
    Media media =
        new Media(
            "http://javaone.com/keynote.mpg",
            "Javaone Keynote",
            640,
            480,
            "video/mpg4",
            18_000_000L,
            58_982_400L,
            262_144,
            true,
            List.of("Bill Gates", "Steve Jobs"),
            Media.Player.JAVA,
            null);
    return new MediaContent(
        media,
        List.of(
            new Image(
                "http://javaone.com/keynote_large.jpg",
                "Javaone Keynote",
                1024,
                768,
                Image.Size.LARGE),
            new Image(
                "http://javaone.com/keynote_small.jpg",
                "Javaone Keynote",
                320,
                240,
                Image.Size.SMALL)));
  }

  private static void reseed(long kind, long i) {
    RANDOM.setSeed(mix(kind ^ mix(i)));
  }

  /** A 64-bit finaliser (the one SplittableRandom uses), so nearby indexes get unrelated seeds. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  private static void requireIndex(long i) {
    if (i < 0) {
      throw new IllegalArgumentException("a sample index is 0 or more, not " + i);
    }
  }

  private static void requireCount(int n) {
    if (n < 0) {
      throw new IllegalArgumentException("a sample count is 0 or more, not " + n);
    }
  }
}
