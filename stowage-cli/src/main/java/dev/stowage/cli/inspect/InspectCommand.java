package dev.stowage.cli.inspect;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stowage.Inspector;
import dev.stowage.StowageException;
import dev.stowage.cli.json.JsonLayout;
import io.lettuce.core.MapScanCursor;
import io.lettuce.core.Range;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ValueScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stowage inspect KEY…}: shows each key's values as JSON whatever codec and compression
 * wrote them, with the envelope's header and the sizes. Strings are one value; hashes, lists, sets
 * and sorted sets are shown member by member, and a member that is a feed entry (a score, then an
 * envelope) with its score ({@code score}; in a sorted set, {@code entryScore} beside the set's own
 * {@code score}). The index of a {@linkplain FeedLayout feed} is shown as the feed: type {@code
 * feed}, its number of entries and buckets, the memory of the index and its buckets together, and
 * its newest entries. A binary key (one a default {@code RedisTemplate} wrote with JDK
 * serialization, say) is given in hex with {@code --key-hex} and shown escaped ({@link KeyNames}).
 * Exit code 1 when a key does not exist, 2 for a usage error.
 */
@Command(
    name = "inspect",
    mixinStandardHelpOptions = true,
    description = {
      "Show Redis values as JSON, whatever codec and compression wrote them.",
      "Kryo, Fory, Protobuf, Avro, Thrift and JDK values need --type (and --classpath)."
    })
public final class InspectCommand implements Callable<Integer> {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Spec CommandSpec spec;
  @Mixin RedisOption redis;
  @Mixin ClassOptions classes;

  @Parameters(arity = "0..*", paramLabel = "KEY", description = "The keys to show.")
  List<String> keys = new ArrayList<>();

  @Option(
      names = "--key-hex",
      paramLabel = "HEX",
      description = {
        "A key to show, in hex: for binary keys, such as those a default RedisTemplate wrote with JDK"
            + " serialization (aced0005...); repeatable.",
        "Binary keys are printed escaped, as scan prints them."
      })
  List<String> hexKeys = new ArrayList<>();

  @Option(
      names = "--json",
      description = "Print one JSON array, an object per key, instead of text.")
  boolean json;

  @Option(
      names = "--legacy",
      paramLabel = "FORMAT",
      defaultValue = "auto",
      converter = LegacyFormat.Converter.class,
      description = {
        "How to read values without an envelope: auto, or a codec: json, msgpack, msgpack-compact, kryo,"
            + " fory, protobuf, avro, thrift, jdk, fastjson2, string (default: ${DEFAULT-VALUE}; auto tries JDK"
            + " serialization, then JSON, then UTF-8 text, then shows hex).",
        "kryo, fory, protobuf, avro and thrift need --type."
      })
  LegacyFormat legacy;

  @Option(
      names = "--members",
      paramLabel = "N",
      defaultValue = "100",
      description =
          "Show at most N members of a hash, list, set or sorted set, or the newest N entries of a feed"
              + " (default: ${DEFAULT-VALUE}).")
  int members;

