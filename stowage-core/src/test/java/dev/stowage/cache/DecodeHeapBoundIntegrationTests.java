package dev.stowage.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.management.ThreadMXBean;
import dev.stowage.CodecException;
import dev.stowage.Encoding;
import dev.stowage.RedisCache;
import dev.stowage.Stowage;
import dev.stowage.cache.HostileValues.Rec;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.internal.format.CodecIds;
import dev.stowage.testkit.WithRedis;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 27, item 2: values within {@code maxDecodedSize} that would build far more heap than their
 * bytes. A value may hold at most {@code maxDecodedSize / 8} elements (1,048,576 at a cache's 8
 * MiB), checked before the library builds anything; what it may build is charged to the
 * decompression budget while it is decoded, so that many threads cannot multiply it.
 */
@WithRedis
class DecodeHeapBoundIntegrationTests {
  /** Elements a value may hold at a cache's default limit. */
  private static final int MAX_ELEMENTS = Encoding.DEFAULT_MAX_DECODED_SIZE / 8;

  /**
   * Elements of a Rec with n tags, counting every value: the root array, name, n, the tags array
   * and each tag.
   */
  private static final int REC_ELEMENTS = 4;

  private static Stowage stowage;

  /** What {@link #tags} says of a miss. */
  private static final int MISS = -1;

  /** A read's tag count, or {@link #MISS}: a failed assertion never prints a million tags. */
  private static int tags(Rec read) {
    return read == null ? MISS : read.tags().size();
  }

  @BeforeAll
  static void connect(RedisServer redis) {
    stowage = Stowage.builder().redis(redis.uri()).build();
  }

  @AfterAll
  static void close() {
    stowage.close();
  }

  @BeforeEach
  void emptyRedis(RedisServer redis) {
    redis.flushAll();
  }

  @Test
  void theIssuesSevenHundredByteValueIsACountedMissWithoutBuildingTheList(RedisServer redis) {
    byte[] hostile =
        HostileValues.zstdEnvelope(CodecIds.MSGPACK, HostileValues.msgpackRec(HostileValues.TAGS));
    assertThat(hostile.length).isLessThan(2048);
    RawValues.set(redis, "recs:hostile", hostile);
    RedisCache<String, Rec> cache = stowage.cache("recs", Rec.class).build();
    cache.put("ordinary", new Rec("ordinary", 3, List.of("a", "b")));

    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () -> {
          long before = threads.getCurrentThreadAllocatedBytes();
          long start = System.nanoTime();
          assertThat(tags(cache.get("hostile"))).isEqualTo(MISS);
          long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
          long allocated = threads.getCurrentThreadAllocatedBytes() - before;
          // The payload (8 MiB) is decompressed; the 4.19 million strings (256 MB) are never built.
          assertThat(allocated).isLessThan(32L << 20);
          assertThat(millis).isLessThan(2000);
        });
    assertThat(cache.get("ordinary")).isEqualTo(new Rec("ordinary", 3, List.of("a", "b")));
    assertThat(cache.stats().decodeFailures()).isEqualTo(1);
    assertThat(cache.stats().hits()).isEqualTo(1);

