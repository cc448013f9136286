package dev.stowage.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.stowage.Codec;
import dev.stowage.Encoding;
import dev.stowage.Feed;
import dev.stowage.Inspector;
import dev.stowage.Stowage;
import dev.stowage.cli.StowageCli;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.samples.AvroForms;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.ProtobufForms;
import dev.stowage.samples.Samples;
import dev.stowage.samples.ThriftForms;
import dev.stowage.samples.thrift.TBoardRecord;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Serializable;
import java.io.StringWriter;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.function.Function;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisTemplate;
import org.springframework.data.redis.serializer.GenericJackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.JdkSerializationRedisSerializer;
import org.springframework.data.redis.serializer.RedisSerializer;
import org.springframework.data.redis.serializer.StringRedisSerializer;

@WithRedis
class InspectCommandsIntegrationTests {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Note NOTE = new Note(7, "stowage", "keeps values in redis; ".repeat(12), 42);
  private static final byte[] DICTIONARY =
      "{\"id\":,\"title\":\"stowage\",\"body\":\"keeps values in redis; \",\"votes\":}"
          .getBytes(StandardCharsets.UTF_8);

  /** Writes a payload as it is, under the string codec's id: a sealed bucket's, rewrapped. */
  private static final Codec<byte[]> RAW =
      new Codec<>() {
        @Override
        public int id() {
          return 10;
        }

        @Override
        public byte[] encode(byte[] value) {
          return value.clone();
        }

        @Override
        public byte[] decode(byte[] data, int offset, int length) {
          return Arrays.copyOfRange(data, offset, offset + length);
        }
      };

  private static Stowage stowage;
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> connection;
  private static RedisCommands<byte[], byte[]> redis;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeAll
  static void connect(RedisServer server) {
    client = RedisClient.create(server.uri());
    connection = client.connect(ByteArrayCodec.INSTANCE);
    redis = connection.sync();
    stowage = Stowage.builder().redis(server.uri()).build();
  }

  @AfterAll
  static void close() {
    stowage.close();
    connection.close();
    client.shutdown();
  }

