package dev.stowage.cli.inspect;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stowage.StowageException;
import dev.stowage.cli.json.JsonLayout;
import dev.stowage.compress.DictionaryStore;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code stowage scan}: walks the keys matching a pattern with {@code SCAN} (never {@code KEYS})
 * and reports them by type and by codec and compression, their {@code MEMORY USAGE} (total and
 * percentiles), the biggest keys, and the string values that fail to decode. Each page of keys is
 * read with one pipeline.
 */
@Command(name = "scan", mixinStandardHelpOptions = true,
    description = "Report the keys matching a pattern: types, codecs, compression, memory, failures (SCAN, never KEYS).")
public final class ScanCommand implements Callable<Integer> {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final int BIGGEST = 10;
  private static final int FAILURES_LISTED = 100;

  @Spec CommandSpec spec;
  @Mixin RedisOption redis;
  @Mixin ClassOptions classes;

  @Option(names = "--match", paramLabel = "PATTERN", required = true,
      description = "The SCAN pattern, such as 'board:*' ('*' for every key).")
  String match;

  @Option(names = "--count", paramLabel = "N", defaultValue = "1000",
      description = "The SCAN COUNT hint: keys per page (default: ${DEFAULT-VALUE}).")
  int count;

  @Option(names = "--limit", paramLabel = "N", description = "Stop after N keys (default: no limit).")
  Long limit;

  @Option(names = "--progress-every", paramLabel = "N", defaultValue = "100000",
      description = "When stderr is not a terminal, print progress every N keys (default: ${DEFAULT-VALUE}).")
  long progressEvery;

  @Option(names = "--json", description = "Print the report as JSON.")
  boolean json;

  @Option(names = "--legacy", paramLabel = "FORMAT", defaultValue = "auto",
      description = "How to read values without an envelope: auto, json, jdk or string (default: ${DEFAULT-VALUE}).")
  ValueReader.Legacy legacy;

  private record Sized(String key, String type, long bytes, String format) {}

