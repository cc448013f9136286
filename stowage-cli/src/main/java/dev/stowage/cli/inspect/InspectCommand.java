package dev.stowage.cli.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stowage.StowageException;
import dev.stowage.cli.json.JsonLayout;
import dev.stowage.compress.DictionaryStore;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ValueScanCursor;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stowage inspect KEY…}: shows each key's values as JSON whatever codec and compression
 * wrote them, with the envelope's header and the sizes. Strings are one value; hashes, lists,
 * sets and sorted sets are shown member by member. Exit code 1 when a key does not exist.
 */
@Command(name = "inspect", mixinStandardHelpOptions = true,
    description = {"Show Redis values as JSON, whatever codec and compression wrote them.",
        "Kryo, Fory, Protobuf, Avro, Thrift and JDK values need --type (and --classpath)."})
public final class InspectCommand implements Callable<Integer> {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Spec CommandSpec spec;
  @Mixin RedisOption redis;
  @Mixin ClassOptions classes;

  @Parameters(arity = "1..*", paramLabel = "KEY", description = "The keys to show.")
  List<String> keys;

  @Option(names = "--json", description = "Print one JSON array, an object per key, instead of text.")
  boolean json;

  @Option(names = "--legacy", paramLabel = "FORMAT", defaultValue = "auto",
      description = "How to read values without an envelope: auto, json, jdk or string (default: ${DEFAULT-VALUE};"
          + " auto tries JDK serialization, then JSON, then UTF-8 text, then shows hex).")
  ValueReader.Legacy legacy;

