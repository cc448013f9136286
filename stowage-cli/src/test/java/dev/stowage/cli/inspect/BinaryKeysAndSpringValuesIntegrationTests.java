package dev.stowage.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.stowage.Codec;
import dev.stowage.Encoding;
import dev.stowage.cli.StowageCli;
import dev.stowage.codec.Codecs;
import dev.stowage.compress.Compression;
import dev.stowage.embedded.RedisServer;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.msgpack.jackson.dataformat.MessagePackMapper;
import org.springframework.cache.support.NullValue;
import org.springframework.data.redis.serializer.GenericJackson2JsonRedisSerializer;
import org.springframework.data.redis.serializer.JdkSerializationRedisSerializer;

/**
 * Binary keys ({@code --key-hex}, escaped in {@code scan}), the Spring starter's class-named values
 * and Spring's cached null, in {@code inspect} and {@code scan}, on a real Redis.
 */
@WithRedis
class BinaryKeysAndSpringValuesIntegrationTests {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** "kim", as a default RedisTemplate writes the key: JDK serialization. */
  private static final byte[] JDK_KIM = {(byte) 0xac, (byte) 0xed, 0, 5, 't', 0, 3, 'k', 'i', 'm'};

  private static RedisServer server;
  private static RedisClient client;
  private static StatefulRedisConnection<byte[], byte[]> connection;
  private static RedisCommands<byte[], byte[]> redis;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  /** The class-named payload as the starter writes it, in an envelope of codec id 200. */
  private static class Passthrough implements Codec<byte[]> {
    @Override
    public int id() {
      return 200;
    }

    @Override
    public String name() {
      return "class-named msgpack";
    }

    @Override
    public byte[] encode(byte[] value) {
      return value.clone();
    }

    @Override
    public byte[] decode(byte[] data, int offset, int length) {
      return Arrays.copyOfRange(data, offset, offset + length);
    }
  }

  @BeforeAll
  static void connect(RedisServer redisServer) {
    server = redisServer;
    client = RedisClient.create(redisServer.uri());
    connection = client.connect(ByteArrayCodec.INSTANCE);
    redis = connection.sync();
  }

  @AfterAll
  static void close() {
    connection.close();
    client.shutdown();
  }

  @BeforeEach
  void empty() {
    server.flushAll();
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

  private JsonNode inspect(String... keyArgs) throws Exception {
    List<String> args = new ArrayList<>(List.of("inspect", "--json", "--redis", server.uri()));
    args.addAll(List.of(keyArgs));
    assertThat(run(args.toArray(String[]::new))).as(err.toString()).isZero();
    return MAPPER.readTree(out.toString()).get(0);
  }

  private static byte[] classNamed(int tag, String className, byte[] value) {
    ByteArrayOutputStream payload = new ByteArrayOutputStream();
    payload.write(tag);
    byte[] name = bytes(className);
    payload.write(name.length >>> 8);
    payload.write(name.length);
    payload.writeBytes(name);
    payload.writeBytes(value);
    return envelope(payload.toByteArray());
  }

  private static byte[] envelope(byte[] payload) {
    return Encoding.of(new Passthrough())
        .compression(Compression.none())
        .serializer()
        .encode(payload);
  }

  @Test
  void aBinaryKeyIsGivenInHexAndShownEscaped() throws Exception {
    redis.set(JDK_KIM, bytes("{\"name\":\"kim\"}"));

    JsonNode shown = inspect("--key-hex", "aced00057400036b696d");
    assertThat(shown.get("key").asText()).isEqualTo("\\xac\\xed\\x00\\x05t\\x00\\x03kim");
    assertThat(shown.get("keyHex").asText()).isEqualTo("aced00057400036b696d");
    assertThat(shown.get("value").get("name").asText()).isEqualTo("kim");

    assertThat(run("inspect", "--redis", server.uri(), "--key-hex", "aced zz")).isEqualTo(2);
    assertThat(err.toString()).contains("--key-hex: 'aced zz' is not a key in hex");
  }

  @Test
  void scanPrintsBinaryKeysEscapedAndMatchesThemWithEscapes() throws Exception {
    redis.set(JDK_KIM, bytes("kim's value"));
    redis.set(bytes("books::1"), bytes("text"));

    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "\\xac\\xed*"))
        .as(err.toString())
        .isZero();
    JsonNode report = MAPPER.readTree(out.toString());
    assertThat(report.get("keys").asLong()).isEqualTo(1);
    assertThat(report.get("biggest").get(0).get("key").asText())
        .isEqualTo("\\xac\\xed\\x00\\x05t\\x00\\x03kim");