  // Opened by call() before anything reads a key with it.
  @SuppressWarnings("NullAway.Init")
  private RedisOption.RedisSession connection;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (keys.isEmpty() && hexKeys.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(), "Missing required parameter: 'KEY' (or --key-hex HEX)");
    }
    List<byte[]> named = new ArrayList<>();
    keys.forEach(key -> named.add(key.getBytes(StandardCharsets.UTF_8)));
    for (String hex : hexKeys) {
      try {
        named.add(KeyNames.hex("--key-hex", hex));
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), e.getMessage(), e);
      }
    }
    if (members < 1) {
      throw new ParameterException(
          spec.commandLine(), "--members must be at least 1, got " + members);
    }
    if (legacy.needsType() && !classes.hasType()) {
      throw new ParameterException(spec.commandLine(), legacy.needsTypeMessage());
    }
    Terminal terminal = Terminal.detect();
    try {
      classes.check();
    } catch (InspectException e) {
      err.println("stowage inspect: " + e.getMessage());
      return 1;
    }
    try (RedisOption.RedisSession session = redis.connect(spec)) {
      connection = session;
      RedisClusterCommands<byte[], byte[]> commands = session.sync();
      ValueReader reader = new ValueReader(session::inspector, classes, legacy);
      ArrayNode all = NODES.arrayNode();
      int missing = 0;
      for (byte[] key : named) {
        ObjectNode described = describeKey(commands, reader, key);
        if ("none".equals(described.path("type").asText())) {
          missing++;
          err.println("stowage inspect: no key '" + KeyNames.show(key) + "' in " + session.url());
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

  ObjectNode describeKey(
      RedisClusterCommands<byte[], byte[]> commands, ValueReader reader, byte[] k) {
    ObjectNode node = NODES.objectNode();
    node.put("key", KeyNames.show(k));
    if (KeyNames.isBinary(k)) {
      node.put("keyHex", HexFormat.of().formatHex(k));
    }
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
        FeedLayout.SealedKey sealed = FeedLayout.parseSealedKey(k);
        if (sealed != null
            && FeedLayout.indexSaysSealed(membersAtScore(commands, sealed), sealed.bucket())) {
          describeSealedBucket(reader, sealed, value, node);
        } else {
          node.setAll(reader.describe(value));
        }
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
              member.setAll(reader.describeElement(entry.getValue(), "score"));
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
          entries
              .addObject()
              .put("index", i)
              .setAll(reader.describeElement(values.get(i), "score"));
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
          entries.add(reader.describeElement(value, "score"));
        }
      }
      case "zset" -> {
        if (isFeedIndex(commands, k)) {
          describeFeed(commands, reader, k, node);
          break;
        }
        node.put("length", commands.zcard(k));
        ArrayNode entries = node.putArray("entries");
        for (ScoredValue<byte[]> scored : commands.zrevrangeWithScores(k, 0, members - 1)) {
          entries
              .addObject()
              .put("score", scored.getScore())
              .setAll(reader.describeElement(scored.getValue(), "entryScore"));
        }
      }
      default -> node.put("missing", "a " + type + " is not shown by the inspector");
    }
    JsonNode length = node.get("length");
    if (length != null && length.asLong() > members) {
      node.put(
          "truncated",
          "feed".equals(node.path("type").asText())
              ? "newest " + members + " of " + length.asLong() + " entries shown (--members)"
              : "first " + members + " of " + length.asLong() + " members shown (--members)");
    }
    return node;
  }

  /**
   * The members of the index a sealed bucket's key names, at the bucket's score; null when that key
   * is no sorted set.
   */
  private static @Nullable List<byte[]> membersAtScore(
      RedisClusterCommands<byte[], byte[]> commands, FeedLayout.SealedKey sealed) {
    try {
      return commands.zrangebyscore(
          sealed.feedKey(), Range.create(sealed.bucket(), sealed.bucket()));
    } catch (RedisCommandExecutionException e) {
      return null; // WRONGTYPE: a key of another type, so no feed's index
    }
  }

  /**
   * Whether a sorted set is a feed's index: see {@link FeedLayout#looksLikeIndex}, and its first
   * bucket is a list, or a string when the index says it is sealed.
   */
  private static boolean isFeedIndex(RedisClusterCommands<byte[], byte[]> commands, byte[] key) {
    List<ScoredValue<byte[]>> first = commands.zrangeWithScores(key, 0, 9);
    if (!FeedLayout.looksLikeIndex(first)) {
      return false;
    }
    byte[] member = first.get(0).getValue();
    return FeedLayout.typeOf(member).equals(commands.type(FeedLayout.keyOf(key, member)));
  }

  /**
   * A sealed bucket read as a key of its own: its envelope (header and sizes) and its entries,
   * oldest first, each with its index, its score and its value, as a bucket's list is shown; or why
   * it cannot be read.
   */
  private void describeSealedBucket(
      ValueReader reader, FeedLayout.SealedKey sealed, byte[] value, ObjectNode node) {
    node.put("type", "sealed bucket");
    node.put("feed", text(sealed.feedKey()));
    node.put("bucket", sealed.bucket());
    ValueReader.Sealed read = reader.readSealed(value);
    node.setAll(read.description());
    List<byte[]> stored = read.members();
    if (stored == null) {
      return;
    }
    node.put("length", stored.size());
    ArrayNode entries = node.putArray("entries");
    for (int i = 0; i < stored.size() && i < members; i++) {
      entries.addObject().put("index", i).setAll(feedEntry(reader, stored.get(i)));
    }
  }

  /**
   * The feed indexed by {@code key}: the number of its buckets and entries (an {@code LLEN} per
   * open bucket, pipelined; a sealed bucket's count is in its index member), the memory of the
   * index and the buckets, and its newest entries, walking the buckets from the newest as the
   * feed's own pages do. A sealed bucket's entries are shown as an open bucket's are; one that
   * cannot be read is shown as one entry with the bucket's number, its count and the error, and
   * stands for its count of entries.
   */
  private void describeFeed(
      RedisClusterCommands<byte[], byte[]> commands,
      ValueReader reader,
      byte[] key,
      ObjectNode node) {
    RedisClusterAsyncCommands<byte[], byte[]> async = connection.async();
    node.put("type", "feed");
    long indexMemory = node.path("memoryUsage").asLong(0);
    long buckets = commands.zcard(key);
    long entries = 0;
    long sealedBuckets = 0;
    long bucketMemory = 0;
    for (long from = 0; from < buckets; from += 1000) {
      List<byte[]> page = commands.zrange(key, from, from + 999);
      List<RedisFuture<Long>> lengths = new ArrayList<>(page.size());
      List<RedisFuture<Long>> memory = new ArrayList<>(page.size());
      for (byte[] bucket : page) {
        if (FeedLayout.bucketNumber(bucket) == null) {
          lengths.add(null); // not a bucket: a member a feed does not write
          memory.add(null);
          continue;
        }
        byte[] bucketKey = FeedLayout.keyOf(key, bucket);
        int sealed = FeedLayout.sealedCount(bucket);
        if (sealed > 0) {
          entries += sealed;
          sealedBuckets++;
          lengths.add(null);
        } else {
          lengths.add(async.llen(bucketKey));
        }
        memory.add(async.memoryUsage(bucketKey));
      }
      for (int i = 0; i < page.size(); i++) {
        entries += orZero(lengths.get(i));
        bucketMemory += orZero(memory.get(i));
      }
    }
    node.put("memoryUsage", indexMemory + bucketMemory);
    node.put("indexMemoryUsage", indexMemory);
    node.put("buckets", buckets);
    node.put("sealedBuckets", sealedBuckets);
    node.put("length", entries);
    ArrayNode shown = node.putArray("entries");
    long covered = 0; // entries shown, and those of sealed buckets that could not be read
    for (long from = 0; from < buckets && covered < members; from += 64) {
      for (byte[] bucket : commands.zrevrange(key, from, from + 63)) {
        if (FeedLayout.bucketNumber(bucket) == null) {
          continue;
        }
        byte[] bucketKey = FeedLayout.keyOf(key, bucket);
        int sealed = FeedLayout.sealedCount(bucket);
        List<byte[]> elements;
        if (sealed > 0) {
          elements = sealedMembers(commands, reader, bucketKey, bucket, sealed, shown);
          if (elements == null) {
            covered += sealed;
            if (covered >= members) {
              break;
            }
            continue;
          }
        } else {
          elements = commands.lrange(bucketKey, 0, -1);
        }
        for (int i = elements.size() - 1; i >= 0 && covered < members; i--) {
          shown.add(feedEntry(reader, elements.get(i)));
          covered++;
        }
        if (covered >= members) {
          break;
        }
      }
    }
  }

  /**
   * The members of a sealed bucket, oldest first; null, with an entry saying why added to {@code
   * shown}, when it is missing or cannot be read. A bucket that holds another number of members
   * than its index member says is read all the same, after an entry saying so.
   */
  private static @Nullable List<byte[]> sealedMembers(
      RedisClusterCommands<byte[], byte[]> commands,
      ValueReader reader,
      byte[] sealedKey,
      byte[] indexMember,
      int count,
      ArrayNode shown) {
    long bucket = requireNonNull(FeedLayout.bucketNumber(indexMember));
    byte[] value = commands.get(sealedKey);
    if (value == null) {
      shown
          .addObject()
          .put("bucket", bucket)
          .put("sealedEntries", count)
          .put(
              "error",
              "sealed bucket "
                  + bucket
                  + " is missing: no key "
                  + text(sealedKey)
                  + ", though the index"
                  + " says it holds "
                  + count
                  + " entries");
      return null;
    }
    ValueReader.Sealed read = reader.readSealed(value);
    List<byte[]> members = read.members();
    if (members == null) {
      ObjectNode failed = shown.addObject().put("bucket", bucket).put("sealedEntries", count);
      failed.setAll(read.description());
      failed.put(
          "error",
          "sealed bucket "
              + bucket
              + " ("
              + count
              + " entries, "
              + text(sealedKey)
              + ") cannot be read: "
              + read.description().path("error").asText());
      return null;
    }
    if (members.size() != count) {
      shown
          .addObject()
          .put("bucket", bucket)
          .put("sealedEntries", count)
          .put(
              "error",
              "sealed bucket "
                  + bucket
                  + " holds "
                  + members.size()
                  + " entries where its index says "
                  + count);
    }
    return members;
  }

  private static ObjectNode feedEntry(ValueReader reader, byte[] element) {
    long score = FeedLayout.score(element);
    if (score < 0) {
      ObjectNode entry =
          NODES
              .objectNode()
              .put("storedSize", element.length)
              .put(
                  "error", "not a feed entry: the element does not start with a well-formed score");
      ValueReader.showBytes(element, entry);
      return entry;
    }
    ObjectNode entry = NODES.objectNode().put("score", score);
    entry.setAll(reader.describe(Inspector.feedEntryValue(element).orElseThrow()));
    return entry;
  }

  private static long orZero(@Nullable RedisFuture<Long> future) {
    if (future == null) {
      return 0;
    }
    try {
      Long value = future.get(60, TimeUnit.SECONDS);
      return value == null ? 0 : value;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InspectException("interrupted", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new InspectException(
          "Redis failed while reading the feed's buckets: " + e.getMessage(), e);
    }
  }

  private static String text(byte[] bytes) {
    return KeyNames.show(bytes);
  }

  private void printKey(PrintWriter out, Terminal terminal, ObjectNode key) {
    StringBuilder title =
        new StringBuilder(terminal.bold(key.path("key").asText()))
            .append("  ")
            .append(key.path("type").asText());
    if (key.hasNonNull("memoryUsage")) {
      title.append(" · ").append(key.get("memoryUsage").asLong()).append(" bytes in Redis memory");
    }
    if (key.has("buckets")) {
      title
          .append(" · ")
          .append(key.get("length").asLong())
          .append(" entries in ")
          .append(key.get("buckets").asLong())
          .append(" buckets");
      if (key.path("sealedBuckets").asLong() > 0) {
        title.append(" (").append(key.get("sealedBuckets").asLong()).append(" sealed)");
      }
    } else if (key.has("bucket")) {
      title
          .append(" · bucket ")
          .append(key.get("bucket").asLong())
          .append(" of feed ")
          .append(key.path("feed").asText());
      if (key.has("length")) {
        title.append(" · ").append(key.get("length").asLong()).append(" entries");
      }
    } else if (key.has("length")) {
      title.append(" · ").append(key.get("length").asLong()).append(" members");
    }
    out.println(title);
    if (key.has("entries") && key.has("format")) {
      printValue(out, terminal, key, "  "); // a sealed bucket's own envelope
    }
    if (key.has("entries")) {
      for (JsonNode entry : key.get("entries")) {
        out.println("  " + terminal.bold(label(entry)));
        if (entry.has("bucket") && !entry.has("format")) {
          out.println("    " + terminal.error("error: " + entry.path("error").asText()));
        } else {
          printValue(out, terminal, entry, "    ");
        }
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

  /**
   * {@code field f}, {@code index 3}, {@code score 20}, {@code entry score 7}, joined by dots;
   * {@code sealed bucket 2 · 64 entries} for a sealed bucket a feed's entries could not be read
   * from; {@code member} if none.
   */
  private static String label(JsonNode entry) {
    List<String> parts = new ArrayList<>();
    if (entry.has("bucket")) {
      parts.add("sealed bucket " + entry.get("bucket").asLong());
      parts.add(entry.path("sealedEntries").asLong() + " entries");
    }
    if (entry.has("field")) {
      parts.add("field " + entry.get("field").asText());
    }
    if (entry.has("index")) {
      parts.add("index " + entry.get("index").asInt());
    }
    if (entry.has("score")) {
      parts.add("score " + number(entry.get("score")));
    }
    if (entry.has("entryScore")) {
      parts.add("entry score " + number(entry.get("entryScore")));
    }
    return parts.isEmpty() ? "member" : String.join(" · ", parts);
  }

  private static String number(JsonNode score) {
    double value = score.asDouble();
    return value == Math.rint(value) && Math.abs(value) < 1e15
        ? Long.toString((long) value)
        : Double.toString(value);
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
    if (value.path("springNull").asBoolean()) {
      out.println(indent + "Spring's cached null (" + value.path("class").asText() + ")");
    } else if (value.has("class")) {
      out.println(indent + "class " + value.get("class").asText());
    }
    if (value.has("fields")) {
      for (JsonNode field : value.get("fields")) {
        out.println(
            indent + "  " + field.path("type").asText() + " " + field.path("name").asText());
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
      String text =
          shown.isTextual()
                  && !"json".equals(value.path("legacy").asText())
                  && !"json".equals(value.path("codec").asText())
              ? shown.asText()
              : JsonLayout.pretty(shown);
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