    // The failure names the limit and how to raise it.
    EnvelopeCodec<Rec> codec =
        EnvelopeCodec.builder(Codecs.defaultFor(Rec.class))
            .maxDecodedSize(Encoding.DEFAULT_MAX_DECODED_SIZE)
            .build();
    assertThatThrownBy(() -> codec.decode(hostile))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(
            "msgpack codec refused to decode " + HostileValues.PAYLOAD_SIZE + " bytes")
        .hasMessageContaining("more than the " + MAX_ELEMENTS + " elements")
        .hasMessageContaining("maxDecodedSize " + Encoding.DEFAULT_MAX_DECODED_SIZE)
        .hasMessageContaining("Encoding.maxDecodedSize");
  }

  @Test
  void aValueAtTheElementLimitReadsAndOneElementMoreIsACountedMiss() {
    RedisCache<String, Rec> cache = stowage.cache("limit", Rec.class).build();
    Rec atLimit = new Rec("x", 1, HostileValues.tags(MAX_ELEMENTS - REC_ELEMENTS));
    Rec pastLimit = new Rec("x", 1, HostileValues.tags(MAX_ELEMENTS - REC_ELEMENTS + 1));
    cache.put("at", atLimit);
    cache.put("past", pastLimit);

    assertThat(tags(cache.get("at"))).isEqualTo(atLimit.tags().size());
    assertThat(tags(cache.get("past"))).isEqualTo(MISS);
    assertThat(cache.stats().decodeFailures()).isEqualTo(1);
    assertThat(cache.stats().hits()).isEqualTo(1);

    // A larger maxDecodedSize raises the limit: the same stored value reads.
    RedisCache<String, Rec> wider =
        stowage
            .cache("limit", Rec.class)
            .encoding(
                Encoding.defaultFor(Rec.class)
                    .maxDecodedSize(2 * Encoding.DEFAULT_MAX_DECODED_SIZE))
            .build();
    assertThat(tags(wider.get("past"))).isEqualTo(pastLimit.tags().size());
  }

  @Test
  void uncompressedValuesAreBoundedToo(RedisServer redis) {
    byte[] hostile =
        HostileValues.plainEnvelope(CodecIds.MSGPACK, HostileValues.msgpackRec(HostileValues.TAGS));
    RawValues.set(redis, "plain:hostile", hostile);
    RedisCache<String, Rec> cache = stowage.cache("plain", Rec.class).build();
    assertTimeoutPreemptively(
        Duration.ofSeconds(10), () -> assertThat(tags(cache.get("hostile"))).isEqualTo(MISS));
    assertThat(cache.stats().decodeFailures()).isEqualTo(1);

    // maxDecodedSize applies to a payload stored without compression as it does to a compressed
    // one.
    RedisCache<String, String> wide =
        stowage
            .cache("plain-text", String.class)
            .encoding(Encoding.of(Codecs.string()).compression(Compression.none()))
            .build();
    RedisCache<String, String> narrow =
        stowage
            .cache("plain-text", String.class)
            .encoding(
                Encoding.of(Codecs.string()).compression(Compression.none()).maxDecodedSize(1024))
            .build();
    wide.put("kilobytes", "x".repeat(4096));
    wide.put("bytes", "x".repeat(1000));
    assertThat(RawValues.get(redis, "plain-text:kilobytes")[3])
        .isZero(); // stored without compression
    assertThat(narrow.get("kilobytes")).isNull();
    assertThat(narrow.get("bytes")).hasSize(1000);
    assertThat(narrow.stats().decodeFailures()).isEqualTo(1);
  }

  @Test
  void jsonValuesAreBoundedByTheirElementsToo(RedisServer redis) {
    byte[] payload = HostileValues.jsonRec((HostileValues.PAYLOAD_SIZE - 30) / 4);
    assertThat(payload.length).isLessThan(Encoding.DEFAULT_MAX_DECODED_SIZE);
    RawValues.set(redis, "json:hostile", HostileValues.zstdEnvelope(CodecIds.JSON, payload));
    RedisCache<String, Rec> cache =
        stowage.cache("json", Rec.class).encoding(Encoding.of(Codecs.json(Rec.class))).build();
    Rec allowed = new Rec("x", 1, HostileValues.tags(MAX_ELEMENTS / 2));
    cache.put("allowed", allowed);

    assertTimeoutPreemptively(
        Duration.ofSeconds(10), () -> assertThat(tags(cache.get("hostile"))).isEqualTo(MISS));
    assertThat(tags(cache.get("allowed"))).isEqualTo(allowed.tags().size());
    assertThat(cache.stats().decodeFailures()).isEqualTo(1);
    assertThat(cache.stats().hits()).isEqualTo(1);

    EnvelopeCodec<Rec> codec =
        EnvelopeCodec.builder(Codecs.json(Rec.class))
            .maxDecodedSize(Encoding.DEFAULT_MAX_DECODED_SIZE)
            .build();
    assertThatThrownBy(() -> codec.decode(RawValues.get(redis, "json:hostile")))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("more than the " + MAX_ELEMENTS + " elements")
        .hasMessageContaining("Encoding.maxDecodedSize");
  }

  /**
   * The issue's outage: at -Xmx512m, 16 threads reading the hostile value threw OutOfMemoryErrors.
   * A child JVM runs it, then reads a value just under the element limit from 16 threads, whose
   * objects (about 70 MB each) the budget lets only a few build at once.
   */
  @Test
  void sixteenThreadsAtHalfAGigabyteNeverRunOutOfMemory(RedisServer redis) throws Exception {
    RawValues.set(
        redis,
        "oom:hostile",
        HostileValues.zstdEnvelope(CodecIds.MSGPACK, HostileValues.msgpackRec(HostileValues.TAGS)));
    int allowedTags = MAX_ELEMENTS - REC_ELEMENTS;
    stowage
        .cache("oom", Rec.class)
        .build()
        .put("allowed", new Rec("x", 1, HostileValues.tags(allowedTags)));

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classPath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path output = Files.createTempFile("hostile-readers", ".log");
    try {
      Process child =
          new ProcessBuilder(
                  java,
                  "-Xmx512m",
                  "-cp",
                  classPath,
                  HostileValueReaders.class.getName(),
                  redis.uri(),
                  "oom",
                  "hostile",
                  "allowed",
                  Integer.toString(allowedTags))
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      boolean exited = child.waitFor(90, TimeUnit.SECONDS);
      if (!exited) {
        child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
      String log = Files.readString(output, StandardCharsets.UTF_8);
      assertThat(exited).as("the child finished within 90 s; it printed:%n%s", log).isTrue();
      assertThat(child.exitValue())
          .as("the child's exit code (3: OutOfMemoryError); it printed:%n%s", log)
          .isZero();
      assertThat(log).contains("hostile hits 0").contains("out of memory 0");
      System.out.println(
          "the child JVM (-Xmx512m, "
              + HostileValueReaders.THREADS
              + " threads): "
              + log.lines()
                  .filter(line -> line.startsWith("hostile hits"))
                  .findFirst()
                  .orElse(log));
    } finally {
      Files.deleteIfExists(output);
    }
  }
}