  @Override
  public Integer call() {
    if (count < 1) {
      throw new ParameterException(spec.commandLine(), "--count must be at least 1, got " + count);
    }
    if (limit != null && limit < 1) {
      throw new ParameterException(spec.commandLine(), "--limit must be at least 1, got " + limit);
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
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
    RedisCommands<byte[], byte[]> sync = session.connection().sync();
    RedisAsyncCommands<byte[], byte[]> async = session.connection().async();
    ValueReader reader = new ValueReader(new DictionaryStore(session.connection()), classes, legacy);
    boolean terminal = System.console() != null;
    Map<String, Long> byType = new TreeMap<>();
    Map<String, Long> byFormat = new TreeMap<>();
    Map<String, Long> needs = new TreeMap<>();
    ArrayNode failures = NODES.arrayNode();
    long failureCount = 0;
    long[] sizes = new long[1024];
    int sized = 0;
    long total = 0;
    long keys = 0;
    PriorityQueue<Sized> biggest = new PriorityQueue<>(Comparator.comparingLong(Sized::bytes));
    Set<ByteBuffer> seen = new HashSet<>();
    ScanArgs args = ScanArgs.Builder.matches(match).limit(count);
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
      for (int i = 0; i < pageKeys.size(); i++) {
        values.add("string".equals(await(types.get(i))) ? async.get(pageKeys.get(i)) : null);
      }
      for (int i = 0; i < pageKeys.size(); i++) {
        String key = new String(pageKeys.get(i), StandardCharsets.UTF_8);
        String type = await(types.get(i));
        if ("none".equals(type)) {
          continue; // expired or deleted since SCAN returned it
        }
        keys++;
        byType.merge(type, 1L, Long::sum);
        Long bytes = await(memory.get(i));
        String format = null;
        if (values.get(i) != null && key.startsWith(DictionaryStore.KEY_PREFIX)) {
          await(values.get(i));
          format = "zstd dictionary";
          byFormat.merge(format, 1L, Long::sum);
        } else if (values.get(i) != null) {
          byte[] value = await(values.get(i));
          if (value != null) {
            ObjectNode described = reader.describe(value);
            format = "envelope".equals(described.path("format").asText())
                ? described.path("codec").asText("malformed") + "+" + described.path("compression").asText("?")
                : "legacy " + described.path("legacy").asText("?");
            if (!described.has("codec") && "envelope".equals(described.path("format").asText())) {
              format = "malformed envelope";
            }
            byFormat.merge(format, 1L, Long::sum);
            if (described.has("error")) {
              failureCount++;
              if (failures.size() < FAILURES_LISTED) {
                failures.addObject().put("key", key).put("format", format).put("reason", described.get("error").asText());
              }
            } else if (described.has("missing") && !described.has("value")) {
              needs.merge(described.get("missing").asText(), 1L, Long::sum);
            }
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
      if (terminal) {
        err.print("\rscanned " + keys + " keys");
        err.flush();
      } else if (keys >= nextProgress) {
        err.println("scanned " + keys + " keys");
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
    report.set("byFormat", counts(byFormat));
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
      ObjectNode row = top.addObject().put("key", entry.key()).put("type", entry.type()).put("memoryUsage", entry.bytes());
      if (entry.format() != null) {
        row.put("format", entry.format());
      }
    }
    report.put("failureCount", failureCount);
    report.set("failures", failures);
    report.set("needClasses", counts(needs));
    return report;
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

  private static <T> T await(RedisFuture<T> future) {
    try {
      return future.get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InspectException("interrupted while scanning", e);
    } catch (ExecutionException e) {
      throw new InspectException("Redis failed during the scan: " + e.getCause().getMessage(), e.getCause());
    } catch (TimeoutException e) {
      throw new InspectException("Redis did not answer within 60 seconds during the scan", e);
    }
  }

  private static String text(ObjectNode report, Terminal terminal) {
    StringBuilder text = new StringBuilder();
    text.append(terminal.bold(report.get("keys").asLong() + " keys match " + report.get("match").asText()))
        .append(report.get("complete").asBoolean() ? "" : " (stopped at --limit)").append('\n');
    section(text, terminal, "by type", report.get("byType"));
    section(text, terminal, "strings by codec and compression", report.get("byFormat"));
    ObjectNode memory = (ObjectNode) report.get("memoryUsage");
    text.append(terminal.bold("memory usage")).append(String.format(
        "  total %,d bytes · p50 %,d · p90 %,d · p99 %,d · max %,d%n", memory.get("total").asLong(),
        memory.get("p50").asLong(), memory.get("p90").asLong(), memory.get("p99").asLong(), memory.get("max").asLong()));
    text.append(terminal.bold("biggest keys")).append('\n');
    report.get("biggest").forEach(row -> text.append(String.format("  %,12d  %-6s %-18s %s%n",
        row.get("memoryUsage").asLong(), row.get("type").asText(), row.path("format").asText(""), row.get("key").asText())));
    if (!report.get("needClasses").isEmpty()) {
      text.append(terminal.bold("not decoded without classes")).append('\n');
      report.get("needClasses").fields().forEachRemaining(e ->
          text.append(String.format("  %,8d  %s%n", e.getValue().asLong(), e.getKey())));
    }
    text.append(terminal.bold("failed to decode: " + report.get("failureCount").asLong())).append('\n');
    report.get("failures").forEach(row -> text.append("  ").append(terminal.error(row.get("key").asText()))
        .append(": ").append(row.get("reason").asText()).append('\n'));
    return text.toString().stripTrailing();
  }

  private static void section(StringBuilder text, Terminal terminal, String title, com.fasterxml.jackson.databind.JsonNode counts) {
    text.append(terminal.bold(title)).append('\n');
    counts.fields().forEachRemaining(e -> text.append(String.format("  %,8d  %s%n", e.getValue().asLong(), e.getKey())));
  }
}
