package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.management.ThreadMXBean;
import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.internal.codec.MsgpackBounds;
import dev.stowage.internal.envelope.EnvelopeCodec;
import dev.stowage.samples.AvroForms;
import dev.stowage.samples.BoardRecord;
import dev.stowage.samples.Samples;
import dev.stowage.samples.thrift.TBoardRecord;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.junit.jupiter.api.Test;

/**
 * Lengths, counts and nesting at and just past the limits each codec keeps: the value at the limit
 * decodes, the one past it is a CodecException that says which limit, and nothing escapes as a
 * StackOverflowError or an OutOfMemoryError.
 */
class CodecLimitsUnitTests {
  private static final int DEPTH = MsgpackBounds.MAX_DEPTH;

  /**
   * The value: an envelope (msgpack, no compression) whose payload is a bin 32 declaring
   * about 2 GiB.
   */
  static final byte[] TEN_BYTE_BOMB =
      CodecCorruptionUnitTests.bytes(0xc1, 0x10, 0x02, 0x00, 0x92, 0xc6, 0x7f, 0xff, 0xff, 0xf0);

  @Test
  void theTenByteMsgpackValueIsRefusedWithoutAllocatingWhatItDeclares() {
    EnvelopeCodec<BoardRecord> reader =
        EnvelopeCodec.builder(Codecs.defaultFor(BoardRecord.class)).build();
    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    assertThatThrownBy(() -> reader.decode(TEN_BYTE_BOMB)).isInstanceOf(CodecException.class);
    long before = threads.getCurrentThreadAllocatedBytes();
    assertThatThrownBy(() -> reader.decode(TEN_BYTE_BOMB))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining(
            "msgpack codec refused to decode 6 bytes as " + BoardRecord.class.getName())
        .hasMessageContaining("a bin 32 at byte 1 declares 2147483632 bytes, but 0 are left");
    assertThat(threads.getCurrentThreadAllocatedBytes() - before).isLessThan(64 * 1024);
  }

  @Test
  void msgpackLengthsAndCountsMayReachTheBytesLeftButNotPassThem() {
    byte[] exactString = {(byte) 0xd9, 3, 'a', 'b', 'c'};
    assertThat(MsgpackBounds.problem(exactString, 0, 5)).isNull();
    assertThat(MsgpackBounds.problem(exactString, 0, 4))
        .isEqualTo("a str 8 at byte 0 declares 3 bytes, but 2 are left");

    byte[] threeNils = {(byte) 0xdc, 0, 3, (byte) 0xc0, (byte) 0xc0, (byte) 0xc0};
    assertThat(MsgpackBounds.problem(threeNils, 0, 6)).isNull();
    byte[] fourDeclared = threeNils.clone();
    fourDeclared[2] = 4;
    assertThat(MsgpackBounds.problem(fourDeclared, 0, 6))
        .isEqualTo("an array 16 at byte 0 declares 4 elements, but 3 bytes are left");

    byte[] mapOfTwo = {
      (byte) 0x82, 1, 2, 3
    }; // two pairs declared, three bytes of the four values they need
    assertThat(MsgpackBounds.problem(mapOfTwo, 0, 4))
        .isEqualTo("a fixmap at byte 0 declares 4 elements, but 3 bytes are left");

    // Counts of nested arrays add up: each array fits on its own, not with what is still owed.
    byte[] owed = {(byte) 0x92, (byte) 0x92, (byte) 0xc0, (byte) 0xc0};
    assertThat(MsgpackBounds.problem(owed, 0, 4))
        .isEqualTo(
            "a fixarray at byte 1 declares 2 elements, but 2 bytes are left for them and 1 values declared before");

    assertThat(MsgpackBounds.problem(new byte[] {(byte) 0xc1}, 0, 1))
        .isEqualTo("byte 0 is 0xc1, which MessagePack never uses");
    assertThat(MsgpackBounds.problem(new byte[] {(byte) 0xcb, 0, 0}, 0, 3))
        .isEqualTo("the value 0xcb at byte 0 declares 8 bytes, but 2 are left");
    byte[] atOffset = {9, 9, (byte) 0xa2, 'h'};
    assertThat(MsgpackBounds.problem(atOffset, 2, 2))
        .isEqualTo("a fixstr at byte 0 declares 2 bytes, but 1 are left");
  }

  @Test
  @SuppressWarnings("rawtypes")
  void msgpackNestsAsDeepAsJacksonLetsJsonNest() {
    Codec<List> msgpack = Codecs.msgpack(List.class);
    assertThat(depthOf(msgpack.decode(nestedMsgpackArrays(DEPTH)))).isEqualTo(DEPTH);
    assertThatThrownBy(() -> msgpack.decode(nestedMsgpackArrays(DEPTH + 1)))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("nests deeper than " + DEPTH + " arrays and maps");
    assertThatThrownBy(() -> msgpack.decode(nestedMsgpackArrays(200_000)))
        .isInstanceOf(CodecException.class);

    Codec<List> json = Codecs.json(List.class);
    assertThat(depthOf(json.decode(nestedJsonArrays(DEPTH)))).isEqualTo(DEPTH);
    assertThatThrownBy(() -> json.decode(nestedJsonArrays(DEPTH + 1)))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("nesting depth");
  }

