package dev.stowage.cli.inspect;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.stowage.Encoding;
import dev.stowage.Inspector;
import dev.stowage.StowageException;
import dev.stowage.cli.json.JsonLayout;
import dev.stowage.compress.Compression;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.Range;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SetArgs;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code stowage dict}: trains, lists and shows the zstd dictionaries stored under {@code
 * stowage:dict:<id>}. Training also writes a small hash, {@code stowage:dict-info:<id>} ({@link
 * Inspector.Keys#dictionaryInfo}), recording the samples it used; {@code dict show} prints it when
 * present.
 */
@Command(
    name = "dict",
    mixinStandardHelpOptions = true,
    description = "Train, list and show the zstd dictionaries stored in Redis.",
    subcommands = {
      DictCommand.Train.class,
      DictCommand.ListDictionaries.class,
      DictCommand.Show.class
    })
public final class DictCommand implements Runnable {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new ParameterException(
        spec.commandLine(), "Missing subcommand: choose one of " + spec.subcommands().keySet());
  }

  private static <T> List<T> orEmpty(@Nullable List<T> list) {
    return list == null ? List.of() : list;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static <T> @Nullable T await(RedisFuture<T> future) {
    try {
      return future.get(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InspectException("interrupted", e);
    } catch (ExecutionException e) {
      return null; // a key of another type, or gone: not a value to count
    } catch (TimeoutException e) {
      throw new InspectException("Redis did not answer within 60 seconds", e);
    }
  }

  /** Scans {@code match} page by page, handing each page's keys to {@code page}. */
  private static void scan(
      RedisClusterCommands<byte[], byte[]> redis,
      String match,
      int count,
      Predicate<List<byte[]>> page) {
    ScanCursor cursor = ScanCursor.INITIAL;
    ScanArgs args = ScanArgs.Builder.matches(KeyNames.pattern(match)).limit(count);
    boolean more;
    do {
      KeyScanCursor<byte[]> scanned = redis.scan(cursor, args);
      cursor = scanned;
      more = page.test(scanned.getKeys());
    } while (more && !cursor.isFinished());
  }

  /** Counts the dictionary {@code value} (an envelope or its first bytes) names, if any. */
  private static void count(byte[] value, Map<Long, Long> uses) {
    if (Encoding.Serializer.isEnvelope(value)) {
      try {
        Inspector.header(value)
            .flatMap(header -> header.dictionaryId().stream().boxed().findFirst())
            .ifPresent(id -> uses.merge(id, 1L, Long::sum));
      } catch (StowageException e) {
        // a malformed header names no dictionary
      }
    }
  }

  /**
   * Counts the dictionaries a list's elements name, 500 elements a round trip; returns the elements
   * read.
   */
  private static long countListElements(
      RedisClusterCommands<byte[], byte[]> redis, byte[] key, Map<Long, Long> uses) {
    long read = 0;
    for (long from = 0; ; from += 500) {
      List<byte[]> elements = redis.lrange(key, from, from + 499);
      for (byte[] element : elements) {
        byte[] envelope = FeedLayout.envelope(element);
        count(envelope != null ? envelope : element, uses);
      }
      read += elements.size();
      if (elements.size() < 500) {
        return read;
      }
    }
  }

  private static boolean isDictionaryKey(byte[] key) {
    String text = new String(key, StandardCharsets.UTF_8);
    return text.startsWith(Inspector.Keys.DICTIONARY_PREFIX)
        || text.startsWith(Inspector.Keys.DICTIONARY_INFO_PREFIX);
  }

  /** {@code stowage dict train}. */
  @Command(
      name = "train",
      mixinStandardHelpOptions = true,
      description = {
        "Train a zstd dictionary on the decompressed payloads of the values matching a pattern, and store it.",
        "A feed's entries are values too: the elements of its bucket lists and the members of its sealed buckets."
      })
  static final class Train implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin RedisOption redis;

    @Option(
        names = "--match",
        paramLabel = "PATTERN",
        required = true,
        description =
            "The keys to sample (SCAN pattern; \\xNN for a byte of a binary key, as scan prints them).")
    String match;

    @Option(
        names = "--size",
        paramLabel = "BYTES",
        defaultValue = "16384",
        description = "The dictionary's maximum size (default: ${DEFAULT-VALUE}).")
    int size;

    @Option(
        names = "--samples",
        paramLabel = "N",
        defaultValue = "5000",
        description = "Use at most N values, strings or feed entries (default: ${DEFAULT-VALUE}).")
    int samples;

    @Option(names = "--json", description = "Print the result as JSON.")
    boolean json;

    @Override
    @SuppressWarnings(
        "ArrayAsKeyOfSetOrMap") // distinct fields by construction, handed to Lettuce's hset as they
    // are
    public Integer call() {
      if (size < Encoding.MIN_DICTIONARY_SIZE) {
        throw new ParameterException(
            spec.commandLine(),
            "--size must be at least " + Encoding.MIN_DICTIONARY_SIZE + " bytes, got " + size);
      }
      if (samples < Encoding.MIN_LEARNING_SAMPLES) {
        throw new ParameterException(
            spec.commandLine(),
            "--samples must be at least " + Encoding.MIN_LEARNING_SAMPLES + ", got " + samples);
      }
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      try (RedisOption.RedisSession session = redis.connect(spec)) {
        RedisClusterCommands<byte[], byte[]> sync = session.sync();
        RedisClusterAsyncCommands<byte[], byte[]> async = session.async();
        Inspector inspector = session.inspector();
        List<byte[]> collected = new ArrayList<>();
        long[] skipped = new long[1];
        long[] sampleBytes = new long[1];
        Consumer<byte[]> sample =
            value -> {
              try {
                byte[] payload =
                    Encoding.Serializer.isEnvelope(value) ? inspector.payload(value) : value;
                collected.add(payload);
                sampleBytes[0] += payload.length;
              } catch (StowageException e) {
                skipped[0]++;
              }
            };
        scan(
            sync,
            match,
            1000,
            keys -> {
              List<RedisFuture<String>> types = new ArrayList<>();
              List<RedisFuture<byte[]>> values = new ArrayList<>();
              List<RedisFuture<List<byte[]>>> sealedIndex = new ArrayList<>();
              for (byte[] key : keys) {
                boolean dictionary = isDictionaryKey(key);
                types.add(dictionary ? null : async.type(key));
                values.add(dictionary ? null : async.get(key));
                FeedLayout.SealedKey sealed = dictionary ? null : FeedLayout.parseSealedKey(key);
                sealedIndex.add(
                    sealed == null
                        ? null
                        : async.zrangebyscore(
                            sealed.feedKey(), Range.create(sealed.bucket(), sealed.bucket())));
              }
              for (int i = 0; i < keys.size() && collected.size() < samples; i++) {
                String type = types.get(i) == null ? null : await(types.get(i));
                if ("list".equals(type)) {
                  // A feed's open bucket: its entries' envelopes, after their scores; other lists
                  // hold no samples.
                  int wanted = Math.min(samples - collected.size(), 1000);
                  for (byte[] element : orEmpty(sync.lrange(keys.get(i), 0, wanted - 1))) {
                    byte[] envelope = FeedLayout.envelope(element);
                    if (envelope != null && collected.size() < samples) {
                      sample.accept(envelope);
                    }
                  }
                  continue;
                }
                byte[] value = values.get(i) == null ? null : await(values.get(i));
                if (value == null || value.length == 0) {
                  continue;
                }
                FeedLayout.SealedKey sealed =
                    sealedIndex.get(i) == null ? null : FeedLayout.parseSealedKey(keys.get(i));
                if (sealed != null
                    && FeedLayout.indexSaysSealed(await(sealedIndex.get(i)), sealed.bucket())) {
                  // A feed's sealed bucket: each entry's envelope, as an open bucket's; the bucket
                  // as a whole is no sample.
                  List<byte[]> members;
                  try {
                    members = Inspector.sealedBucketEntries(inspector.payload(value));
                  } catch (StowageException e) {
                    skipped[0]++;
                    continue;
                  }
                  for (byte[] member : members) {
                    byte[] envelope = FeedLayout.envelope(member);
                    if (envelope == null) {
                      skipped[0]++;
                    } else if (collected.size() < samples) {
                      sample.accept(envelope);
                    }
                  }
                  continue;
                }
                sample.accept(value);
              }
              return collected.size() < samples;
            });
        if (collected.size() < Encoding.MIN_LEARNING_SAMPLES) {
          err.println(
              "stowage dict train: found "
                  + collected.size()
                  + " values (strings and feed entries) under '"
                  + match
                  + "'; training needs at least "
                  + Encoding.MIN_LEARNING_SAMPLES
                  + " (a few thousand work best)");
          return 1;
        }
        byte[] dictionary;
        try {
          dictionary = Compression.trainDictionary(collected, size);
        } catch (IllegalArgumentException e) {
          throw new InspectException(String.valueOf(e.getMessage()), e);
        }
        long id = Inspector.dictionaryId(dictionary);
        String key = Inspector.Keys.dictionary(id);
        // Written once, never changed: its key is derived from its content.
        boolean stored = "OK".equals(sync.set(bytes(key), dictionary, SetArgs.Builder.nx()));
        Map<byte[], byte[]> info = new LinkedHashMap<>();
        info.put(bytes("samples"), bytes(Integer.toString(collected.size())));
        info.put(bytes("sampleBytes"), bytes(Long.toString(sampleBytes[0])));
        info.put(bytes("match"), bytes(match));
        info.put(bytes("requestedSize"), bytes(Integer.toString(size)));
        info.put(bytes("trainedAt"), bytes(Instant.now().toString()));
        if (stored) {
          sync.hset(bytes(Inspector.Keys.dictionaryInfo(id)), info);
        }
        if (json) {
          ObjectNode node =
              NODES
                  .objectNode()
                  .put("id", Inspector.hexId(id))
                  .put("key", key)
                  .put("size", dictionary.length)
                  .put("samples", collected.size())
                  .put("sampleBytes", sampleBytes[0])
                  .put("skipped", skipped[0])
                  .put("stored", stored);
          out.println(JsonLayout.pretty(node));
        } else {
          out.printf("%s%n", Inspector.hexId(id));
          err.printf(
              "trained a %,d-byte dictionary on %,d values (%,d bytes) under '%s'%s; %s %s%n",
              dictionary.length,
              collected.size(),
              sampleBytes[0],
              match,
              skipped[0] == 0 ? "" : ", " + skipped[0] + " unreadable skipped",
              stored ? "stored as" : "already stored as",
              key);
        }
        out.flush();
        return 0;
      } catch (StowageException | RedisException e) {
        err.println("stowage dict train: " + e.getMessage());
        return 1;
      }
    }
  }

  /** {@code stowage dict list}. */
  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the stored dictionaries and how many values under --match name each.")
  static final class ListDictionaries implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin RedisOption redis;

    @Option(
        names = "--match",
        paramLabel = "PATTERN",
        defaultValue = "*",
        description =
            "Count the values among these keys (default: ${DEFAULT-VALUE}): strings by their first bytes,"
                + " and every element of a list (a feed's buckets); a feed's sealed bucket is one string, whose entries"
                + " inside are stored uncompressed; \\xNN for a byte of a binary key, as scan prints them.")
    String match;

    @Option(names = "--json", description = "Print the list as JSON.")
    boolean json;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      try (RedisOption.RedisSession session = redis.connect(spec)) {
        RedisClusterCommands<byte[], byte[]> sync = session.sync();
        RedisClusterAsyncCommands<byte[], byte[]> async = session.async();
        List<Long> ids = session.inspector().dictionaryIds();
        Map<Long, Long> uses = new TreeMap<>();
        long[] scanned = new long[1];
        scan(
            sync,
            match,
            1000,
            keys -> {
              List<RedisFuture<String>> types = new ArrayList<>();
              List<RedisFuture<byte[]>> heads = new ArrayList<>();
              for (byte[] key : keys) {
                types.add(async.type(key));
                heads.add(isDictionaryKey(key) ? null : async.getrange(key, 0, 13));
              }
              for (int i = 0; i < keys.size(); i++) {
                if ("list".equals(await(types.get(i)))) {
                  // A feed's bucket, or any list: every element, envelopes after a feed's score
                  // prefix.
                  scanned[0] += countListElements(sync, keys.get(i), uses);
                  continue;
                }
                byte[] head = heads.get(i) == null ? null : await(heads.get(i));
                if (head == null) {
                  continue;
                }
                scanned[0]++;
                count(head, uses);
              }
              return true;
            });
        ArrayNode list = NODES.arrayNode();
        for (long id : ids) {
          Long length = sync.strlen(bytes(Inspector.Keys.dictionary(id)));
          list.addObject()
              .put("id", Inspector.hexId(id))
              .put("key", Inspector.Keys.dictionary(id))
              .put("size", length == null ? 0 : length)
              .put("values", uses.getOrDefault(id, 0L));
        }
        ArrayNode missing = NODES.arrayNode();
        uses.forEach(
            (id, n) -> {
              if (!ids.contains(id)) {
                missing.addObject().put("id", Inspector.hexId(id)).put("values", n);
              }
            });
        if (json) {
          ObjectNode node = NODES.objectNode().put("match", match).put("valuesScanned", scanned[0]);
          node.set("dictionaries", list);
          node.set("missing", missing);
          out.println(JsonLayout.pretty(node));
        } else {
          out.printf(
              "%d dictionaries; %,d values scanned under '%s'%n", ids.size(), scanned[0], match);
          list.forEach(
              row ->
                  out.printf(
                      "  %s  %,8d bytes  %,10d values%n",
                      row.get("id").asText(),
                      row.get("size").asLong(),
                      row.get("values").asLong()));
          missing.forEach(
              row ->
                  out.printf(
                      "  %s  MISSING         %,10d values name it, but %s does not exist%n",
                      row.get("id").asText(),
                      row.get("values").asLong(),
                      Inspector.Keys.dictionary(Long.parseLong(row.get("id").asText(), 16))));
        }
        out.flush();
        return 0;
      } catch (StowageException | RedisException e) {
        err.println("stowage dict list: " + e.getMessage());
        return 1;
      }
    }
  }

  /** {@code stowage dict show ID}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "Show one stored dictionary.")
  static final class Show implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin RedisOption redis;

    @Parameters(paramLabel = "ID", description = "The dictionary id: eight hex digits, or its key.")
    String id;

    @Option(names = "--json", description = "Print the dictionary's description as JSON.")
    boolean json;

    @Override
    public Integer call() {
      String hex = id.strip().toLowerCase(Locale.ROOT);
      if (hex.startsWith(Inspector.Keys.DICTIONARY_PREFIX)) {
        hex = hex.substring(Inspector.Keys.DICTIONARY_PREFIX.length());
      }
      if (!hex.matches("[0-9a-f]{1,8}")) {
        throw new ParameterException(
            spec.commandLine(), "not a dictionary id: '" + id + "'; ids are eight hex digits");
      }
      long dictionaryId = Long.parseLong(hex, 16);
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      try (RedisOption.RedisSession session = redis.connect(spec)) {
        RedisClusterCommands<byte[], byte[]> sync = session.sync();
        String key = Inspector.Keys.dictionary(dictionaryId);
        byte[] stored = sync.get(bytes(key));
        if (stored == null) {
          err.println(
              "stowage dict show: no dictionary "
                  + Inspector.hexId(dictionaryId)
                  + ": no key "
                  + key
                  + " in "
                  + session.url());
          return 1;
        }
        long actual = Inspector.dictionaryId(stored);
        boolean trained =
            stored.length >= 8
                && (stored[0] & 0xFF) == 0x37
                && (stored[1] & 0xFF) == 0xA4
                && (stored[2] & 0xFF) == 0x30
                && (stored[3] & 0xFF) == 0xEC;
        ObjectNode node =
            NODES
                .objectNode()
                .put("id", Inspector.hexId(dictionaryId))
                .put("key", key)
                .put("size", stored.length)
                .put("intact", actual == dictionaryId)
                .put("kind", trained ? "trained" : "raw content");
        if (actual != dictionaryId) {
          node.put("actualId", Inspector.hexId(actual));
        }
        if (trained) {
          long zstdId =
              (stored[4] & 0xFFL)
                  | (stored[5] & 0xFFL) << 8
                  | (stored[6] & 0xFFL) << 16
                  | (stored[7] & 0xFFL) << 24;
          node.put("zstdDictionaryId", zstdId);
        }
        Map<byte[], byte[]> info = sync.hgetall(bytes(Inspector.Keys.dictionaryInfo(dictionaryId)));
        if (info != null && !info.isEmpty()) {
          ObjectNode training = node.putObject("training");
          Map<String, String> sorted = new TreeMap<>();
          info.forEach(
              (k, v) ->
                  sorted.put(
                      new String(k, StandardCharsets.UTF_8),
                      new String(v, StandardCharsets.UTF_8)));
          sorted.forEach(
              (k, v) -> {
                if (v.matches("\\d{1,18}")) {
                  training.put(k, Long.parseLong(v));
                } else {
                  training.put(k, v);
                }
              });
        }
        node.put("firstBytes", ValueReader.hexDump(stored, 64));
        if (json) {
          out.println(JsonLayout.pretty(node));
        } else {
          out.printf("dictionary %s (%s)%n", node.get("id").asText(), key);
          out.printf(
              "  %,d bytes, %s%s%n",
              stored.length,
              node.get("kind").asText(),
              trained ? ", zstd dictionary id " + node.get("zstdDictionaryId").asLong() : "");
          out.println(
              actual == dictionaryId
                  ? "  content hashes to its id"
                  : "  CORRUPT: the bytes hash to " + Inspector.hexId(actual) + ", not to the id");
          if (node.has("training")) {
            node.get("training")
                .fields()
                .forEachRemaining(e -> out.printf("  %s: %s%n", e.getKey(), e.getValue().asText()));
          } else {
            out.println(
                "  no training record (" + Inspector.Keys.dictionaryInfo(dictionaryId) + ")");
          }
          for (String row : node.get("firstBytes").asText().split("\n")) {
            out.println("  " + row);
          }
        }
        out.flush();
        return 0;
      } catch (StowageException | RedisException e) {
        err.println("stowage dict show: " + e.getMessage());
        return 1;
      }
    }
  }
}
