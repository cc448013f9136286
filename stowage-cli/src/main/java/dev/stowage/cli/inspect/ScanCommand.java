package dev.stowage.cli.inspect;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stowage.Inspector;
import dev.stowage.StowageException;
import dev.stowage.cli.json.JsonLayout;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.Range;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ValueScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code stowage scan}: walks the keys matching a pattern with {@code SCAN} (never {@code KEYS})
 * and reports them by type, string values by codec and compression, and a sample of the members of
 * hashes, lists, sets and sorted sets (the first {@value #MEMBERS_SAMPLED} of each key) by codec
 * and compression too, reading a feed's entries by their envelopes; the sorted sets that index a
 * {@linkplain FeedLayout feed} are counted as feeds, their members not sampled. A feed's sealed
 * bucket (a string {@code <feed>:s:<n>} its index names as sealed) is counted among the strings as
 * {@code sealed feed bucket+<compression>}, and the first members of its decompressed payload are
 * sampled as a bucket list's elements are; one that cannot be read is a failure. Then their {@code
 * MEMORY USAGE} (total and percentiles), the biggest keys (with the format of a string, of a
 * collection's sampled members or {@code mixed} when they differ, or {@code feed index}), and the
 * values and sampled members that fail to decode. Each page of keys is read with a few pipelines.
 * Progress goes to standard error: redrawn in place on a terminal, a plain line every {@code
 * --progress-every} keys otherwise (see {@link ScanProgress}). Keys that are not UTF-8 text are
 * printed escaped, and {@code --match} takes the same {@code \xNN} escapes ({@link KeyNames}).
 */
@Command(
    name = "scan",
    mixinStandardHelpOptions = true,
    description =
        "Report the keys matching a pattern: types, codecs, compression, memory, failures (SCAN, never KEYS).")
public final class ScanCommand implements Callable<Integer> {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int BIGGEST = 10;
  private static final int FAILURES_LISTED = 100;

  /** Members sampled from each hash, list, set and sorted set. */
  static final int MEMBERS_SAMPLED = 10;

  /** What a sealed feed bucket is counted as among the strings, before {@code +<compression>}. */
  static final String SEALED_FORMAT = "sealed feed bucket";

  @Spec CommandSpec spec;
  @Mixin RedisOption redis;
  @Mixin ClassOptions classes;

  @Option(
      names = "--match",
      paramLabel = "PATTERN",
      required = true,
      description = {
        "The SCAN pattern, such as 'board:*' ('*' for every key).",
        "\\xNN stands for a byte, as binary keys are printed: '\\xac\\xed*' for JDK-serialized keys."
      })
  String match;

  @Option(
      names = "--count",
      paramLabel = "N",
      defaultValue = "1000",
      description = "The SCAN COUNT hint: keys per page (default: ${DEFAULT-VALUE}).")
  int count;

  @Option(
      names = "--limit",
      paramLabel = "N",
      description = "Stop after N keys (default: no limit).")
  Long limit;

  @Option(
      names = "--progress-every",
      paramLabel = "N",
      defaultValue = "100000",
      description = {
        "When stderr is not a terminal, print a progress line every N keys (default: ${DEFAULT-VALUE});",
        "on a terminal the line is redrawn after every page, with the share done and the time left."
      })
  long progressEvery;

  @Option(names = "--json", description = "Print the report as JSON.")
  boolean json;

  @Option(
      names = "--legacy",
      paramLabel = "FORMAT",
      defaultValue = "auto",
      converter = LegacyFormat.Converter.class,
      description =
          "How to read values without an envelope: auto, or a codec's name as for inspect (default: ${DEFAULT-VALUE}).")
  LegacyFormat legacy;

  private record Sized(String key, String type, long bytes, @Nullable String format) {}

  @Override
  public Integer call() {
    if (count < 1) {
      throw new ParameterException(spec.commandLine(), "--count must be at least 1, got " + count);
    }
    if (limit != null && limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
    }
    if (progressEvery < 1) {
      throw new ParameterException(
          spec.commandLine(), "--progress-every must be at least 1, got " + progressEvery);
    }
    if (legacy.needsType() && !classes.hasType()) {
      throw new ParameterException(spec.commandLine(), legacy.needsTypeMessage());
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try {
      classes.check();
    } catch (InspectException e) {
      err.println("stowage scan: " + e.getMessage());
      return 1;
    }
    try (RedisOption.RedisSession session = redis.connect(spec)) {
      ObjectNode report = scan(session, err);
      out.println(json ? JsonLayout.pretty(report) : text(report, Terminal.detect()));
      out.flush();
      return 0;
    } catch (StowageException | RedisException e) {
      err.println("stowage scan: " + e.getMessage());
      return 1;
    }
  }

  private ObjectNode scan(RedisOption.RedisSession session, PrintWriter err) {
    RedisClusterCommands<byte[], byte[]> sync = session.sync();
    RedisClusterAsyncCommands<byte[], byte[]> async = session.async();
    ValueReader reader = new ValueReader(session::inspector, classes, legacy);
    boolean terminal = Terminal.stderrIsTerminal();
    ScanProgress progress = new ScanProgress(databaseSize(sync), limit, System::nanoTime);
    Map<String, Long> byType = new TreeMap<>();
    Tally tally = new Tally();
    long feeds = 0;
    long[] sizes = new long[1024];
    int sized = 0;
    long total = 0;
    long keys = 0;
    PriorityQueue<Sized> biggest = new PriorityQueue<>(Comparator.comparingLong(Sized::bytes));
    Set<ByteBuffer> seen = new HashSet<>();
    ScanArgs args = ScanArgs.Builder.matches(KeyNames.pattern(match)).limit(count);
    ScanCursor cursor = ScanCursor.INITIAL;
    long nextProgress = progressEvery;
    do {
      KeyScanCursor<byte[]> page = sync.scan(cursor, args);
      cursor = page;
      List<byte[]> pageKeys = new ArrayList<>();
      for (byte[] key : page.getKeys()) {
        if ((limit == null || keys + pageKeys.size() < limit) && seen.add(ByteBuffer.wrap(key))) {
          pageKeys.add(key);
        }
      }
      List<RedisFuture<String>> types = new ArrayList<>(pageKeys.size());
      List<RedisFuture<Long>> memory = new ArrayList<>(pageKeys.size());
      for (byte[] key : pageKeys) {
        types.add(async.type(key));
        memory.add(async.memoryUsage(key));
      }
      List<RedisFuture<byte[]>> values = new ArrayList<>(pageKeys.size());
      List<CompletableFuture<List<byte[]>>> samples = new ArrayList<>(pageKeys.size());
      List<RedisFuture<List<ScoredValue<byte[]>>>> scored = new ArrayList<>(pageKeys.size());
      for (int i = 0; i < pageKeys.size(); i++) {
        byte[] key = pageKeys.get(i);
        String type = await(types.get(i));
        values.add("string".equals(type) ? async.get(key) : null);
        samples.add(sample(async, key, type));
        scored.add(
            "zset".equals(type) ? async.zrangeWithScores(key, 0, MEMBERS_SAMPLED - 1) : null);
      }
      List<RedisFuture<String>> firstBuckets = new ArrayList<>(pageKeys.size());
      List<String> firstBucketTypes = new ArrayList<>(pageKeys.size());
      List<RedisFuture<List<byte[]>>> sealedIndex = new ArrayList<>(pageKeys.size());
      for (int i = 0; i < pageKeys.size(); i++) {
        List<ScoredValue<byte[]>> first = scored.get(i) == null ? null : await(scored.get(i));
        byte[] firstMember =
            first != null && FeedLayout.looksLikeIndex(first) ? first.get(0).getValue() : null;
        firstBuckets.add(
            firstMember == null
                ? null
                : async.type(FeedLayout.keyOf(pageKeys.get(i), firstMember)));
        firstBucketTypes.add(firstMember == null ? "" : FeedLayout.typeOf(firstMember));
        // a string named <feed>:s:<n> is a sealed bucket when its feed's index says so
        FeedLayout.SealedKey sealed =
            values.get(i) == null ? null : FeedLayout.parseSealedKey(pageKeys.get(i));
        sealedIndex.add(
            sealed == null
                ? null
                : async.zrangebyscore(
                    sealed.feedKey(), Range.create(sealed.bucket(), sealed.bucket())));
      }
      for (int i = 0; i < pageKeys.size(); i++) {
        String key = KeyNames.show(pageKeys.get(i));
        String type = await(types.get(i));
        if ("none".equals(type)) {
          continue; // expired or deleted since SCAN returned it
        }
        keys++;
        byType.merge(type, 1L, Long::sum);
        Long bytes = await(memory.get(i));
        String format = null;
        if (values.get(i) != null && key.startsWith(Inspector.Keys.DICTIONARY_PREFIX)) {
          await(values.get(i));
          format = "zstd dictionary";
          tally.byFormat.merge(format, 1L, Long::sum);
        } else if (values.get(i) != null && key.startsWith(Inspector.Keys.SCHEMA_PREFIX)) {
          await(values.get(i));
          format = "value schema";
          tally.byFormat.merge(format, 1L, Long::sum);
        } else if (values.get(i) != null
            && sealedIndex.get(i) != null
            && FeedLayout.indexSaysSealed(
                awaitOrNull(sealedIndex.get(i)),
                requireNonNull(FeedLayout.parseSealedKey(pageKeys.get(i))).bucket())) {
          byte[] value = await(values.get(i));
          if (value != null) {
            format = tally.sealed(key, reader, reader.readSealed(value));
          }
        } else if (values.get(i) != null) {
          byte[] value = await(values.get(i));
          if (value != null) {
            format = tally.count(tally.byFormat, key, null, reader.describe(value));
          }
        } else if (firstBuckets.get(i) != null
            && firstBucketTypes.get(i).equals(await(firstBuckets.get(i)))) {
          feeds++;
          format = "feed index";
        } else {
          List<byte[]> members = new ArrayList<>();
          if (samples.get(i) != null) {
            members.addAll(orEmpty(await(samples.get(i))));
          } else if (scored.get(i) != null) {
            orEmpty(await(scored.get(i))).forEach(member -> members.add(member.getValue()));
          }
          for (byte[] member : members.subList(0, Math.min(MEMBERS_SAMPLED, members.size()))) {
            tally.membersSampled++;
            String memberFormat =
                tally.count(
                    tally.membersByFormat,
                    key,
                    "a member",
                    reader.describeElement(member, "score"));
            format = format == null || format.equals(memberFormat) ? memberFormat : "mixed";
          }
        }
        if (bytes != null) {
          if (sized == sizes.length) {
            sizes = Arrays.copyOf(sizes, sized * 2);
          }
          sizes[sized++] = bytes;
          total += bytes;
          biggest.add(new Sized(key, type, bytes, format));
          if (biggest.size() > BIGGEST) {
            biggest.poll();
          }
        }
      }
      progress.update(keys, cursor.getCursor());
      if (terminal) {
        err.print("\r" + progress.line() + "\u001b[K");
        err.flush();
      } else if (keys >= nextProgress) {
        err.println(progress.line());
        err.flush();
        nextProgress = (keys / progressEvery + 1) * progressEvery;
      }
    } while (!cursor.isFinished() && (limit == null || keys < limit));
    if (terminal) {
      err.print("\r\u001b[K");
      err.flush();
    }

    ObjectNode report = NODES.objectNode();
    report.put("match", match);
    report.put("keys", keys);
    report.put("complete", cursor.isFinished());
    report.set("byType", counts(byType));
    report.set("byFormat", counts(tally.byFormat));
    report.put("membersSampled", tally.membersSampled);
    report.set("membersByFormat", counts(tally.membersByFormat));
    report.put("feeds", feeds);
    ObjectNode memoryNode = report.putObject("memoryUsage");
    long[] sorted = Arrays.copyOf(sizes, sized);
    Arrays.sort(sorted);
    memoryNode.put("keys", sized);
    memoryNode.put("total", total);
    memoryNode.put("p50", percentile(sorted, 50));
    memoryNode.put("p90", percentile(sorted, 90));
    memoryNode.put("p99", percentile(sorted, 99));
    memoryNode.put("max", sized == 0 ? 0 : sorted[sized - 1]);
    ArrayNode top = report.putArray("biggest");
    List<Sized> ordered = new ArrayList<>(biggest);
    ordered.sort(Comparator.comparingLong(Sized::bytes).reversed().thenComparing(Sized::key));
    for (Sized entry : ordered) {
      ObjectNode row =
          top.addObject()
              .put("key", entry.key())
              .put("type", entry.type())
              .put("memoryUsage", entry.bytes());
      if (entry.format() != null) {
        row.put("format", entry.format());
      }
    }
    report.put("failureCount", tally.failureCount);
    report.set("failures", tally.failures);
    report.set("needClasses", counts(tally.needs));
    return report;
  }

  /** What the values and sampled members read so far were. */
  private static final class Tally {
    final Map<String, Long> byFormat = new TreeMap<>();
    final Map<String, Long> membersByFormat = new TreeMap<>();
    final Map<String, Long> needs = new TreeMap<>();
    final ArrayNode failures = NODES.arrayNode();
    long failureCount;
    long membersSampled;

    /**
     * Counts a sealed feed bucket: under {@code sealed feed bucket+<compression>} among the
     * strings, and its first {@value #MEMBERS_SAMPLED} members among the collection members, as a
     * bucket list's elements are; a bucket that cannot be read counts as a failure.
     *
     * @return the bucket's format, {@code sealed feed bucket+<compression>}
     */
    String sealed(String key, ValueReader reader, ValueReader.Sealed read) {
      ObjectNode envelope = read.description();
      String format = SEALED_FORMAT + "+" + envelope.path("compression").asText("?");
      byFormat.merge(format, 1L, Long::sum);
      List<byte[]> members = read.members();
      if (members == null) {
        failureCount++;
        if (failures.size() < FAILURES_LISTED) {
          failures
              .addObject()
              .put("key", key)
              .put("format", format)
              .put("reason", "sealed bucket cannot be read: " + envelope.path("error").asText());
        }
        return format;
      }
      for (byte[] member : members.subList(0, Math.min(MEMBERS_SAMPLED, members.size()))) {
        membersSampled++;
        count(membersByFormat, key, "a member", reader.describeElement(member, "score"));
      }
      return format;
    }

    /**
     * Counts a described value (or member, when {@code member} says which) under its format in
     * {@code formats}, and as a failure or a value that needs classes.
     *
     * @return the format, such as {@code json+zstd} or {@code legacy text}
     */
    String count(
        Map<String, Long> formats, String key, @Nullable String member, ObjectNode described) {
      boolean envelope = "envelope".equals(described.path("format").asText());
      String format =
          !envelope
              ? "legacy " + described.path("legacy").asText("?")
              : described.has("codec")
                  ? described.get("codec").asText()
                      + "+"
                      + described.path("compression").asText("?")
                  : "malformed envelope";
      formats.merge(format, 1L, Long::sum);
      if (described.has("error")) {
        failureCount++;
        if (failures.size() < FAILURES_LISTED) {
          ObjectNode failure = failures.addObject().put("key", key);
          if (member != null) {
            failure.put(
                "member",
                described.has("score") ? "score " + described.get("score").asLong() : member);
          }
          failure.put("format", format).put("reason", described.get("error").asText());
        }
      } else if (described.has("missing") && !described.has("value")) {
        needs.merge(described.get("missing").asText(), 1L, Long::sum);
      }
      return format;
    }
  }

  /**
   * Up to {@value #MEMBERS_SAMPLED} members of a list (the first), a hash (the values of one {@code
   * HSCAN} page from the start) or a set (one {@code SSCAN} page); null for other types.
   */
  private static @Nullable CompletableFuture<List<byte[]>> sample(
      RedisClusterAsyncCommands<byte[], byte[]> async, byte[] key, String type) {
    ScanArgs page = ScanArgs.Builder.limit(MEMBERS_SAMPLED);
    return switch (type) {
      case "list" -> async.lrange(key, 0, MEMBERS_SAMPLED - 1).toCompletableFuture();
      case "hash" ->
          async
              .hscan(key, ScanCursor.INITIAL, page)
              .thenApply(scanned -> (List<byte[]>) new ArrayList<>(scanned.getMap().values()))
              .toCompletableFuture();
      case "set" ->
          async
              .sscan(key, ScanCursor.INITIAL, page)
              .thenApply(ValueScanCursor::getValues)
              .toCompletableFuture();
      default -> null;
    };
  }

  private static <T> List<T> orEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }

  /**
   * {@code DBSIZE}, or -1 when the server refuses it (an ACL, say): only the progress line needs
   * it.
   */
  private static long databaseSize(RedisClusterCommands<byte[], byte[]> sync) {
    try {
      Long size = sync.dbsize();
      return size == null ? -1 : size;
    } catch (RedisException e) {
      return -1;
    }
  }

  /** The nearest-rank percentile of ascending values; 0 when there are none. */
  static long percentile(long[] ascending, int percent) {
    if (ascending.length == 0) {
      return 0;
    }
    int rank = (int) Math.ceil(percent / 100.0 * ascending.length);
    return ascending[Math.max(0, rank - 1)];
  }

  private static ObjectNode counts(Map<String, Long> counts) {
    ObjectNode node = NODES.objectNode();
    counts.forEach(node::put);
    return node;
  }

  private static <T> T await(Future<T> future) {
    try {
      return future.get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InspectException("interrupted while scanning", e);
    } catch (ExecutionException e) {
      Throwable cause = requireNonNull(e.getCause());
      throw new InspectException("Redis failed during the scan: " + cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new InspectException("Redis did not answer within 60 seconds during the scan", e);
    }
  }

  /**
   * As {@link #await}, but null when Redis answers with an error: a key of another type than the
   * command's.
   */
  private static <T> @Nullable T awaitOrNull(Future<T> future) {
    try {
      return await(future);
    } catch (InspectException e) {
      if (e.getCause() instanceof RedisException) {
        return null;
      }
      throw e;
    }
  }

  private static String text(ObjectNode report, Terminal terminal) {
    StringBuilder text = new StringBuilder();
    text.append(
            terminal.bold(
                report.get("keys").asLong() + " keys match " + report.get("match").asText()))
        .append(report.get("complete").asBoolean() ? "" : " (stopped at --limit)")
        .append('\n');
    section(text, terminal, "by type", report.get("byType"));
    section(text, terminal, "strings by codec and compression", report.get("byFormat"));
    if (report.get("membersSampled").asLong() > 0) {
      section(
          text,
          terminal,
          "collection members by codec and compression ("
              + report.get("membersSampled").asLong()
              + " sampled, at most "
              + MEMBERS_SAMPLED
              + " per key)",
          report.get("membersByFormat"));
    }
    if (report.get("feeds").asLong() > 0) {
      text.append(terminal.bold("feeds"))
          .append(
              String.format(
                  "  %,d (sorted sets indexing bucket lists and sealed buckets, whose entries are sampled above)%n",
                  report.get("feeds").asLong()));
    }
    ObjectNode memory = (ObjectNode) report.get("memoryUsage");
    text.append(terminal.bold("memory usage"))
        .append(
            String.format(
                "  total %,d bytes · p50 %,d · p90 %,d · p99 %,d · max %,d%n",
                memory.get("total").asLong(),
                memory.get("p50").asLong(),
                memory.get("p90").asLong(),
                memory.get("p99").asLong(),
                memory.get("max").asLong()));
    text.append(terminal.bold("biggest keys")).append('\n');
    report
        .get("biggest")
        .forEach(
            row ->
                text.append(
                    String.format(
                        "  %,12d  %-6s %-18s %s%n",
                        row.get("memoryUsage").asLong(),
                        row.get("type").asText(),
                        row.path("format").asText(""),
                        row.get("key").asText())));
    if (!report.get("needClasses").isEmpty()) {
      text.append(terminal.bold("not decoded without classes")).append('\n');
      report
          .get("needClasses")
          .fields()
          .forEachRemaining(
              e -> text.append(String.format("  %,8d  %s%n", e.getValue().asLong(), e.getKey())));
    }
    text.append(terminal.bold("failed to decode: " + report.get("failureCount").asLong()))
        .append('\n');
    report
        .get("failures")
        .forEach(
            row ->
                text.append("  ")
                    .append(terminal.error(row.get("key").asText()))
                    .append(row.has("member") ? " (" + row.get("member").asText() + ")" : "")
                    .append(": ")
                    .append(row.get("reason").asText())
                    .append('\n'));
    return text.toString().stripTrailing();
  }

  private static void section(
      StringBuilder text, Terminal terminal, String title, JsonNode counts) {
    text.append(terminal.bold(title)).append('\n');
    counts
        .fields()
        .forEachRemaining(
            e -> text.append(String.format("  %,8d  %s%n", e.getValue().asLong(), e.getKey())));
  }
}