  /** The tree of a value as its JSON text reads back, so that numbers compare by value. */
  private static JsonNode tree(Object value) {
    try {
      return MAPPER.readTree(MAPPER.writeValueAsString(value));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private int run(String... args) {
    out.getBuffer().setLength(0);
    err.getBuffer().setLength(0);
    var cli = StowageCli.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  private JsonNode inspect(RedisServer server, String key, String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("inspect", "--json", "--redis", server.uri()));
    args.addAll(List.of(extra));
    args.add(key);
    assertThat(run(args.toArray(String[]::new))).as(err.toString()).isZero();
    JsonNode all = MAPPER.readTree(out.toString());
    assertThat(all).hasSize(1);
    return all.get(0);
  }

  private static final Map<String, Function<Class<Note>, Codec<Note>>> CODECS =
      new LinkedHashMap<>();
  private static final Map<String, Compression> COMPRESSIONS = new LinkedHashMap<>();

  static {
    CODECS.put("json", Codecs::json);
    CODECS.put("fastjson2", Codecs::fastjson2);
    CODECS.put("msgpack", Codecs::msgpack);
    CODECS.put("msgpack-compact", Codecs::msgpackCompact);
    CODECS.put("kryo", type -> Codecs.kryo(type));
    CODECS.put("fory", type -> Codecs.fory(type));
    CODECS.put("jdk", type -> Codecs.jdk(type));
    COMPRESSIONS.put("none", Compression.none());
    COMPRESSIONS.put("lz4", Compression.lz4().minSize(0));
    COMPRESSIONS.put("zstd", Compression.zstd().minSize(0));
    COMPRESSIONS.put("zstd-dict", Compression.zstd(DICTIONARY).magicless(false).minSize(0));
    COMPRESSIONS.put("zstd-dict-magicless", Compression.zstd(DICTIONARY).minSize(0));
  }

  @Test
  void everyCodecAndCompressionIsShownAsTheSameJson(RedisServer server) throws Exception {
    redis.set(bytes(Inspector.Keys.dictionary(Inspector.dictionaryId(DICTIONARY))), DICTIONARY);
    JsonNode expected = tree(NOTE);
    for (Map.Entry<String, Function<Class<Note>, Codec<Note>>> codec : CODECS.entrySet()) {
      for (Map.Entry<String, Compression> compression : COMPRESSIONS.entrySet()) {
        String key = "all:" + codec.getKey() + ":" + compression.getKey();
        Codec<Note> writer = codec.getValue().apply(Note.class);
        Encoding.Serializer<Note> envelope =
            Encoding.of(writer).compression(compression.getValue()).serializer();
        // An evolving codec writes its schema's fingerprint; the others no schema field.
        OptionalInt schema =
            writer instanceof Codec.Evolving<Note> evolving
                ? OptionalInt.of(Inspector.schemaFingerprint(evolving.schema()))
                : OptionalInt.empty();
        byte[] stored = envelope.encode(NOTE);
        redis.set(bytes(key), stored);
        String codecName = codec.getKey().equals("msgpack-compact") ? "msgpack" : codec.getKey();
        boolean needsClass = List.of("kryo", "fory", "jdk").contains(codecName);

        JsonNode shown = inspect(server, key);
        assertThat(shown.get("type").asText()).isEqualTo("string");
        assertThat(shown.get("format").asText()).isEqualTo("envelope");
        assertThat(shown.get("codec").asText()).as(key).isEqualTo(codecName);
        assertThat(shown.get("compression").asText()).as(key).isEqualTo(compression.getKey());
        if (schema.isPresent()) {
          assertThat(shown.get("schemaVersion").asInt()).isEqualTo(schema.getAsInt());
        } else {
          assertThat(shown.has("schemaVersion")).as(key).isFalse();
        }
        assertThat(shown.get("storedSize").asInt()).isEqualTo(stored.length);
        assertThat(shown.get("decodedSize").asInt())
            .isEqualTo(codec.getValue().apply(Note.class).encode(NOTE).length);
        assertThat(shown.get("memoryUsage").asLong()).isPositive();
        if (compression.getKey().startsWith("zstd-dict")) {
          assertThat(shown.get("dictionaryId").asText())
              .isEqualTo(Inspector.hexId(Inspector.dictionaryId(DICTIONARY)));
        }
        if (needsClass) {
          assertThat(shown.has("value")).as(key).isFalse();
          assertThat(shown.get("hex").asText()).startsWith("00000000 ");
          assertThat(shown.get("missing").asText())
              .as(key)
              .startsWith(
                  codecName.equals("jdk")
                      ? "java serialization of class " + Note.class.getName()
                      : codecName + " value: pass --type and --classpath with the cache's classes");
          shown = inspect(server, key, "--type", Note.class.getName());
        }
        JsonNode value = shown.get("value");
        if (codec.getKey().equals("msgpack-compact")) {
          // without the class the compact form is the array of field values, by position
          assertThat(value)
              .as(key)
              .isEqualTo(
                  MAPPER.readTree(
                      "[7,\"stowage\"," + MAPPER.writeValueAsString(NOTE.body()) + ",42]"));
          value = inspect(server, key, "--type", Note.class.getName()).get("value");
        }
        assertThat(value).as(key).isEqualTo(expected);
      }
    }
  }

  @Test
  void generatedProtobufAvroAndThriftClassesAreShownWithTheirFieldNames(RedisServer server)
      throws Exception {
    dev.stowage.samples.BoardRecord record = Samples.board(5);
    write(
        "gen:protobuf",
        Codecs.protobuf(dev.stowage.samples.protobuf.BoardRecord.class),
        ProtobufForms.toProtobuf(record));
    write(
        "gen:avro",
        Codecs.avro(dev.stowage.samples.avro.BoardRecord.class),
        AvroForms.toAvro(record));
    write("gen:thrift", Codecs.thrift(TBoardRecord.class), ThriftForms.toThrift(record));
    Map<String, String> memberIdNames =
        Map.of("protobuf", "memberId", "avro", "member_id", "thrift", "memberId");
    Map<String, String> classes =
        Map.of(
            "protobuf",
            dev.stowage.samples.protobuf.BoardRecord.class.getName(),
            "avro",
            dev.stowage.samples.avro.BoardRecord.class.getName(),
            "thrift",
            TBoardRecord.class.getName());
    for (String codec : List.of("protobuf", "avro", "thrift")) {
      JsonNode bare = inspect(server, "gen:" + codec);
      assertThat(bare.get("codec").asText()).isEqualTo(codec);
      assertThat(bare.get("compression").asText()).isEqualTo("zstd");
      assertThat(bare.get("missing").asText())
          .isEqualTo(codec + " value: pass --type and --classpath with the cache's classes");

      JsonNode value = inspect(server, "gen:" + codec, "--type", classes.get(codec)).get("value");
      assertThat(value.get("title").asText()).as(codec).isEqualTo(record.title());
      assertThat(value.get("body").asText()).as(codec).isEqualTo(record.body());
      assertThat(value.get("score").asLong()).as(codec).isEqualTo(record.score());
      assertThat(value.get(memberIdNames.get(codec)).asLong())
          .as(codec)
          .isEqualTo(record.memberId());
    }
  }

  private static <T> void write(String key, Codec<T> codec, T value) {
    redis.set(
        bytes(key),
        Encoding.of(codec).compression(Compression.zstd().minSize(0)).serializer().encode(value));
  }

  @Test
  void stringValuesAndCollectionsAreShownMemberByMember(RedisServer server) throws Exception {
    Encoding.Serializer<String> text =
        Encoding.of(Codecs.string()).compression(Compression.zstd().minSize(0)).serializer();
    redis.set(bytes("col:text"), text.encode("héllo ".repeat(30)));
    Encoding.Serializer<Note> json =
        Encoding.of(Codecs.json(Note.class)).compression(Compression.none()).serializer();
    Encoding.Serializer<Note> msgpack =
        Encoding.of(Codecs.msgpack(Note.class))
            .compression(Compression.lz4().minSize(0))
            .serializer();
    redis.hset(bytes("col:hash"), bytes("a"), json.encode(new Note(1, "a", "x", 1)));
    redis.hset(bytes("col:hash"), bytes("b"), msgpack.encode(new Note(2, "b", "y", 2)));
    redis.zadd(bytes("col:feed"), 10, json.encode(new Note(10, "ten", "", 0)));
    redis.zadd(bytes("col:feed"), 20, json.encode(new Note(20, "twenty", "", 0)));
    redis.rpush(bytes("col:list"), bytes("plain"), json.encode(new Note(3, "c", "", 0)));
    redis.sadd(bytes("col:set"), bytes("{\"x\":1}"));

    assertThat(inspect(server, "col:text").get("value").asText()).isEqualTo("héllo ".repeat(30));

    JsonNode hash = inspect(server, "col:hash");
    assertThat(hash.get("type").asText()).isEqualTo("hash");
    assertThat(hash.get("length").asInt()).isEqualTo(2);
    Map<String, JsonNode> byField = new LinkedHashMap<>();
    hash.get("entries").forEach(e -> byField.put(e.get("field").asText(), e));
    assertThat(byField.get("a").get("codec").asText()).isEqualTo("json");
    assertThat(byField.get("a").get("value")).isEqualTo(tree(new Note(1, "a", "x", 1)));
    assertThat(byField.get("b").get("codec").asText()).isEqualTo("msgpack");
    assertThat(byField.get("b").get("value")).isEqualTo(tree(new Note(2, "b", "y", 2)));

    JsonNode feed = inspect(server, "col:feed");
    assertThat(feed.get("entries").get(0).get("score").asDouble()).isEqualTo(20.0);
    assertThat(feed.get("entries").get(0).get("value").get("title").asText()).isEqualTo("twenty");
    assertThat(feed.get("entries").get(1).get("value").get("title").asText()).isEqualTo("ten");

    JsonNode list = inspect(server, "col:list", "--members", "1");
    assertThat(list.get("length").asInt()).isEqualTo(2);
    assertThat(list.get("entries")).hasSize(1);
    assertThat(list.get("entries").get(0).get("legacy").asText()).isEqualTo("text");
    assertThat(list.get("entries").get(0).get("value").asText()).isEqualTo("plain");
    assertThat(list.get("truncated").asText()).isEqualTo("first 1 of 2 members shown (--members)");

    JsonNode set = inspect(server, "col:set");
    assertThat(set.get("entries").get(0).get("legacy").asText()).isEqualTo("json");

    assertThat(run("inspect", "--redis", server.uri(), "col:hash")).isZero();
    assertThat(out.toString())
        .startsWith("col:hash  hash · ")
        .contains("field a", "json+none", "\"title\": \"a\"");
  }

  @Test
  void valuesWrittenBySpringDataRedisSerializersAreRecognised(RedisServer server) throws Exception {
    LettuceConnectionFactory factory =
        new LettuceConnectionFactory(
            new RedisStandaloneConfiguration(server.host(), server.port()));
    factory.afterPropertiesSet();
    try {
      write(
          factory, new GenericJackson2JsonRedisSerializer(), "spring:json", new SpringNote("a", 3));
      write(factory, StringRedisSerializer.UTF_8, "spring:string", "plain text ✓");
      write(factory, new JdkSerializationRedisSerializer(), "spring:jdk", NOTE);
    } finally {
      factory.destroy();
    }

    JsonNode json = inspect(server, "spring:json");
    assertThat(json.get("format").asText()).isEqualTo("legacy");
    assertThat(json.get("legacy").asText()).isEqualTo("json");
    assertThat(json.get("class").asText()).isEqualTo(SpringNote.class.getName());
    assertThat(json.get("writer").asText()).startsWith("GenericJackson2JsonRedisSerializer");
    assertThat(json.get("value"))
        .isEqualTo(
            MAPPER.readTree(
                "{\"@class\":\"" + SpringNote.class.getName() + "\",\"name\":\"a\",\"count\":3}"));

    JsonNode string = inspect(server, "spring:string");
    assertThat(string.get("legacy").asText()).isEqualTo("text");
    assertThat(string.get("value").asText()).isEqualTo("plain text ✓");

    JsonNode jdk = inspect(server, "spring:jdk");
    assertThat(jdk.get("legacy").asText()).isEqualTo("jdk");
    assertThat(jdk.get("class").asText()).isEqualTo(Note.class.getName());
    assertThat(jdk.get("missing").asText())
        .startsWith("java serialization of class " + Note.class.getName());
    List<String> fields = new ArrayList<>();
    jdk.get("fields")
        .forEach(f -> fields.add(f.get("type").asText() + " " + f.get("name").asText()));
    assertThat(fields)
        .containsExactlyInAnyOrder(
            "java.lang.String body", "long id", "java.lang.String title", "int votes");
    assertThat(jdk.has("value")).isFalse();

    JsonNode decoded = inspect(server, "spring:jdk", "--type", Note.class.getName());
    assertThat(decoded.get("value")).isEqualTo(tree(NOTE));

    // the allowlist: a class that is not the one asked for is refused, not created
    JsonNode refused = inspect(server, "spring:jdk", "--type", SpringNote.class.getName());
    assertThat(refused.get("error").asText()).contains("jdk");
    assertThat(refused.has("value")).isFalse();
  }

  /** A bean for Spring's JSON serializer. */
  public static final class SpringNote implements Serializable {
    public String name;
    public int count;

    public SpringNote() {}

    SpringNote(String name, int count) {
      this.name = name;
      this.count = count;
    }
  }

  private static <V> void write(
      LettuceConnectionFactory factory, RedisSerializer<V> serializer, String key, V value) {
    RedisTemplate<String, V> template = new RedisTemplate<>();
    template.setConnectionFactory(factory);
    template.setKeySerializer(StringRedisSerializer.UTF_8);
    template.setValueSerializer(serializer);
    template.afterPropertiesSet();
    template.opsForValue().set(key, value);
  }

  @Test
  void aMissingDictionaryAMalformedHeaderAndAMissingKeyAreReported(RedisServer server)
      throws Exception {
    byte[] unsaved = bytes("a dictionary nobody stored, with some words: keeps values in redis");
    redis.set(
        bytes("bad:nodict"),
        Encoding.of(Codecs.json(Note.class))
            .compression(Compression.zstd(unsaved).minSize(0))
            .serializer()
            .encode(NOTE));
    JsonNode nodict = inspect(server, "bad:nodict");
    assertThat(nodict.get("dictionaryId").asText())
        .isEqualTo(Inspector.hexId(Inspector.dictionaryId(unsaved)));
    assertThat(nodict.get("error").asText())
        .startsWith(
            "zstd dictionary "
                + Inspector.hexId(Inspector.dictionaryId(unsaved))
                + " is missing: no key stowage:dict:"
                + Inspector.hexId(Inspector.dictionaryId(unsaved))
                + " in Redis");

    redis.set(bytes("bad:header"), new byte[] {(byte) 0xC1, 0x10, 1, 9, 1, 2, 3});
    assertThat(inspect(server, "bad:header").get("error").asText())
        .startsWith("malformed envelope: unknown compression id 9");

    redis.set(bytes("bad:binary"), new byte[] {(byte) 0xFF, 0, 1, 'h', 'e', 'l', 'l', 'o'});
    JsonNode binary = inspect(server, "bad:binary");
    assertThat(binary.get("legacy").asText()).isEqualTo("binary");
    assertThat(binary.get("strings").get(0).asText()).isEqualTo("hello");

    assertThat(run("inspect", "--redis", server.uri(), "bad:none")).isEqualTo(1);
    assertThat(err.toString())
        .isEqualTo("stowage inspect: no key 'bad:none' in " + server.uri() + "\n");

    // Lettuce says "Unable to connect"; the server's reply is in its cause.
    assertThat(run("inspect", "--redis", server.uri() + "/99", "bad:none")).isEqualTo(1);
    assertThat(err.toString())
        .startsWith(
            "stowage inspect: could not connect to " + server.uri() + "/99: Unable to connect")
        .contains(": ERR DB index is out of range");

    if (System.getenv(RedisOption.ENVIRONMENT_VARIABLE) == null) {
      assertThat(run("inspect", "some:key")).isEqualTo(2);
      assertThat(err.toString())
          .contains(
              "no Redis to read: pass --redis URL (such as redis://127.0.0.1:6379) or set STOWAGE_REDIS");
    }
  }

  /**
   * A MessagePack value cut short used to end inspect and scan with
   * MessageInsufficientBufferException and a stack trace; the ten-byte value that declares a 2 GiB
   * bin 32 made them allocate it. Among good keys, each is now reported as undecodable, saying why,
   * and the others are read.
   */
  @Test
  void undecodableMessagePackValuesAreReportedAndTheOtherKeysStillRead(RedisServer server)
      throws Exception {
    byte[] whole =
        Encoding.of(Codecs.msgpack(Note.class))
            .compression(Compression.none())
            .serializer()
            .encode(NOTE);
    redis.set(bytes("mp:good"), whole);
    redis.set(bytes("mp:cut"), Arrays.copyOf(whole, whole.length - 7));
    redis.set(
        bytes("mp:bomb"),
        new byte[] {
          (byte) 0xc1,
          0x10,
          0x02,
          0x00,
          (byte) 0x92,
          (byte) 0xc6,
          0x7f,
          (byte) 0xff,
          (byte) 0xff,
          (byte) 0xf0
        });
    redis.set(bytes("mp:legacy-cut"), Arrays.copyOf(Codecs.msgpack(Note.class).encode(NOTE), 9));
    redis.set(bytes("mp:text"), bytes("plain text"));

    assertThat(
            run(
                "inspect",
                "--json",
                "--redis",
                server.uri(),
                "mp:good",
                "mp:cut",
                "mp:bomb",
                "mp:text"))
        .as(err.toString())
        .isZero();
    JsonNode shown = MAPPER.readTree(out.toString());
    assertThat(shown).hasSize(4);
    assertThat(shown.get(0).get("value")).isEqualTo(tree(NOTE));
    assertThat(shown.get(1).get("error").asText())
        .startsWith(
            "msgpack payload could not be decoded: the value is cut short at byte "
                + (whole.length - 7 - Inspector.header(whole).orElseThrow().headerSize()));
    assertThat(shown.get(1).get("hex").asText()).isNotBlank();
    assertThat(shown.get(2).get("error").asText())
        .isEqualTo(
            "msgpack payload could not be decoded: a bin 32 at byte 1 declares 2147483632 bytes, but 0 are left");
    assertThat(shown.get(3).get("value").asText()).isEqualTo("plain text");
    assertThat(err.toString()).isEmpty();

    assertThat(
            run(
                "inspect",
                "--redis",
                server.uri(),
                "--legacy",
                "msgpack",
                "mp:legacy-cut",
                "mp:good"))
        .isZero();
    // {"id":7,"title":... cut at nine bytes: inside the fixstr "title"
    assertThat(out.toString())
        .contains(
            "error: legacy msgpack value could not be read: a fixstr at byte 5 declares 5 bytes, but 3 are left")
        .contains("msgpack+none")
        .doesNotContain("Exception")
        .doesNotContain("\tat ");
    assertThat(err.toString()).isEmpty();

    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "mp:*"))
        .as(err.toString())
        .isZero();
    JsonNode report = MAPPER.readTree(out.toString());
    assertThat(report.get("keys").asInt()).isEqualTo(5);
    assertThat(report.get("byFormat"))
        .isEqualTo(MAPPER.readTree("{\"msgpack+none\":3,\"legacy binary\":1,\"legacy text\":1}"));
    assertThat(report.get("failureCount").asInt()).isEqualTo(2);
    Map<String, String> reasons = new TreeMap<>();
    report
        .get("failures")
        .forEach(row -> reasons.put(row.get("key").asText(), row.get("reason").asText()));
    assertThat(reasons).containsOnlyKeys("mp:cut", "mp:bomb");
    assertThat(reasons.get("mp:bomb"))
        .endsWith("a bin 32 at byte 1 declares 2147483632 bytes, but 0 are left");
    assertThat(run("scan", "--redis", server.uri(), "--match", "mp:*")).isZero();
    assertThat(out.toString())
        .contains("failed to decode: 2")
        .contains("mp:cut: msgpack payload could not be decoded")
        .doesNotContain("Exception");
  }