  @Option(names = "--members", paramLabel = "N", defaultValue = "100",
      description = "Show at most N members of a hash, list, set or sorted set (default: ${DEFAULT-VALUE}).")
  int members;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (members < 1) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--members must be at least 1, got " + members);
    }
    Terminal terminal = Terminal.detect();
    try (RedisOption.RedisSession session = redis.connect(spec)) {
      RedisCommands<byte[], byte[]> commands = session.connection().sync();
      ValueReader reader = new ValueReader(new DictionaryStore(session.connection()), classes, legacy);
      ArrayNode all = NODES.arrayNode();
      int missing = 0;
      for (String key : keys) {
        ObjectNode described = describeKey(commands, reader, key);
        if ("none".equals(described.path("type").asText())) {
          missing++;
          err.println("stowage inspect: no key '" + key + "' in " + session.url());
        }
        if (json) {
          all.add(described);
        } else if (!"none".equals(described.path("type").asText())) {
          printKey(out, terminal, described);
        }
      }
      if (json) {
        out.println(JsonLayout.pretty(all));
      }
      out.flush();
      return missing == 0 ? 0 : 1;
    } catch (StowageException | RedisException e) {
      err.println("stowage inspect: " + e.getMessage());
      return 1;
    }
  }

  ObjectNode describeKey(RedisCommands<byte[], byte[]> commands, ValueReader reader, String key) {
    byte[] k = key.getBytes(StandardCharsets.UTF_8);
    ObjectNode node = NODES.objectNode();
    node.put("key", key);
    String type = commands.type(k);
    node.put("type", type);
    if ("none".equals(type)) {
      return node;
    }
    try {
      Long memory = commands.memoryUsage(k);
      if (memory != null) {
        node.put("memoryUsage", memory);
      }
    } catch (RedisException e) {
      node.put("memoryUsage", (String) null);
    }
    ScanArgs page = ScanArgs.Builder.limit(Math.min(members, 1000));
    switch (type) {
      case "string" -> {
        byte[] value = commands.get(k);
        if (value == null) {
          node.put("type", "none");
          return node;
        }
        node.setAll(reader.describe(value));
      }
      case "hash" -> {
        node.put("length", commands.hlen(k));
        ArrayNode entries = node.putArray("entries");
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
          MapScanCursor<byte[], byte[]> scanned = commands.hscan(k, cursor, page);
          for (Map.Entry<byte[], byte[]> entry : scanned.getMap().entrySet()) {
            if (entries.size() < members) {
              ObjectNode member = entries.addObject().put("field", text(entry.getKey()));
              member.setAll(reader.describe(entry.getValue()));
            }
          }
          cursor = scanned;
        } while (!cursor.isFinished() && entries.size() < members);
      }
      case "list" -> {
        node.put("length", commands.llen(k));
        ArrayNode entries = node.putArray("entries");
        List<byte[]> values = commands.lrange(k, 0, members - 1);
        for (int i = 0; i < values.size(); i++) {
          entries.addObject().put("index", i).setAll(reader.describe(values.get(i)));
        }
      }
      case "set" -> {
        node.put("length", commands.scard(k));
        ArrayNode entries = node.putArray("entries");
        ScanCursor cursor = ScanCursor.INITIAL;
        List<byte[]> values = new ArrayList<>();
        do {
          ValueScanCursor<byte[]> scanned = commands.sscan(k, cursor, page);
          values.addAll(scanned.getValues());
          cursor = scanned;
        } while (!cursor.isFinished() && values.size() < members);
        for (byte[] value : values.subList(0, Math.min(members, values.size()))) {
          entries.add(reader.describe(value));
        }
      }
      case "zset" -> {
        node.put("length", commands.zcard(k));
        ArrayNode entries = node.putArray("entries");
        for (ScoredValue<byte[]> scored : commands.zrevrangeWithScores(k, 0, members - 1)) {
          entries.addObject().put("score", scored.getScore()).setAll(reader.describe(scored.getValue()));
        }
      }
      default -> node.put("missing", "a " + type + " is not shown by the inspector");
    }
    JsonNode length = node.get("length");
    if (length != null && length.asLong() > members) {
      node.put("truncated", "first " + members + " of " + length.asLong() + " members shown (--members)");
    }
    return node;
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  private void printKey(PrintWriter out, Terminal terminal, ObjectNode key) {
    StringBuilder title = new StringBuilder(terminal.bold(key.path("key").asText()))
        .append("  ").append(key.path("type").asText());
    if (key.hasNonNull("memoryUsage")) {
      title.append(" · ").append(key.get("memoryUsage").asLong()).append(" bytes in Redis memory");
    }
    if (key.has("length")) {
      title.append(" · ").append(key.get("length").asLong()).append(" members");
    }
    out.println(title);
    if (key.has("entries")) {
      for (JsonNode entry : key.get("entries")) {
        String label = entry.has("field") ? "field " + entry.get("field").asText()
            : entry.has("score") ? "score " + number(entry.get("score"))
            : entry.has("index") ? "index " + entry.get("index").asInt() : "member";
        out.println("  " + terminal.bold(label));
        printValue(out, terminal, entry, "    ");
      }
      if (key.has("truncated")) {
        out.println("  " + terminal.dim(key.get("truncated").asText()));
      }
    } else if (key.has("format")) {
      printValue(out, terminal, key, "  ");
    } else if (key.has("missing")) {
      out.println("  " + terminal.warn(key.get("missing").asText()));
    }
    out.println();
  }

  private static String number(JsonNode score) {
    double value = score.asDouble();
    return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value) : Double.toString(value);
  }

  static void printValue(PrintWriter out, Terminal terminal, JsonNode value, String indent) {
    StringBuilder line = new StringBuilder();
    if ("envelope".equals(value.path("format").asText())) {
      line.append(value.has("header") ? value.get("header").asText() : "envelope");
    } else {
      line.append("no envelope, ").append(value.path("legacy").asText("unreadable"));
      if (value.has("writer")) {
        line.append(" (").append(value.get("writer").asText()).append(')');
      }
    }
    line.append(" · ").append(value.path("storedSize").asLong()).append(" bytes stored");
    if (value.has("decodedSize")) {
      line.append(", ").append(value.get("decodedSize").asLong()).append(" decoded");
    }
    out.println(indent + line);
    if (value.has("class")) {
      out.println(indent + "class " + value.get("class").asText());
    }
    if (value.has("fields")) {
      for (JsonNode field : value.get("fields")) {
        out.println(indent + "  " + field.path("type").asText() + " " + field.path("name").asText());
      }
    }
    if (value.has("error")) {
      out.println(indent + terminal.error("error: " + value.get("error").asText()));
    }
    if (value.has("missing")) {
      out.println(indent + terminal.warn(value.get("missing").asText()));
    }
    if (value.has("value")) {
      JsonNode shown = value.get("value");
      String text = shown.isTextual() && !"json".equals(value.path("legacy").asText())
          && !"json".equals(value.path("codec").asText()) ? shown.asText() : JsonLayout.pretty(shown);
      for (String row : text.split("\n", -1)) {
        out.println(indent + row);
      }
    } else if (value.has("hex")) {
      for (String row : value.get("hex").asText().split("\n")) {
        out.println(indent + terminal.dim(row));
      }
      if (value.has("strings") && !value.get("strings").isEmpty()) {
        List<String> strings = new ArrayList<>();
        value.get("strings").forEach(s -> strings.add(s.asText()));
        out.println(indent + "strings: " + String.join(", ", strings));
      }
    }
  }
}
