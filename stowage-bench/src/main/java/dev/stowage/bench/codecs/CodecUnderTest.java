package dev.stowage.bench.codecs;

import java.util.Arrays;
import java.util.stream.Collectors;

/** The codecs of table T3, by the names that {@code stowage bench codecs --codecs} accepts. */
public enum CodecUnderTest {
  /** Jackson JSON: the seed's format and the baseline of every ratio. */
  JSON("json", true),
  /** fastjson2. */
  FASTJSON2("fastjson2", false),
  /** MessagePack with field names (msgpack-java's Jackson format), as the seed stored it. */
  MSGPACK("msgpack", true),
  /** MessagePack written as arrays, without field names. */
  MSGPACK_COMPACT("msgpack-compact", false),
  /** Kryo 5 with registered classes. */
  KRYO("kryo", false),
  /** Apache Fory with registered classes. */
  FORY("fory", false),
  /** Protocol Buffers, on the generated message classes. */
  PROTOBUF("protobuf", false),
  /** Avro binary encoding, on the generated record classes. */
  AVRO("avro", false),
  /** Thrift compact protocol, on the generated struct classes. */
  THRIFT("thrift", false),
  /** JDK serialization behind an allowlist. */
  JDK("jdk", false);

  private final String cliName;
  private final boolean seed;

  CodecUnderTest(String cliName, boolean seed) {
    this.cliName = cliName;
    this.seed = seed;
  }

  /**
   * The name used on the command line, in results and in JMH params, such as {@code
   * "msgpack-compact"}.
   */
  public String cliName() {
    return cliName;
  }

  /** Whether a seed used this codec, so that its bare row is a seed row rather than a peer. */
  public boolean seed() {
    return seed;
  }

  /**
   * The codec with this name, ignoring case.
   *
   * @throws IllegalArgumentException naming the valid choices, if there is none
   */
  public static CodecUnderTest forName(String name) {
    for (CodecUnderTest codec : values()) {
      if (codec.cliName.equalsIgnoreCase(name.strip())) {
        return codec;
      }
    }
    throw new IllegalArgumentException("unknown codec '" + name + "'; choose from " + choices());
  }

  /** The valid names, comma separated. */
  public static String choices() {
    return Arrays.stream(values()).map(CodecUnderTest::cliName).collect(Collectors.joining(", "));
  }

  @Override
  public String toString() {
    return cliName;
  }
}