  @Test
  void scanCountsWhatWasWritten(RedisServer server) throws Exception {
    Encoding.Serializer<Note> json =
        Encoding.of(Codecs.json(Note.class))
            .compression(Compression.zstd().minSize(0))
            .serializer();
    Encoding.Serializer<Note> kryo =
        Encoding.of(Codecs.kryo(Note.class)).compression(Compression.none()).serializer();
    for (int i = 0; i < 25; i++) {
      redis.set(
          bytes("scan:json:" + i), json.encode(new Note(i, "n" + i, "body ".repeat(i + 20), i)));
    }
    for (int i = 0; i < 5; i++) {
      redis.set(bytes("scan:kryo:" + i), kryo.encode(new Note(i, "k", "", i)));
    }
    redis.set(bytes("scan:legacy"), bytes("{\"a\":1}"));
    redis.set(bytes("scan:broken"), new byte[] {(byte) 0xC1, 0x10, 1, 2, 9, 9, 9, 9});
    redis.hset(bytes("scan:hash"), bytes("f"), bytes("v"));
    redis.zadd(bytes("scan:zset"), 1, bytes("m"));
    redis.set(bytes("other:key"), bytes("not matched"));

    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "scan:*", "--count", "7"))
        .as(err.toString())
        .isZero();
    JsonNode report = MAPPER.readTree(out.toString());
    assertThat(report.get("keys").asInt()).isEqualTo(34);
    assertThat(report.get("complete").asBoolean()).isTrue();
    assertThat(report.get("byType"))
        .isEqualTo(MAPPER.readTree("{\"hash\":1,\"string\":32,\"zset\":1}"));
    assertThat(report.get("byFormat"))
        .isEqualTo(MAPPER.readTree("{\"json+zstd\":26,\"kryo+none\":5,\"legacy json\":1}"));
    // the hash's one value "v" and the sorted set's one member "m"
    assertThat(report.get("membersSampled").asInt()).isEqualTo(2);
    assertThat(report.get("membersByFormat")).isEqualTo(MAPPER.readTree("{\"legacy text\":2}"));
    assertThat(report.get("feeds").asInt()).isZero();
    assertThat(report.get("failureCount").asInt()).isEqualTo(1);
    assertThat(report.get("failures").get(0).get("key").asText()).isEqualTo("scan:broken");
    assertThat(report.get("failures").get(0).get("reason").asText())
        .startsWith("cannot decompress");
    assertThat(
            report
                .get("needClasses")
                .get(
                    "kryo value: pass --type and --classpath with the cache's classes"
                        + " (and --register with the classes it registers, in order)")
                .asInt())
        .isEqualTo(5);
    JsonNode memory = report.get("memoryUsage");
    assertThat(memory.get("keys").asInt()).isEqualTo(34);
    long total = 0;
    for (int i = 0; i < 25; i++) {
      total += redis.memoryUsage(bytes("scan:json:" + i));
    }
    assertThat(memory.get("total").asLong()).isGreaterThan(total);
    assertThat(memory.get("p50").asLong()).isLessThanOrEqualTo(memory.get("p90").asLong());
    assertThat(memory.get("p99").asLong()).isLessThanOrEqualTo(memory.get("max").asLong());
    ArrayNode biggest = (ArrayNode) report.get("biggest");
    assertThat(biggest).hasSize(10);
    assertThat(biggest.get(0).get("memoryUsage").asLong()).isEqualTo(memory.get("max").asLong());
    for (int i = 1; i < biggest.size(); i++) {
      assertThat(biggest.get(i).get("memoryUsage").asLong())
          .isLessThanOrEqualTo(biggest.get(i - 1).get("memoryUsage").asLong());
    }
    assertThat(redis.memoryUsage(bytes(biggest.get(0).get("key").asText())))
        .isEqualTo(memory.get("max").asLong());

    assertThat(
            run(
                "scan",
                "--json",
                "--redis",
                server.uri(),
                "--match",
                "scan:*",
                "--limit",
                "4",
                "--count",
                "2"))
        .isZero();
    JsonNode limited = MAPPER.readTree(out.toString());
    assertThat(limited.get("keys").asInt()).isEqualTo(4);
    assertThat(limited.get("complete").asBoolean()).isFalse();

    // standard error is a pipe here, not a terminal: plain progress lines, no carriage returns or
    // escape codes
    assertThat(
            run(
                "scan",
                "--redis",
                server.uri(),
                "--match",
                "scan:*",
                "--count",
                "7",
                "--progress-every",
                "10"))
        .isZero();
    long databaseKeys = redis.dbsize();
    List<String> lines = List.of(err.toString().split("\n"));
    assertThat(lines)
        .isNotEmpty()
        .allSatisfy(
            line ->
                assertThat(line)
                    .matches(
                        "scanned \\d+ keys · \\d{1,2}% of "
                            + databaseKeys
                            + " in the database( · about \\d+s left)?"));
    assertThat(lines.get(0)).startsWith("scanned 1");
    assertThat(err.toString()).doesNotContain("\r", "\u001b");
    assertThat(out.toString()).startsWith("34 keys match scan:*\n");

    assertThat(run("scan", "--redis", server.uri(), "--match", "scan:*", "--progress-every", "0"))
        .isEqualTo(2);
    assertThat(err.toString()).contains("--progress-every must be at least 1, got 0");
  }

  @Test
  void dictionariesAreTrainedListedAndShown(RedisServer server) throws Exception {
    Encoding.Serializer<Note> lz4 =
        Encoding.of(Codecs.json(Note.class)).compression(Compression.lz4().minSize(0)).serializer();
    for (int i = 0; i < 300; i++) {
      redis.set(
          bytes("dt:" + i),
          lz4.encode(
              new Note(i, "title " + (i % 17), "the body of note " + i + " in the cache", i * 3)));
    }
    assertThat(
            run(
                "dict",
                "train",
                "--json",
                "--redis",
                server.uri(),
                "--match",
                "dt:*",
                "--samples",
                "200",
                "--size",
                "2048"))
        .as(err.toString())
        .isZero();
    JsonNode trained = MAPPER.readTree(out.toString());
    assertThat(trained.get("samples").asInt()).isEqualTo(200);
    assertThat(trained.get("stored").asBoolean()).isTrue();
    String id = trained.get("id").asText();
    byte[] stored = redis.get(bytes("stowage:dict:" + id));
    assertThat(Inspector.dictionaryId(stored)).isEqualTo(Long.parseLong(id, 16));
    assertThat(trained.get("size").asInt()).isEqualTo(stored.length).isLessThanOrEqualTo(2048);

    assertThat(run("dict", "show", "--json", "--redis", server.uri(), id)).isZero();
    JsonNode shown = MAPPER.readTree(out.toString());
    assertThat(shown.get("size").asInt()).isEqualTo(stored.length);
    assertThat(shown.get("intact").asBoolean()).isTrue();
    assertThat(shown.get("kind").asText()).isEqualTo("trained");
    assertThat(shown.get("training").get("samples").asInt()).isEqualTo(200);
    assertThat(shown.get("training").get("match").asText()).isEqualTo("dt:*");
    assertThat(shown.get("firstBytes").asText()).startsWith("00000000  37 a4 30 ec");

    byte[] dictionary = stored;
    Encoding.Serializer<Note> withDictionary =
        Encoding.of(Codecs.json(Note.class))
            .compression(Compression.zstd(dictionary).minSize(0))
            .serializer();
    for (int i = 0; i < 12; i++) {
      redis.set(
          bytes("dl:" + i),
          withDictionary.encode(new Note(i, "title", "the body of note in the cache", i)));
    }
    // Three entries of a feed's bucket: the score's varint, then the envelope.
    for (int score = 1; score <= 3; score++) {
      byte[] envelope =
          withDictionary.encode(new Note(score, "feed", "an entry of a feed bucket", score));
      byte[] element = new byte[envelope.length + 1];
      element[0] = (byte) score;
      System.arraycopy(envelope, 0, element, 1, envelope.length);
      redis.rpush(bytes("dl:feed:b:0"), element);
    }
    assertThat(run("dict", "list", "--json", "--redis", server.uri(), "--match", "dl:*")).isZero();
    JsonNode list = MAPPER.readTree(out.toString());
    assertThat(list.get("valuesScanned").asInt()).isEqualTo(15);
    JsonNode row = null;
    for (JsonNode candidate : list.get("dictionaries")) {
      if (candidate.get("id").asText().equals(id)) {
        row = candidate;
      }
    }
    assertThat(row).isNotNull();
    assertThat(row.get("values").asInt()).isEqualTo(15);
    assertThat(row.get("size").asInt()).isEqualTo(stored.length);

    JsonNode inspected = inspect(server, "dl:3");
    assertThat(inspected.get("compression").asText()).isEqualTo("zstd-dict-magicless");
    assertThat(inspected.get("value").get("id").asInt()).isEqualTo(3);

    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "stowage:dict:" + id))
        .isZero();
    assertThat(MAPPER.readTree(out.toString()).get("byFormat"))
        .isEqualTo(MAPPER.readTree("{\"zstd dictionary\":1}"));
    String schema =
        Codecs.<Note>msgpackCompact(Note.class) instanceof Codec.Evolving<Note> evolving
            ? evolving.schema()
            : null;
    redis.set(bytes(Inspector.Keys.schema(Inspector.schemaFingerprint(schema))), bytes(schema));
    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "stowage:schema:*"))
        .isZero();
    assertThat(MAPPER.readTree(out.toString()).get("byFormat"))
        .isEqualTo(MAPPER.readTree("{\"value schema\":1}"));

    assertThat(run("dict", "show", "--redis", server.uri(), "0badcafe")).isEqualTo(1);
    assertThat(err.toString()).contains("no dictionary 0badcafe: no key stowage:dict:0badcafe");
  }

  @Test
  void aFeedIsShownAsAFeedWithItsNewestEntriesAndScanReadsItsBuckets(RedisServer server)
      throws Exception {
    List<BoardRecord> records = Samples.boards(150);
    List<Long> scores;
    try (Stowage stowage = Stowage.builder().redis(server.uri()).build()) {
      // open buckets only: aFeedWithSealedBucketsIsShownAsTheSameFeedWithItsBucketsOpen has sealed
      // ones
      Feed<BoardRecord> feed =
          stowage.feed("board", BoardRecord.class).sealFullBuckets(false).build();
      scores = feed.addAll(records);
    }
    Map<Long, BoardRecord> byScore = new TreeMap<>();
    for (int i = 0; i < records.size(); i++) {
      byScore.put(scores.get(i), records.get(i));
    }
    List<Long> newest = new ArrayList<>(byScore.keySet());
    Collections.reverse(newest);
    List<String> bucketKeys = new ArrayList<>();
    redis
        .zrange(bytes("board"), 0, -1)
        .forEach(b -> bucketKeys.add("board:b:" + new String(b, StandardCharsets.UTF_8)));
    assertThat(bucketKeys).hasSizeGreaterThanOrEqualTo(3);

    JsonNode shown =
        inspect(server, "board", "--members", "5", "--type", BoardRecord.class.getName());
    assertThat(shown.get("type").asText()).isEqualTo("feed");
    assertThat(shown.get("length").asInt()).isEqualTo(150);
    assertThat(shown.get("buckets").asInt()).isEqualTo(bucketKeys.size());
    long memory = redis.memoryUsage(bytes("board"));
    assertThat(shown.get("indexMemoryUsage").asLong()).isEqualTo(memory);
    for (String bucket : bucketKeys) {
      memory += redis.memoryUsage(bytes(bucket));
    }
    assertThat(shown.get("memoryUsage").asLong()).isEqualTo(memory);
    assertThat(shown.get("truncated").asText())
        .isEqualTo("newest 5 of 150 entries shown (--members)");
    JsonNode entries = shown.get("entries");
    assertThat(entries).hasSize(5);
    Inspector.Header header =
        header(entryEnvelope(redis.lindex(bytes(bucketKeys.get(bucketKeys.size() - 1)), -1)));
    for (int i = 0; i < 5; i++) {
      JsonNode entry = entries.get(i);
      BoardRecord record = byScore.get(newest.get(i));
      assertThat(entry.get("score").asLong()).isEqualTo(newest.get(i));
      assertThat(entry.get("format").asText()).isEqualTo("envelope");
      assertThat(entry.get("codec").asText()).isEqualTo("msgpack");
      assertThat(entry.get("header").asText()).isEqualTo(header.describe());
      assertThat(entry.get("value").get("title").asText()).isEqualTo(record.title());
      assertThat(entry.get("value").get("member_id").asLong()).isEqualTo(record.memberId());
    }

    // without --type the default compact MessagePack is the array of the record's components, by
    // position
    JsonNode bare = inspect(server, "board", "--members", "2");
    assertThat(bare.get("entries").get(1).get("score").asLong()).isEqualTo(newest.get(1));
    assertThat(bare.get("entries").get(1).get("value").get(3).asText())
        .isEqualTo(byScore.get(newest.get(1)).title());

    assertThat(run("inspect", "--redis", server.uri(), "--members", "1", "board")).isZero();
    assertThat(out.toString())
        .startsWith(
            "board  feed · "
                + memory
                + " bytes in Redis memory · 150 entries in "
                + bucketKeys.size()
                + " buckets\n  score "
                + newest.get(0)
                + "\n    "
                + header.describe()
                + " · ");

    // a bucket list read as a list: each element shown with its score and decoded
    String oldestBucket = bucketKeys.get(0);
    List<Long> inOldest =
        newest.stream()
            .filter(score -> oldestBucket.equals("board:b:" + score / 64))
            .sorted()
            .toList();
    JsonNode list =
        inspect(server, oldestBucket, "--members", "3", "--type", BoardRecord.class.getName());
    assertThat(list.get("type").asText()).isEqualTo("list");
    assertThat(list.get("length").asInt()).isEqualTo(inOldest.size());
    for (int i = 0; i < 3; i++) {
      JsonNode element = list.get("entries").get(i);
      assertThat(element.get("index").asInt()).isEqualTo(i);
      assertThat(element.get("score").asLong()).isEqualTo(inOldest.get(i));
      assertThat(element.get("value").get("title").asText())
          .isEqualTo(byScore.get(inOldest.get(i)).title());
    }
    assertThat(run("inspect", "--redis", server.uri(), "--members", "1", oldestBucket)).isZero();
    assertThat(out.toString()).contains("\n  index 0 · score " + inOldest.get(0) + "\n");

    // scan: the index counts as a feed, and up to ten entries of each bucket by their envelopes
    Map<String, Integer> expected = new TreeMap<>();
    int sampled = 0;
    for (String bucket : bucketKeys) {
      for (byte[] element : redis.lrange(bytes(bucket), 0, 9)) {
        Inspector.Header h = header(entryEnvelope(element));
        expected.merge(h.codecName() + "+" + h.compressionName(), 1, Integer::sum);
        sampled++;
      }
    }
    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "board*"))
        .as(err.toString())
        .isZero();
    JsonNode report = MAPPER.readTree(out.toString());
    assertThat(report.get("byType"))
        .isEqualTo(MAPPER.readTree("{\"list\":" + bucketKeys.size() + ",\"zset\":1}"));
    assertThat(report.get("feeds").asInt()).isEqualTo(1);
    assertThat(report.get("membersSampled").asInt())
        .isEqualTo(sampled)
        .isEqualTo(Math.min(10, 63) * 2 + Math.min(10, 23));
    assertThat(report.get("membersByFormat")).isEqualTo(tree(expected));
    assertThat(report.get("failureCount").asInt()).isZero();
    assertThat(report.get("needClasses")).isEmpty();
    Map<String, String> formats = new TreeMap<>();
    report
        .get("biggest")
        .forEach(row -> formats.put(row.get("key").asText(), row.path("format").asText()));
    assertThat(formats.get("board")).isEqualTo("feed index");
    assertThat(formats.get(bucketKeys.get(0)))
        .isEqualTo(expected.size() == 1 ? expected.keySet().iterator().next() : "mixed");
  }

  /** The members of a sealed bucket's value: its payload, decompressed, split. */
  private static List<byte[]> sealedMembers(byte[] value) {
    return Inspector.sealedBucketEntries(payload(value));
  }

  /** The header of a value that must have an envelope. */
  private static Inspector.Header header(byte[] value) {
    return Inspector.header(value).orElseThrow();
  }

  /** An envelope's payload, decompressed, as a cache would read it. */
  private static byte[] payload(byte[] value) {
    return stowage.inspector().payload(value);
  }

  private static List<String> index(String key) {
    return redis.zrange(bytes(key), 0, -1).stream()
        .map(m -> new String(m, StandardCharsets.US_ASCII))
        .toList();
  }

  /**
   * Two feeds of the same 200 records, one with its full buckets sealed (0 to 2, each one string)
   * and one without: the inspector shows them alike, entry by entry (score and value, newest
   * first), and scan counts both as feeds, the sealed buckets as such, sampling their entries as it
   * samples a bucket list's.
   */
  @Test
  void aFeedWithSealedBucketsIsShownAsTheSameFeedWithItsBucketsOpen(RedisServer server)
      throws Exception {
    List<BoardRecord> records = Samples.boards(200);
    try (Stowage stowage = Stowage.builder().redis(server.uri()).build()) {
      assertThat(stowage.feed("sealed", BoardRecord.class).build().addAll(records))
          .first()
          .isEqualTo(1L);
      assertThat(
              stowage
                  .feed("unsealed", BoardRecord.class)
                  .sealFullBuckets(false)
                  .build()
                  .addAll(records))
          .last()
          .isEqualTo(200L);
    }
    assertThat(index("sealed")).containsExactly("0:63", "1:64", "2:64", "3");
    assertThat(index("unsealed")).containsExactly("0", "1", "2", "3");

    String type = BoardRecord.class.getName();
    JsonNode sealed = inspect(server, "sealed", "--members", "200", "--type", type);
    JsonNode open = inspect(server, "unsealed", "--members", "200", "--type", type);
    assertThat(sealed.get("type").asText()).isEqualTo("feed");
    assertThat(sealed.get("length").asInt()).isEqualTo(200);
    assertThat(sealed.get("buckets").asInt()).isEqualTo(4);
    assertThat(sealed.get("sealedBuckets").asInt()).isEqualTo(3);
    assertThat(open.get("sealedBuckets").asInt()).isZero();
    assertThat(sealed.has("truncated")).isFalse();
    long memory = redis.memoryUsage(bytes("sealed"));
    assertThat(sealed.get("indexMemoryUsage").asLong()).isEqualTo(memory);
    for (int bucket = 0; bucket < 3; bucket++) {
      memory += redis.memoryUsage(bytes(Inspector.Keys.feedSealedBucket("sealed", bucket)));
    }
    memory += redis.memoryUsage(bytes(Inspector.Keys.feedBucket("sealed", 3)));
    assertThat(sealed.get("memoryUsage").asLong()).isEqualTo(memory);
    JsonNode entries = sealed.get("entries");
    assertThat(entries).hasSize(200);
    for (int i = 0; i < 200; i++) {
      JsonNode entry = entries.get(i);
      long score = 200L - i;
      assertThat(entry.get("score").asLong()).as("entry %d", i).isEqualTo(score);
      assertThat(entry.get("format").asText()).isEqualTo("envelope");
      assertThat(entry.has("error")).as(entry.toString()).isFalse();
      assertThat(entry.get("value"))
          .as("score %d", score)
          .isEqualTo(open.get("entries").get(i).get("value"));
      assertThat(entry.get("value").get("title").asText())
          .isEqualTo(records.get((int) score - 1).title());
      assertThat(entry.get("value").get("member_id").asLong())
          .isEqualTo(records.get((int) score - 1).memberId());
    }
    // a sealed bucket's entries keep their own envelopes, uncompressed inside the bucket's frame
    List<byte[]> members =
        sealedMembers(redis.get(bytes(Inspector.Keys.feedSealedBucket("sealed", 2))));
    Inspector.Header member = header(entryEnvelope(members.get(members.size() - 1)));
    assertThat(entries.get(9).get("header").asText()).isEqualTo(member.describe());
    assertThat(entries.get(9).get("storedSize").asInt())
        .isEqualTo(entryEnvelope(members.get(63)).length);

    // pages across an open bucket into a sealed one, and the newest entries of a sealed bucket
    // first
    JsonNode across = inspect(server, "sealed", "--members", "12");
    assertThat(across.get("entries"))
        .extracting(entry -> entry.get("score").asLong())
        .containsExactly(200L, 199L, 198L, 197L, 196L, 195L, 194L, 193L, 192L, 191L, 190L, 189L);
    assertThat(across.get("truncated").asText())
        .isEqualTo("newest 12 of 200 entries shown (--members)");
    assertThat(run("inspect", "--redis", server.uri(), "--members", "10", "sealed")).isZero();
    assertThat(out.toString())
        .startsWith(
            "sealed  feed · "
                + memory
                + " bytes in Redis memory · 200 entries in 4 buckets (3 sealed)\n  score 200\n")
        .contains("\n  score 191\n    " + member.describe() + " · ");

    // a feed whose buckets are all sealed is still a feed
    redis.del(bytes("sealed:b:3"));
    redis.zrem(bytes("sealed"), bytes("3"));
    JsonNode allSealed = inspect(server, "sealed", "--members", "3");
    assertThat(allSealed.get("type").asText()).isEqualTo("feed");
    assertThat(allSealed.get("length").asInt()).isEqualTo(191);
    assertThat(allSealed.get("entries"))
        .extracting(entry -> entry.get("score").asLong())
        .containsExactly(191L, 190L, 189L);

    // a sealed bucket read as a key: its envelope, then its entries, oldest first, as a bucket's
    // list is shown
    JsonNode bucket = inspect(server, "sealed:s:1", "--members", "3", "--type", type);
    Inspector.Header header = header(redis.get(bytes("sealed:s:1")));
    assertThat(bucket.get("type").asText()).isEqualTo("sealed bucket");
    assertThat(bucket.get("feed").asText()).isEqualTo("sealed");
    assertThat(bucket.get("bucket").asInt()).isEqualTo(1);
    assertThat(bucket.get("header").asText()).isEqualTo(header.describe());
    assertThat(bucket.get("compression").asText()).isNotEqualTo("none");
    assertThat(bucket.get("length").asInt()).isEqualTo(64);
    assertThat(bucket.get("truncated").asText())
        .isEqualTo("first 3 of 64 members shown (--members)");
    for (int i = 0; i < 3; i++) {
      JsonNode element = bucket.get("entries").get(i);
      assertThat(element.get("index").asInt()).isEqualTo(i);
      assertThat(element.get("score").asLong()).isEqualTo(64 + i);
      assertThat(element.get("value").get("title").asText()).isEqualTo(records.get(63 + i).title());
    }
    assertThat(run("inspect", "--redis", server.uri(), "--members", "1", "sealed:s:1")).isZero();
    assertThat(out.toString())
        .startsWith(
            "sealed:s:1  sealed bucket · "
                + redis.memoryUsage(bytes("sealed:s:1"))
                + " bytes in Redis memory · bucket 1 of feed sealed · 64 entries\n  "
                + header.describe()
                + " · "
                + redis.strlen(bytes("sealed:s:1"))
                + " bytes stored, ")
        .contains("\n  index 0 · score 64\n");
    // a string named like one whose index does not say so is a string
    redis.set(bytes("sealed:s:7"), bytes("just text"));
    assertThat(inspect(server, "sealed:s:7").get("type").asText()).isEqualTo("string");
    redis.set(bytes("plain"), bytes("not an index"));
    redis.set(bytes("plain:s:1"), bytes("nor a sealed bucket"));
    assertThat(inspect(server, "plain:s:1").get("value").asText()).isEqualTo("nor a sealed bucket");
    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "plain*"))
        .as(err.toString())
        .isZero();
    assertThat(MAPPER.readTree(out.toString()).get("byFormat"))
        .isEqualTo(MAPPER.readTree("{\"legacy text\":2}"));

    // scan: both feeds, the sealed buckets among the strings, ten entries of each bucket sampled
    Map<String, Integer> expected = new TreeMap<>();
    for (int b = 0; b < 3; b++) {
      for (byte[] m :
          sealedMembers(redis.get(bytes(Inspector.Keys.feedSealedBucket("sealed", b))))
              .subList(0, 10)) {
        Inspector.Header h = header(entryEnvelope(m));
        expected.merge(h.codecName() + "+" + h.compressionName(), 1, Integer::sum);
      }
    }
    String sealedFormat = "sealed feed bucket+" + header.compressionName();
    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "sealed*"))
        .as(err.toString())
        .isZero();
    JsonNode report = MAPPER.readTree(out.toString());
    assertThat(report.get("byType")).isEqualTo(MAPPER.readTree("{\"string\":4,\"zset\":1}"));
    assertThat(report.get("feeds").asInt()).isEqualTo(1);
    assertThat(report.get("byFormat"))
        .isEqualTo(MAPPER.readTree("{\"" + sealedFormat + "\":3,\"legacy text\":1}"));
    assertThat(report.get("membersSampled").asInt()).isEqualTo(30);
    assertThat(report.get("membersByFormat")).isEqualTo(tree(expected));
    assertThat(report.get("failureCount").asInt()).isZero();
    Map<String, String> formats = new TreeMap<>();
    report
        .get("biggest")
        .forEach(row -> formats.put(row.get("key").asText(), row.path("format").asText()));
    assertThat(formats)
        .containsEntry("sealed", "feed index")
        .containsEntry("sealed:s:0", sealedFormat)
        .containsEntry("sealed:s:2", sealedFormat);
    assertThat(run("scan", "--redis", server.uri(), "--match", "sealed*")).isZero();
    assertThat(out.toString())
        .contains("feeds  1 (sorted sets indexing bucket lists and sealed buckets")
        .contains("failed to decode: 0");
    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "unsealed*")).isZero();
    assertThat(MAPPER.readTree(out.toString()).get("feeds").asInt()).isEqualTo(1);
  }

  /**
   * A sealed bucket cut short and one whose dictionary is gone: inspect shows each as one entry
   * saying why it cannot be read, in its place, and the other entries around it; scan counts them
   * as failures; dict train skips them. Nothing stops.
   */
  @Test
  void undecodableSealedBucketsAreReportedAndTheRestOfTheFeedRead(RedisServer server)
      throws Exception {
    List<BoardRecord> records = Samples.boards(200);
    try (Stowage stowage = Stowage.builder().redis(server.uri()).build()) {
      stowage.feed("cut", BoardRecord.class).build().addAll(records);
    }
    assertThat(index("cut")).containsExactly("0:63", "1:64", "2:64", "3");
    byte[] whole = redis.get(bytes("cut:s:1"));
    redis.set(bytes("cut:s:1"), Arrays.copyOf(whole, whole.length - 20));
    byte[] unsaved = bytes("a dictionary nobody stored: title member_id body score");
    byte[] payload = payload(redis.get(bytes("cut:s:0")));
    redis.set(
        bytes("cut:s:0"),
        Encoding.of(RAW)
            .compression(Compression.zstd(unsaved).minSize(0))
            .serializer()
            .encode(payload));

    JsonNode shown = inspect(server, "cut", "--members", "200");
    assertThat(shown.get("length").asInt()).isEqualTo(200);
    JsonNode entries = shown.get("entries");
    assertThat(entries).hasSize(9 + 64 + 2);
    for (int i = 0; i < 73; i++) {
      assertThat(entries.get(i).get("score").asLong()).isEqualTo(200 - i);
      assertThat(entries.get(i).has("error")).isFalse();
    }
    JsonNode truncated = entries.get(73);
    assertThat(truncated.get("bucket").asInt()).isEqualTo(1);
    assertThat(truncated.get("sealedEntries").asInt()).isEqualTo(64);
    assertThat(truncated.get("error").asText())
        .startsWith("sealed bucket 1 (64 entries, cut:s:1) cannot be read: ");
    assertThat(truncated.get("hex").asText()).isNotBlank();
    JsonNode nodict = entries.get(74);
    assertThat(nodict.get("bucket").asInt()).isZero();
    assertThat(nodict.get("sealedEntries").asInt()).isEqualTo(63);
    assertThat(nodict.get("dictionaryId").asText())
        .isEqualTo(Inspector.hexId(Inspector.dictionaryId(unsaved)));
    assertThat(nodict.get("error").asText())
        .startsWith(
            "sealed bucket 0 (63 entries, cut:s:0) cannot be read: zstd dictionary "
                + Inspector.hexId(Inspector.dictionaryId(unsaved))
                + " is missing: no key stowage:dict:"
                + Inspector.hexId(Inspector.dictionaryId(unsaved))
                + " in Redis");
    // --members counts the entries a bucket that cannot be read stands for
    JsonNode few = inspect(server, "cut", "--members", "80");
    assertThat(few.get("entries")).hasSize(74);
    assertThat(few.get("entries").get(73).get("bucket").asInt()).isEqualTo(1);

    assertThat(run("inspect", "--redis", server.uri(), "--members", "200", "cut", "cut:s:0"))
        .as(err.toString())
        .isZero();
    assertThat(out.toString())
        .contains("\n  score 128\n")
        .contains("\n  sealed bucket 1 · 64 entries\n")
        .contains("\n    error: sealed bucket 1 (64 entries, cut:s:1) cannot be read: ")
        .contains("\n  sealed bucket 0 · 63 entries\n")
        .contains("cut:s:0  sealed bucket · ")
        .contains(
            "error: zstd dictionary "
                + Inspector.hexId(Inspector.dictionaryId(unsaved))
                + " is missing")
        .doesNotContain("Exception");
    JsonNode alone = inspect(server, "cut:s:0");
    assertThat(alone.get("type").asText()).isEqualTo("sealed bucket");
    assertThat(alone.has("entries")).isFalse();
    assertThat(alone.get("error").asText())
        .startsWith(
            "zstd dictionary " + Inspector.hexId(Inspector.dictionaryId(unsaved)) + " is missing");

    // a bucket the index says is sealed but is gone
    redis.zadd(bytes("cut"), 5, bytes("5:64"));
    JsonNode gone = inspect(server, "cut", "--members", "1");
    assertThat(gone.get("entries").get(0).get("error").asText())
        .isEqualTo(
            "sealed bucket 5 is missing: no key cut:s:5, though the index says it holds 64 entries");
    redis.zrem(bytes("cut"), bytes("5:64"));

    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "cut*"))
        .as(err.toString())
        .isZero();
    JsonNode report = MAPPER.readTree(out.toString());
    assertThat(report.get("feeds").asInt()).isEqualTo(1);
    assertThat(report.get("membersSampled").asInt()).isEqualTo(10 + 9);
    assertThat(report.get("failureCount").asInt()).isEqualTo(2);
    Map<String, String> reasons = new TreeMap<>();
    report
        .get("failures")
        .forEach(row -> reasons.put(row.get("key").asText(), row.get("reason").asText()));
    assertThat(reasons).containsOnlyKeys("cut:s:0", "cut:s:1");
    assertThat(reasons.get("cut:s:0"))
        .startsWith(
            "sealed bucket cannot be read: zstd dictionary "
                + Inspector.hexId(Inspector.dictionaryId(unsaved))
                + " is missing");
    assertThat(reasons.get("cut:s:1")).startsWith("sealed bucket cannot be read: ");

    assertThat(
            run(
                "dict",
                "train",
                "--json",
                "--redis",
                server.uri(),
                "--match",
                "cut*",
                "--size",
                "2048"))
        .as(err.toString())
        .isZero();
    JsonNode trained = MAPPER.readTree(out.toString());
    assertThat(trained.get("samples").asInt()).isEqualTo(64 + 9);
    assertThat(trained.get("skipped").asInt()).isEqualTo(2);
  }

  /**
   * dict train samples a feed's entries, open and sealed alike: each entry's payload, decompressed.
   */
  @Test
  void dictTrainSamplesTheEntriesOfOpenAndSealedBuckets(RedisServer server) throws Exception {
    List<BoardRecord> records = Samples.boards(200);
    try (Stowage stowage = Stowage.builder().redis(server.uri()).build()) {
      stowage.feed("dtfeed", BoardRecord.class).build().addAll(records);
    }
    assertThat(index("dtfeed")).containsExactly("0:63", "1:64", "2:64", "3");
    long sampleBytes = 0;
    for (int b = 0; b < 3; b++) {
      for (byte[] m :
          sealedMembers(redis.get(bytes(Inspector.Keys.feedSealedBucket("dtfeed", b))))) {
        sampleBytes += payload(entryEnvelope(m)).length;
      }
    }
    for (byte[] m : redis.lrange(bytes(Inspector.Keys.feedBucket("dtfeed", 3)), 0, -1)) {
      sampleBytes += payload(entryEnvelope(m)).length;
    }

    assertThat(
            run(
                "dict",
                "train",
                "--json",
                "--redis",
                server.uri(),
                "--match",
                "dtfeed*",
                "--size",
                "2048"))
        .as(err.toString())
        .isZero();
    JsonNode trained = MAPPER.readTree(out.toString());
    assertThat(trained.get("samples").asInt()).isEqualTo(200);
    assertThat(trained.get("sampleBytes").asLong()).isEqualTo(sampleBytes);
    assertThat(trained.get("skipped").asInt()).isZero();
    assertThat(trained.get("stored").asBoolean()).isTrue();

    // --samples stops inside a bucket
    assertThat(
            run(
                "dict",
                "train",
                "--json",
                "--redis",
                server.uri(),
                "--match",
                "dtfeed*",
                "--size",
                "2048",
                "--samples",
                "100"))
        .as(err.toString())
        .isZero();
    assertThat(MAPPER.readTree(out.toString()).get("samples").asInt()).isEqualTo(100);
  }

  /** The envelope of a feed bucket's element: the bytes after its score's varint. */
  private static byte[] entryEnvelope(byte[] element) {
    int prefix = 0;
    while ((element[prefix] & 0x80) != 0) {
      prefix++;
    }
    return Arrays.copyOfRange(element, prefix + 1, element.length);
  }

  @Test
  void aSortedSetOfNumbersIsNotTakenForAFeed(RedisServer server) throws Exception {
    redis.zadd(bytes("notfeed:scores"), 1, bytes("1"));
    redis.zadd(bytes("notfeed:scores"), 2, bytes("2"));
    JsonNode shown = inspect(server, "notfeed:scores"); // no notfeed:scores:b:1 list
    assertThat(shown.get("type").asText()).isEqualTo("zset");
    assertThat(shown.get("entries").get(0).get("value").asInt()).isEqualTo(2);

    redis.zadd(bytes("notfeed:ranks"), 5, bytes("1"));
    redis.rpush(bytes("notfeed:ranks:b:1"), bytes("x"));
    assertThat(inspect(server, "notfeed:ranks").get("type").asText()).isEqualTo("zset");
  }

  @Test
  void legacyValuesAreReadWithAnyBuiltInCodec(RedisServer server) throws Exception {
    redis.set(bytes("legacy:msgpack"), Codecs.msgpack(Note.class).encode(NOTE));
    redis.set(bytes("legacy:compact"), Codecs.msgpackCompact(Note.class).encode(NOTE));
    redis.set(bytes("legacy:kryo"), Codecs.kryo(Note.class).encode(NOTE));
    redis.set(bytes("legacy:fory"), Codecs.fory(Note.class).encode(NOTE));
    redis.set(bytes("legacy:fastjson2"), Codecs.fastjson2(Note.class).encode(NOTE));

    assertThat(inspect(server, "legacy:msgpack").get("legacy").asText()).isEqualTo("binary");
    JsonNode msgpack = inspect(server, "legacy:msgpack", "--legacy", "msgpack");
    assertThat(msgpack.get("format").asText()).isEqualTo("legacy");
    assertThat(msgpack.get("legacy").asText()).isEqualTo("msgpack");
    assertThat(msgpack.get("value")).isEqualTo(tree(NOTE));
    assertThat(inspect(server, "legacy:compact", "--legacy", "MsgPack").get("value"))
        .isEqualTo(
            MAPPER.readTree("[7,\"stowage\"," + MAPPER.writeValueAsString(NOTE.body()) + ",42]"));
    assertThat(
            inspect(
                    server,
                    "legacy:compact",
                    "--legacy",
                    "msgpack-compact",
                    "--type",
                    Note.class.getName())
                .get("value"))
        .isEqualTo(tree(NOTE));
    assertThat(inspect(server, "legacy:fastjson2", "--legacy", "fastjson2").get("value"))
        .isEqualTo(tree(NOTE));

    JsonNode kryo =
        inspect(server, "legacy:kryo", "--legacy", "kryo", "--type", Note.class.getName());
    assertThat(kryo.get("legacy").asText()).isEqualTo("kryo");
    assertThat(kryo.get("class").asText()).isEqualTo(Note.class.getName());
    assertThat(kryo.get("value")).isEqualTo(tree(NOTE));
    assertThat(
            inspect(server, "legacy:fory", "--legacy", "fory", "--type", Note.class.getName())
                .get("value"))
        .isEqualTo(tree(NOTE));

    // Kryo bytes read as MessagePack: an error with the bytes, not a crash
    JsonNode wrong =
        inspect(server, "legacy:kryo", "--legacy", "msgpack", "--type", Note.class.getName());
    assertThat(wrong.get("error").asText()).startsWith("legacy msgpack value could not be read: ");
    assertThat(wrong.has("value")).isFalse();
    assertThat(wrong.get("hex").asText()).startsWith("00000000 ");

    assertThat(run("inspect", "--redis", server.uri(), "--legacy", "kryo", "legacy:kryo"))
        .isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "--legacy kryo needs --type: kryo bytes do not say what class they hold"
                + " (pass --type CLASS, with --classpath for the cache's classes and --register for the classes it registers)\n");
    assertThat(run("scan", "--redis", server.uri(), "--match", "legacy:*", "--legacy", "protobuf"))
        .isEqualTo(2);
    assertThat(err.toString())
        .startsWith(
            "--legacy protobuf needs --type: protobuf bytes do not say what class they hold");
    assertThat(run("inspect", "--redis", server.uri(), "--legacy", "yaml", "legacy:kryo"))
        .isEqualTo(2);
    assertThat(err.toString())
        .contains(
            "'yaml' is not a legacy format; choose from auto, json, msgpack, msgpack-compact,"
                + " kryo, fory, protobuf, avro, thrift, jdk, fastjson2, string");

    assertThat(
            run(
                "scan",
                "--json",
                "--redis",
                server.uri(),
                "--match",
                "legacy:kryo",
                "--legacy",
                "kryo",
                "--type",
                Note.class.getName()))
        .as(err.toString())
        .isZero();
    assertThat(MAPPER.readTree(out.toString()).get("byFormat"))
        .isEqualTo(MAPPER.readTree("{\"legacy kryo\":1}"));
  }

  @Test
  void generatedClassesAreShownUnderEveryCompression(RedisServer server) throws Exception {
    redis.set(bytes(Inspector.Keys.dictionary(Inspector.dictionaryId(DICTIONARY))), DICTIONARY);
    BoardRecord sample = Samples.board(9);
    // a body that every compression shortens, so that none of them is skipped as not worth it
    BoardRecord record =
        new BoardRecord(
            sample.id(),
            sample.score(),
            sample.memberId(),
            sample.title(),
            (sample.body() + " ").repeat(8),
            sample.address(),
            sample.country(),
            sample.job(),
            sample.credit(),
            sample.ssn(),
            sample.company(),
            sample.phoneNumber(),
            sample.modifiedAt(),
            sample.createdAt(),
            sample.createdTs());
    Map<String, Codec<?>> codecs = new LinkedHashMap<>();
    Map<String, Object> values = new LinkedHashMap<>();
    codecs.put(
        dev.stowage.samples.protobuf.BoardRecord.class.getName(),
        Codecs.protobuf(dev.stowage.samples.protobuf.BoardRecord.class));
    values.put(
        dev.stowage.samples.protobuf.BoardRecord.class.getName(), ProtobufForms.toProtobuf(record));
    codecs.put(
        dev.stowage.samples.avro.BoardRecord.class.getName(),
        Codecs.avro(dev.stowage.samples.avro.BoardRecord.class));
    values.put(dev.stowage.samples.avro.BoardRecord.class.getName(), AvroForms.toAvro(record));
    codecs.put(TBoardRecord.class.getName(), Codecs.thrift(TBoardRecord.class));
    values.put(TBoardRecord.class.getName(), ThriftForms.toThrift(record));
    for (Map.Entry<String, Compression> compression : COMPRESSIONS.entrySet()) {
      for (Map.Entry<String, Codec<?>> codec : codecs.entrySet()) {
        String key = "gen:" + codec.getValue().id() + ":" + compression.getKey();
        byte[] stored =
            encode(codec.getValue(), compression.getValue(), values.get(codec.getKey()));
        redis.set(bytes(key), stored);
        JsonNode shown = inspect(server, key, "--type", codec.getKey());
        assertThat(shown.get("compression").asText()).as(key).isEqualTo(compression.getKey());
        assertThat(shown.get("storedSize").asInt()).as(key).isEqualTo(stored.length);
        assertThat(shown.get("value").get("title").asText()).as(key).isEqualTo(record.title());
        assertThat(shown.get("value").get("body").asText()).as(key).isEqualTo(record.body());
      }
      String key = "gen:string:" + compression.getKey();
      String text = "ünïcode text, repeated; ".repeat(20);
      redis.set(bytes(key), encode(Codecs.string(), compression.getValue(), text));
      JsonNode shown = inspect(server, key);
      assertThat(shown.get("codec").asText()).isEqualTo("string");
      assertThat(shown.get("compression").asText()).as(key).isEqualTo(compression.getKey());
      assertThat(shown.get("value").asText()).as(key).isEqualTo(text);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> byte[] encode(Codec<T> codec, Compression compression, Object value) {
    return Encoding.of(codec).compression(compression).serializer().encode((T) value);
  }

  @Test
  void classesOutsideThisProgramAreLoadedFromClasspathAndKryoRegistersThemInOrder(
      RedisServer server, @TempDir Path dir) throws Exception {
    Path sources = Files.createDirectories(dir.resolve("src/demo"));
    Path classes = Files.createDirectories(dir.resolve("classes"));
    Files.writeString(
        sources.resolve("Point.java"),
        "package demo; public class Point { public int x; public Tag tag; public Label label; }");
    Files.writeString(
        sources.resolve("Tag.java"), "package demo; public class Tag { public String name; }");
    Files.writeString(
        sources.resolve("Label.java"),
        "package demo; public class Label { public String text; public int weight; }");
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    StringWriter compilerOutput = new StringWriter();
    assertThat(
            compiler
                .getTask(
                    compilerOutput,
                    null,
                    null,
                    List.of("-d", classes.toString()),
                    null,
                    compiler
                        .getStandardFileManager(null, null, null)
                        .getJavaFileObjects(
                            sources.resolve("Point.java").toFile(),
                            sources.resolve("Tag.java").toFile(),
                            sources.resolve("Label.java").toFile()))
                .call())
        .as(compilerOutput.toString())
        .isTrue();
    assertThatClassIsAbsent("demo.Point");

    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> point = loader.loadClass("demo.Point");
      Class<?> tag = loader.loadClass("demo.Tag");
      Class<?> label = loader.loadClass("demo.Label");
      Object value = newInstance(point);
      point.getField("x").setInt(value, 3);
      Object tagValue = newInstance(tag);
      tag.getField("name").set(tagValue, "red");
      point.getField("tag").set(value, tagValue);
      Object labelValue = newInstance(label);
      label.getField("text").set(labelValue, "heavy");
      label.getField("weight").setInt(labelValue, 9);
      point.getField("label").set(value, labelValue);
      @SuppressWarnings("unchecked")
      Codec<Object> kryo = Codecs.kryo((Class<Object>) point, tag, label);
      redis.set(
          bytes("cp:point"),
          Encoding.of(kryo).compression(Compression.none()).serializer().encode(value));
    }

    assertThat(
            run("inspect", "--json", "--redis", server.uri(), "--type", "demo.Point", "cp:point"))
        .isEqualTo(1);
    assertThat(err.toString())
        .isEqualTo(
            "stowage inspect: --type: class demo.Point was not found on this program's"
                + " class path; pass --classpath with the cache's jars\n");

    String path = classes.toString();
    JsonNode shown =
        inspect(
            server,
            "cp:point",
            "--classpath",
            path,
            "--type",
            "demo.Point",
            "--register",
            "demo.Tag,demo.Label");
    assertThat(shown.get("class").asText()).isEqualTo("demo.Point");
    assertThat(shown.get("value"))
        .isEqualTo(
            MAPPER.readTree(
                "{\"x\":3,\"tag\":{\"name\":\"red\"},\"label\":{\"text\":\"heavy\",\"weight\":9}}"));

    // Kryo numbers registered classes in order: swapped, each field's bytes are read as the other
    // class
    JsonNode swapped =
        inspect(
            server,
            "cp:point",
            "--classpath",
            path,
            "--type",
            "demo.Point",
            "--register",
            "demo.Label,demo.Tag");
    assertThat(swapped.has("value")).isFalse();
    assertThat(swapped.get("error").asText()).startsWith("kryo payload could not be decoded: ");

    JsonNode missing =
        inspect(
            server,
            "cp:point",
            "--classpath",
            path,
            "--type",
            "demo.Point",
            "--register",
            "demo.Tag");
    assertThat(missing.has("value")).isFalse();
    assertThat(missing.get("error").asText())
        .contains("needs every class its fields hold registered")
        .contains("demo.Label");

    assertThat(
            run(
                "inspect",
                "--redis",
                server.uri(),
                "--classpath",
                dir.resolve("nowhere").toString(),
                "--type",
                "demo.Point",
                "cp:point"))
        .isEqualTo(1);
    assertThat(err.toString())
        .isEqualTo("stowage inspect: --classpath: " + dir.resolve("nowhere") + " does not exist\n");
  }

  @Test
  void jdkValuesOfClassesOutsideThisProgramAreDecodedFromClasspathBehindTheAllowlist(
      RedisServer server, @TempDir Path dir) throws Exception {
    Path sources = Files.createDirectories(dir.resolve("src/shop"));
    Path classes = Files.createDirectories(dir.resolve("classes"));
    Files.writeString(
        sources.resolve("Ticket.java"),
        "package shop; public class Ticket implements java.io.Serializable {"
            + " public String id; public Seat seat; public java.io.Serializable extra; }");
    Files.writeString(
        sources.resolve("Seat.java"),
        "package shop; public class Seat implements java.io.Serializable { public int row; public String letter; }");
    Files.writeString(
        sources.resolve("Coupon.java"),
        "package shop; public class Coupon implements java.io.Serializable { public String code; }");
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    StringWriter compilerOutput = new StringWriter();
    assertThat(
            compiler
                .getTask(
                    compilerOutput,
                    null,
                    null,
                    List.of("-d", classes.toString()),
                    null,
                    compiler
                        .getStandardFileManager(null, null, null)
                        .getJavaFileObjects(
                            sources.resolve("Ticket.java").toFile(),
                            sources.resolve("Seat.java").toFile(),
                            sources.resolve("Coupon.java").toFile()))
                .call())
        .as(compilerOutput.toString())
        .isTrue();
    assertThatClassIsAbsent("shop.Ticket");

    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      Class<?> ticket = loader.loadClass("shop.Ticket");
      Class<?> seat = loader.loadClass("shop.Seat");
      Object value = newInstance(ticket);
      ticket.getField("id").set(value, "T-1");
      Object seatValue = newInstance(seat);
      seat.getField("row").setInt(seatValue, 12);
      seat.getField("letter").set(seatValue, "C");
      ticket.getField("seat").set(value, seatValue);
      // as Spring's JdkSerializationRedisSerializer wrote it, and in an envelope
      redis.set(bytes("jdk:ticket"), new JdkSerializationRedisSerializer().serialize(value));
      @SuppressWarnings("unchecked")
      Codec<Object> jdk = Codecs.jdk((Class<Object>) ticket);
      redis.set(
          bytes("jdk:ticket:enveloped"),
          Encoding.of(jdk).compression(Compression.none()).serializer().encode(value));
      Object coupon = newInstance(loader.loadClass("shop.Coupon"));
      coupon.getClass().getField("code").set(coupon, "FREE");
      ticket.getField("extra").set(value, coupon);
      redis.set(bytes("jdk:ticket:coupon"), new JdkSerializationRedisSerializer().serialize(value));
    }

    String path = classes.toString();
    JsonNode expected =
        MAPPER.readTree("{\"id\":\"T-1\",\"seat\":{\"row\":12,\"letter\":\"C\"},\"extra\":null}");
    JsonNode legacy = inspect(server, "jdk:ticket", "--classpath", path, "--type", "shop.Ticket");
    assertThat(legacy.get("legacy").asText()).isEqualTo("jdk");
    assertThat(legacy.get("class").asText()).isEqualTo("shop.Ticket");
    assertThat(legacy.get("value")).isEqualTo(expected);
    JsonNode enveloped =
        inspect(server, "jdk:ticket:enveloped", "--classpath", path, "--type", "shop.Ticket");
    assertThat(enveloped.get("class").asText()).isEqualTo("shop.Ticket");
    assertThat(enveloped.get("value")).isEqualTo(expected);

    // a class the fields do not declare is refused until --register allows it
    JsonNode refused =
        inspect(server, "jdk:ticket:coupon", "--classpath", path, "--type", "shop.Ticket");
    assertThat(refused.has("value")).isFalse();
    assertThat(refused.get("error").asText()).contains("class shop.Coupon is not in its allowlist");
    JsonNode allowed =
        inspect(
            server,
            "jdk:ticket:coupon",
            "--classpath",
            path,
            "--type",
            "shop.Ticket",
            "--register",
            "shop.Coupon");
    assertThat(allowed.get("value").get("extra")).isEqualTo(MAPPER.readTree("{\"code\":\"FREE\"}"));
  }

  private void assertThatClassIsAbsent(String name) {
    assertThat(getClass().getClassLoader().getResource(name.replace('.', '/') + ".class")).isNull();
  }

  private static Object newInstance(Class<?> type) throws ReflectiveOperationException {
    Constructor<?> constructor = type.getConstructor();
    return constructor.newInstance();
  }
}
