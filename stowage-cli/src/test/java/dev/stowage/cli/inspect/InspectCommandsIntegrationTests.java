package dev.stowage.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.stowage.Codec;
import dev.stowage.EnvelopeCodec;
import dev.stowage.cli.StowageCli;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.compress.DictionaryStore;
import dev.stowage.compress.ZstdDictionary;
import dev.stowage.testkit.RedisServer;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
  private static final ZstdDictionary DICTIONARY = ZstdDictionary.of(
      "{\"id\":,\"title\":\"stowage\",\"body\":\"keeps values in redis; \",\"votes\":}".getBytes(StandardCharsets.UTF_8));

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
  }

  @AfterAll
  static void close() {
    connection.close();
    client.shutdown();
  }

  /** The tree of a value as its JSON text reads back, so that numbers compare by value. */
  private static JsonNode tree(Object value) {
    try {
      return MAPPER.readTree(MAPPER.writeValueAsString(value));
    } catch (java.io.IOException e) {
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

  private static final Map<String, Function<Class<Note>, Codec<Note>>> CODECS = new LinkedHashMap<>();
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
    COMPRESSIONS.put("zstd-dict", Compression.zstd(DICTIONARY).minSize(0));
  }

  @Test
  void everyCodecAndCompressionIsShownAsTheSameJson(RedisServer server) throws Exception {
    new DictionaryStore(connection).save(DICTIONARY);
    JsonNode expected = tree(NOTE);
    for (Map.Entry<String, Function<Class<Note>, Codec<Note>>> codec : CODECS.entrySet()) {
      for (Map.Entry<String, Compression> compression : COMPRESSIONS.entrySet()) {
        String key = "all:" + codec.getKey() + ":" + compression.getKey();
        EnvelopeCodec<Note> envelope = EnvelopeCodec.builder(codec.getValue().apply(Note.class))
            .compression(compression.getValue()).schemaVersion(3).build();
        byte[] stored = envelope.encode(NOTE);
        redis.set(bytes(key), stored);
        String codecName = codec.getKey().equals("msgpack-compact") ? "msgpack" : codec.getKey();
        boolean needsClass = List.of("kryo", "fory", "jdk").contains(codecName);

        JsonNode shown = inspect(server, key);
        assertThat(shown.get("type").asText()).isEqualTo("string");
        assertThat(shown.get("format").asText()).isEqualTo("envelope");
        assertThat(shown.get("codec").asText()).as(key).isEqualTo(codecName);
        assertThat(shown.get("compression").asText()).as(key).isEqualTo(compression.getKey());
        assertThat(shown.get("schemaVersion").asInt()).isEqualTo(3);
        assertThat(shown.get("storedSize").asInt()).isEqualTo(stored.length);
        assertThat(shown.get("decodedSize").asInt()).isEqualTo(codec.getValue().apply(Note.class).encode(NOTE).length);
        assertThat(shown.get("memoryUsage").asLong()).isPositive();
        if (compression.getKey().equals("zstd-dict")) {
          assertThat(shown.get("dictionaryId").asText()).isEqualTo(DICTIONARY.hexId());
        }
        if (needsClass) {
          assertThat(shown.has("value")).as(key).isFalse();
          assertThat(shown.get("hex").asText()).startsWith("00000000 ");
          assertThat(shown.get("missing").asText()).as(key).startsWith(codecName.equals("jdk")
              ? "java serialization of class " + Note.class.getName()
              : codecName + " value: pass --type and --classpath with the cache's classes");
          shown = inspect(server, key, "--type", Note.class.getName());
        }
        JsonNode value = shown.get("value");
        if (codec.getKey().equals("msgpack-compact")) {
          // without the class the compact form is the array of field values, by position
          assertThat(value).as(key).isEqualTo(MAPPER.readTree("[7,\"stowage\"," + MAPPER.writeValueAsString(NOTE.body()) + ",42]"));
          value = inspect(server, key, "--type", Note.class.getName()).get("value");
        }
        assertThat(value).as(key).isEqualTo(expected);
      }
    }
  }

  @Test
  void generatedProtobufAvroAndThriftClassesAreShownWithTheirFieldNames(RedisServer server) throws Exception {
    dev.stowage.samples.BoardRecord record = dev.stowage.samples.Samples.board(5);
    write("gen:protobuf", Codecs.protobuf(dev.stowage.samples.protobuf.BoardRecord.class),
        dev.stowage.samples.ProtobufForms.toProtobuf(record));
    write("gen:avro", Codecs.avro(dev.stowage.samples.avro.BoardRecord.class), dev.stowage.samples.AvroForms.toAvro(record));
    write("gen:thrift", Codecs.thrift(dev.stowage.samples.thrift.TBoardRecord.class),
        dev.stowage.samples.ThriftForms.toThrift(record));
    Map<String, String> memberIdNames = Map.of("protobuf", "memberId", "avro", "member_id", "thrift", "memberId");
    Map<String, String> classes = Map.of("protobuf", dev.stowage.samples.protobuf.BoardRecord.class.getName(),
        "avro", dev.stowage.samples.avro.BoardRecord.class.getName(),
        "thrift", dev.stowage.samples.thrift.TBoardRecord.class.getName());
    for (String codec : List.of("protobuf", "avro", "thrift")) {
      JsonNode bare = inspect(server, "gen:" + codec);
      assertThat(bare.get("codec").asText()).isEqualTo(codec);
      assertThat(bare.get("compression").asText()).isEqualTo("zstd");
      assertThat(bare.get("missing").asText()).isEqualTo(codec + " value: pass --type and --classpath with the cache's classes");

      JsonNode value = inspect(server, "gen:" + codec, "--type", classes.get(codec)).get("value");
      assertThat(value.get("title").asText()).as(codec).isEqualTo(record.title());
      assertThat(value.get("body").asText()).as(codec).isEqualTo(record.body());
      assertThat(value.get("score").asLong()).as(codec).isEqualTo(record.score());
      assertThat(value.get(memberIdNames.get(codec)).asLong()).as(codec).isEqualTo(record.memberId());
    }
  }

  private static <T> void write(String key, Codec<T> codec, T value) {
    redis.set(bytes(key), EnvelopeCodec.builder(codec).compression(Compression.zstd().minSize(0)).build().encode(value));
  }

  @Test
  void stringValuesAndCollectionsAreShownMemberByMember(RedisServer server) throws Exception {
    EnvelopeCodec<String> text = EnvelopeCodec.builder(Codecs.string()).compression(Compression.zstd().minSize(0)).build();
    redis.set(bytes("col:text"), text.encode("héllo ".repeat(30)));
    EnvelopeCodec<Note> json = EnvelopeCodec.builder(Codecs.json(Note.class)).build();
    EnvelopeCodec<Note> msgpack = EnvelopeCodec.builder(Codecs.msgpack(Note.class)).compression(Compression.lz4().minSize(0)).build();
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
    assertThat(out.toString()).startsWith("col:hash  hash · ").contains("field a", "json+none", "\"title\": \"a\"");
  }

  @Test
  void valuesWrittenBySpringDataRedisSerializersAreRecognised(RedisServer server) throws Exception {
    LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(server.host(), server.port()));
    factory.afterPropertiesSet();
    try {
      write(factory, new GenericJackson2JsonRedisSerializer(), "spring:json", new SpringNote("a", 3));
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
    assertThat(json.get("value")).isEqualTo(MAPPER.readTree(
        "{\"@class\":\"" + SpringNote.class.getName() + "\",\"name\":\"a\",\"count\":3}"));

    JsonNode string = inspect(server, "spring:string");
    assertThat(string.get("legacy").asText()).isEqualTo("text");
    assertThat(string.get("value").asText()).isEqualTo("plain text ✓");

    JsonNode jdk = inspect(server, "spring:jdk");
    assertThat(jdk.get("legacy").asText()).isEqualTo("jdk");
    assertThat(jdk.get("class").asText()).isEqualTo(Note.class.getName());
    assertThat(jdk.get("missing").asText()).startsWith("java serialization of class " + Note.class.getName());
    List<String> fields = new ArrayList<>();
    jdk.get("fields").forEach(f -> fields.add(f.get("type").asText() + " " + f.get("name").asText()));
    assertThat(fields).containsExactlyInAnyOrder("java.lang.String body", "long id", "java.lang.String title", "int votes");
    assertThat(jdk.has("value")).isFalse();

    JsonNode decoded = inspect(server, "spring:jdk", "--type", Note.class.getName());
    assertThat(decoded.get("value")).isEqualTo(tree(NOTE));

    // the allowlist: a class that is not the one asked for is refused, not created
    JsonNode refused = inspect(server, "spring:jdk", "--type", SpringNote.class.getName());
    assertThat(refused.get("error").asText()).contains("jdk");
    assertThat(refused.has("value")).isFalse();
  }

  /** A bean for Spring's JSON serializer. */
  public static final class SpringNote implements java.io.Serializable {
    public String name;
    public int count;

    public SpringNote() {}

    SpringNote(String name, int count) {
      this.name = name;
      this.count = count;
    }
  }

  private static <V> void write(LettuceConnectionFactory factory, RedisSerializer<V> serializer, String key, V value) {
    RedisTemplate<String, V> template = new RedisTemplate<>();
    template.setConnectionFactory(factory);
    template.setKeySerializer(StringRedisSerializer.UTF_8);
    template.setValueSerializer(serializer);
    template.afterPropertiesSet();
    template.opsForValue().set(key, value);
  }

  @Test
  void aMissingDictionaryAMalformedHeaderAndAMissingKeyAreReported(RedisServer server) throws Exception {
    ZstdDictionary unsaved = ZstdDictionary.of(bytes("a dictionary nobody stored, with some words: keeps values in redis"));
    redis.set(bytes("bad:nodict"), EnvelopeCodec.builder(Codecs.json(Note.class))
        .compression(Compression.zstd(unsaved).minSize(0)).build().encode(NOTE));
    JsonNode nodict = inspect(server, "bad:nodict");
    assertThat(nodict.get("dictionaryId").asText()).isEqualTo(unsaved.hexId());
    assertThat(nodict.get("error").asText()).startsWith("zstd dictionary " + unsaved.hexId()
        + " is missing: no key stowage:dict:" + unsaved.hexId() + " in Redis");

    redis.set(bytes("bad:header"), new byte[] {(byte) 0xC1, 0x10, 1, 9, 1, 2, 3});
    assertThat(inspect(server, "bad:header").get("error").asText()).startsWith("malformed envelope: unknown compression id 9");

    redis.set(bytes("bad:binary"), new byte[] {(byte) 0xFF, 0, 1, 'h', 'e', 'l', 'l', 'o'});
    JsonNode binary = inspect(server, "bad:binary");
    assertThat(binary.get("legacy").asText()).isEqualTo("binary");
    assertThat(binary.get("strings").get(0).asText()).isEqualTo("hello");

    assertThat(run("inspect", "--redis", server.uri(), "bad:none")).isEqualTo(1);
    assertThat(err.toString()).isEqualTo("stowage inspect: no key 'bad:none' in " + server.uri() + "\n");

    if (System.getenv(RedisOption.ENVIRONMENT_VARIABLE) == null) {
      assertThat(run("inspect", "some:key")).isEqualTo(2);
      assertThat(err.toString()).contains("no Redis to read: pass --redis URL (such as redis://127.0.0.1:6379) or set STOWAGE_REDIS");
    }
  }

  @Test
  void scanCountsWhatWasWritten(RedisServer server) throws Exception {
    EnvelopeCodec<Note> json = EnvelopeCodec.builder(Codecs.json(Note.class)).compression(Compression.zstd().minSize(0)).build();
    EnvelopeCodec<Note> kryo = EnvelopeCodec.builder(Codecs.kryo(Note.class)).build();
    for (int i = 0; i < 25; i++) {
      redis.set(bytes("scan:json:" + i), json.encode(new Note(i, "n" + i, "body ".repeat(i + 20), i)));
    }
    for (int i = 0; i < 5; i++) {
      redis.set(bytes("scan:kryo:" + i), kryo.encode(new Note(i, "k", "", i)));
    }
    redis.set(bytes("scan:legacy"), bytes("{\"a\":1}"));
    redis.set(bytes("scan:broken"), new byte[] {(byte) 0xC1, 0x10, 1, 2, 9, 9, 9, 9});
    redis.hset(bytes("scan:hash"), bytes("f"), bytes("v"));
    redis.zadd(bytes("scan:zset"), 1, bytes("m"));
    redis.set(bytes("other:key"), bytes("not matched"));

    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "scan:*", "--count", "7")).as(err.toString()).isZero();
    JsonNode report = MAPPER.readTree(out.toString());
    assertThat(report.get("keys").asInt()).isEqualTo(34);
    assertThat(report.get("complete").asBoolean()).isTrue();
    assertThat(report.get("byType")).isEqualTo(MAPPER.readTree("{\"hash\":1,\"string\":32,\"zset\":1}"));
    assertThat(report.get("byFormat")).isEqualTo(MAPPER.readTree(
        "{\"json+zstd\":26,\"kryo+none\":5,\"legacy json\":1}"));
    assertThat(report.get("failureCount").asInt()).isEqualTo(1);
    assertThat(report.get("failures").get(0).get("key").asText()).isEqualTo("scan:broken");
    assertThat(report.get("failures").get(0).get("reason").asText()).startsWith("cannot decompress");
    assertThat(report.get("needClasses").get("kryo value: pass --type and --classpath with the cache's classes"
        + " (and --register with the classes it registers, in order)").asInt()).isEqualTo(5);
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
      assertThat(biggest.get(i).get("memoryUsage").asLong()).isLessThanOrEqualTo(biggest.get(i - 1).get("memoryUsage").asLong());
    }
    assertThat(redis.memoryUsage(bytes(biggest.get(0).get("key").asText()))).isEqualTo(memory.get("max").asLong());

    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "scan:*", "--limit", "4", "--count", "2")).isZero();
    JsonNode limited = MAPPER.readTree(out.toString());
    assertThat(limited.get("keys").asInt()).isEqualTo(4);
    assertThat(limited.get("complete").asBoolean()).isFalse();
  }

  @Test
  void dictionariesAreTrainedListedAndShown(RedisServer server) throws Exception {
    EnvelopeCodec<Note> lz4 = EnvelopeCodec.builder(Codecs.json(Note.class)).compression(Compression.lz4().minSize(0)).build();
    for (int i = 0; i < 300; i++) {
      redis.set(bytes("dt:" + i), lz4.encode(new Note(i, "title " + (i % 17), "the body of note " + i + " in the cache", i * 3)));
    }
    assertThat(run("dict", "train", "--json", "--redis", server.uri(), "--match", "dt:*", "--samples", "200", "--size", "2048"))
        .as(err.toString()).isZero();
    JsonNode trained = MAPPER.readTree(out.toString());
    assertThat(trained.get("samples").asInt()).isEqualTo(200);
    assertThat(trained.get("stored").asBoolean()).isTrue();
    String id = trained.get("id").asText();
    byte[] stored = redis.get(bytes("stowage:dict:" + id));
    assertThat(ZstdDictionary.idOf(stored)).isEqualTo(Long.parseLong(id, 16));
    assertThat(trained.get("size").asInt()).isEqualTo(stored.length).isLessThanOrEqualTo(2048);

    assertThat(run("dict", "show", "--json", "--redis", server.uri(), id)).isZero();
    JsonNode shown = MAPPER.readTree(out.toString());
    assertThat(shown.get("size").asInt()).isEqualTo(stored.length);
    assertThat(shown.get("intact").asBoolean()).isTrue();
    assertThat(shown.get("kind").asText()).isEqualTo("trained");
    assertThat(shown.get("training").get("samples").asInt()).isEqualTo(200);
    assertThat(shown.get("training").get("match").asText()).isEqualTo("dt:*");
    assertThat(shown.get("firstBytes").asText()).startsWith("00000000  37 a4 30 ec");

    ZstdDictionary dictionary = ZstdDictionary.of(stored);
    EnvelopeCodec<Note> withDictionary = EnvelopeCodec.builder(Codecs.json(Note.class))
        .compression(Compression.zstd(dictionary).minSize(0)).build();
    for (int i = 0; i < 12; i++) {
      redis.set(bytes("dl:" + i), withDictionary.encode(new Note(i, "title", "the body of note in the cache", i)));
    }
    assertThat(run("dict", "list", "--json", "--redis", server.uri(), "--match", "dl:*")).isZero();
    JsonNode list = MAPPER.readTree(out.toString());
    assertThat(list.get("valuesScanned").asInt()).isEqualTo(12);
    JsonNode row = null;
    for (JsonNode candidate : list.get("dictionaries")) {
      if (candidate.get("id").asText().equals(id)) {
        row = candidate;
      }
    }
    assertThat(row).isNotNull();
    assertThat(row.get("values").asInt()).isEqualTo(12);
    assertThat(row.get("size").asInt()).isEqualTo(stored.length);

    JsonNode inspected = inspect(server, "dl:3");
    assertThat(inspected.get("compression").asText()).isEqualTo("zstd-dict");
    assertThat(inspected.get("value").get("id").asInt()).isEqualTo(3);

    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "stowage:dict:" + id)).isZero();
    assertThat(MAPPER.readTree(out.toString()).get("byFormat")).isEqualTo(MAPPER.readTree("{\"zstd dictionary\":1}"));

    assertThat(run("dict", "show", "--redis", server.uri(), "0badcafe")).isEqualTo(1);
    assertThat(err.toString()).contains("no dictionary 0badcafe: no key stowage:dict:0badcafe");
  }
}