    assertThat(run("scan", "--redis", server.uri(), "--match", "*")).as(err.toString()).isZero();
    assertThat(out.toString())
        .contains("\\xac\\xed\\x00\\x05t\\x00\\x03kim")
        .doesNotContain("\ufffd");
  }

  @Test
  void dictMatchesBinaryKeysWithEscapes() throws Exception {
    redis.set(JDK_KIM, bytes("kim's value"));
    redis.set(bytes("books::1"), bytes("text"));

    assertThat(run("dict", "list", "--json", "--redis", server.uri(), "--match", "\\xac\\xed*"))
        .as(err.toString())
        .isZero();
    assertThat(MAPPER.readTree(out.toString()).get("valuesScanned").asLong()).isEqualTo(1);
  }

  @Test
  void theStartersClassNamedValuesShowTheirClassAndValue() throws Exception {
    Map<String, Object> book = new LinkedHashMap<>();
    book.put("id", 7);
    book.put("title", "Dune");
    redis.set(
        bytes("books::7"),
        classNamed(1, "com.example.Book", new MessagePackMapper().writeValueAsBytes(book)));
    redis.set(bytes("books::8"), envelope(new byte[] {0}));
    redis.set(bytes("books::9"), envelope(new byte[] {7, 1, 2}));

    JsonNode shown = inspect("books::7");
    assertThat(shown.get("class").asText()).isEqualTo("com.example.Book");
    assertThat(shown.get("value")).isEqualTo(MAPPER.readTree("{\"id\":7,\"title\":\"Dune\"}"));
    assertThat(shown.has("missing")).isFalse();
    assertThat(shown.has("error")).isFalse();

    JsonNode nul = inspect("books::8");
    assertThat(nul.get("springNull").asBoolean()).isTrue();
    assertThat(nul.get("value").isNull()).isTrue();

    JsonNode unknown = inspect("books::9");
    assertThat(unknown.get("missing").asText())
        .contains("with tag 7, which this inspector does not know");

    assertThat(run("inspect", "--redis", server.uri(), "books::7")).isZero();
    assertThat(out.toString())
        .contains("spring class-named+none")
        .contains("class com.example.Book")
        .contains("\"title\": \"Dune\"");
  }

  @Test
  void aTypedSpringCachesValueIsShownWithoutItsTagByte() throws Exception {
    Map<String, Object> book = new LinkedHashMap<>();
    book.put("id", 7);
    book.put("title", "Dune");
    byte[] value = new MessagePackMapper().writeValueAsBytes(book);
    byte[] tagged = new byte[value.length + 1];
    tagged[0] = 1; // the tag of a value, before the codec's bytes, in a cache with
    // stowage.caches.<name>.type
    System.arraycopy(value, 0, tagged, 1, value.length);
    Encoding.Serializer<byte[]> raw =
        Encoding.<byte[]>of(
                new Passthrough() {
                  @Override
                  public int id() {
                    return 2; // MessagePack's codec id, as the typed cache's envelope records
                    // its codec's
                  }
                })
            .compression(Compression.none())
            .serializer();
    redis.set(bytes("books::7"), raw.encode(tagged));

    JsonNode shown = inspect("books::7");
    assertThat(shown.get("springTyped").asBoolean()).isTrue();
    assertThat(shown.get("value")).isEqualTo(MAPPER.readTree("{\"id\":7,\"title\":\"Dune\"}"));
  }

  @Test
  void theStartersShapedValuesShowTheirTypeTheirShapeAndTheirValue() throws Exception {
    Map<String, Object> book = new LinkedHashMap<>();
    book.put("id", 7);
    book.put("title", "Dune");
    // Tag 2: the type's name, then the value in an uncompressed envelope of its own, with its
    // shape.
    @SuppressWarnings({"unchecked", "rawtypes"})
    Encoding.Serializer<Map<String, Object>> inner =
        (Encoding.Serializer)
            Encoding.of(Codecs.msgpack(Map.class)).compression(Compression.none()).serializer();
    byte[] innerEnvelope = inner.encode(book);
    redis.set(bytes("books::7"), classNamed(2, "com.example.Book", innerEnvelope));

    JsonNode shown = inspect("books::7");
    assertThat(shown.get("class").asText()).isEqualTo("com.example.Book");
    assertThat(shown.get("innerCodec").asText()).isEqualTo("msgpack");
    assertThat(shown.get("innerSchema").asText()).isNotBlank();
    assertThat(shown.get("value")).isEqualTo(MAPPER.readTree("{\"id\":7,\"title\":\"Dune\"}"));
    assertThat(shown.has("missing")).isFalse();
    assertThat(shown.has("error")).isFalse();
  }

  @Test
  void springsCachedNullIsShownAsSpringsNullInBothForms() throws Exception {
    redis.set(
        bytes("books::-1"), new JdkSerializationRedisSerializer().serialize(NullValue.INSTANCE));
    redis.set(
        bytes("books::-2"), new GenericJackson2JsonRedisSerializer().serialize(NullValue.INSTANCE));

    for (String key : List.of("books::-1", "books::-2")) {
      JsonNode shown = inspect(key);
      assertThat(shown.get("springNull").asBoolean()).as(key).isTrue();
      assertThat(shown.get("class").asText())
          .isEqualTo("org.springframework.cache.support.NullValue");
      assertThat(shown.has("missing")).as(key).isFalse();
      assertThat(shown.has("error")).as(key).isFalse();
    }
    assertThat(run("inspect", "--redis", server.uri(), "books::-1")).isZero();
    assertThat(out.toString()).contains("Spring's cached null");

    assertThat(run("scan", "--json", "--redis", server.uri(), "--match", "books::*"))
        .as(err.toString())
        .isZero();
    JsonNode report = MAPPER.readTree(out.toString());
    assertThat(report.get("failureCount").asLong()).isZero();
    assertThat(report.get("needClasses").isEmpty()).as(report.toString()).isTrue();
  }
}