  @Test
  @SuppressWarnings("rawtypes")
  void fastjson2RefusesDeepNestingWithACodecException() {
    Codec<List> fastjson = Codecs.fastjson2(List.class);
    assertThat(depthOf(fastjson.decode(nestedJsonArrays(DEPTH)))).isEqualTo(DEPTH);
    assertThatThrownBy(() -> fastjson.decode(nestedJsonArrays(200_000)))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("level too large");
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void kryoForyAndJdkStopAtTheirDepthOf64() {
    ArrayList shallow = nestedLists(60);
    ArrayList deep = nestedLists(100);
    for (Codec<ArrayList> codec :
        List.of(
            Codecs.kryo(ArrayList.class),
            Codecs.fory(ArrayList.class),
            Codecs.jdk(ArrayList.class))) {
      assertThat(depthOf(codec.decode(codec.encode(shallow)))).as(codec.name()).isEqualTo(60);
    }
    assertThatThrownBy(() -> Codecs.kryo(ArrayList.class).encode(deep))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("Max depth exceeded: 64");
    Codec<ArrayList> fory = Codecs.fory(ArrayList.class);
    byte[] deepFory = foryWithoutDepthLimit(deep);
    assertThatThrownBy(() -> fory.decode(deepFory))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("max depth 64");
    Codec<ArrayList> jdk = Codecs.jdk(ArrayList.class);
    assertThatThrownBy(() -> jdk.decode(jdk.encode(deep)))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("nesting depth 65 is over the limit of 64");
    // Far deeper than the JDK's own writer goes before its stack overflows: a failure to encode.
    assertThatThrownBy(() -> jdk.encode(nestedLists(20_000)))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("StackOverflowError");
  }

  @Test
  void thriftAvroAndProtobufRefuseLengthsPastTheBytesLeft() {
    Codec<TBoardRecord> thrift = Codecs.thrift(TBoardRecord.class);
    // A struct whose first field (a string, field id 1) declares 2^24 bytes: Thrift's own limit is
    // 100 MB.
    byte[] thriftString = {0x18, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08, 'x', 0};
    assertThatThrownBy(() -> thrift.decode(thriftString))
        .isInstanceOf(CodecException.class)
        .hasMessageStartingWith("thrift codec could not decode 7 bytes");

    Codec<dev.stowage.samples.avro.BoardRecord> avro =
        Codecs.avro(dev.stowage.samples.avro.BoardRecord.class);
    byte[] valid = avro.encode(AvroForms.toAvro(Samples.board(1)));
    // The first field is a union with null; index 1 (0x02) is the string, whose length follows.
    assertThat(valid[0]).isEqualTo((byte) 0x02);
    byte[] avroString = {0x02, (byte) 0xfe, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f, 'x'};
    assertThatThrownBy(() -> avro.decode(avroString))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("a string declares 2147483647 bytes, but 1 are left");

    Codec<dev.stowage.samples.protobuf.BoardRecord> protobuf =
        Codecs.protobuf(dev.stowage.samples.protobuf.BoardRecord.class);
    byte[] protobufString = {0x0a, (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x07, 'x'};
    assertThatThrownBy(() -> protobuf.decode(protobufString)).isInstanceOf(CodecException.class);
  }

  @Test
  @SuppressWarnings("rawtypes")
  void foryChecksCollectionArrayAndNumberLengths() {
    Codec<ArrayList> lists = Codecs.fory(ArrayList.class);
    byte[] list = lists.encode(new ArrayList<>(List.of("a", "b")));
    int count =
        Arrays.mismatch(
            list, lists.encode(new ArrayList<>(List.of("a", "b", "c")))); // the element count
    assertThat(list[count]).isEqualTo((byte) 2);
    byte[] huge = Arrays.copyOf(list, list.length + 3);
    System.arraycopy(list, count + 1, huge, count + 4, list.length - count - 1);
    huge[count] = (byte) 0x80;
    huge[count + 1] = (byte) 0x80;
    huge[count + 2] = (byte) 0x80;
    huge[count + 3] = 0x08;
    assertThatThrownBy(() -> lists.decode(huge))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("ArrayList of 16777216 cannot fit in the");

    Codec<Map> maps = Codecs.fory(Map.class);
    assertThat(maps.decode(maps.encode(new ConcurrentHashMap<>(Map.of("a", 1)))))
        .isEqualTo(Map.of("a", 1));
    Codec<long[]> longs = Codecs.fory(long[].class);
    assertThat(longs.decode(longs.encode(new long[] {1, 2, 3}))).containsExactly(1, 2, 3);
  }

  private static byte[] foryWithoutDepthLimit(Object value) {
    Fory unlimited =
        Fory.builder()
            .withLanguage(Language.JAVA)
            .requireClassRegistration(true)
            .withRefTracking(false)
            .withMaxDepth(1000)
            .build();
    return unlimited.serialize(value);
  }

  private static byte[] nestedMsgpackArrays(int depth) {
    byte[] bytes = new byte[depth + 1];
    Arrays.fill(bytes, 0, depth, (byte) 0x91);
    bytes[depth] = 0x01;
    return bytes;
  }

  private static byte[] nestedJsonArrays(int depth) {
    return ("[".repeat(depth) + "1" + "]".repeat(depth)).getBytes(StandardCharsets.US_ASCII);
  }

  // NonApiType: an ArrayList is what the test serializes
  @SuppressWarnings({"rawtypes", "unchecked", "NonApiType"})
  private static ArrayList nestedLists(int depth) {
    ArrayList root = new ArrayList();
    ArrayList current = root;
    for (int i = 1; i < depth; i++) {
      ArrayList next = new ArrayList();
      current.add(next);
      current = next;
    }
    return root;
  }

  private static int depthOf(Object value) {
    int depth = 0;
    for (Object current = value;
        current instanceof List<?> list;
        current = list.isEmpty() ? null : list.get(0)) {
      depth++;
    }
    return depth;
  }
}
