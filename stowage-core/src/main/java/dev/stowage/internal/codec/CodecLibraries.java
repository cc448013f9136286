package dev.stowage.internal.codec;

import dev.stowage.internal.OptionalLibrary;

/** The optional libraries of the built-in codecs, each with the Maven coordinates to add. */
public final class CodecLibraries {
  /** Jackson databind, for the JSON and MessagePack codecs. */
  public static final OptionalLibrary JACKSON =
      new OptionalLibrary(
          "the json codec",
          "com.fasterxml.jackson.databind.ObjectMapper",
          "com.fasterxml.jackson.core:jackson-databind");

  /** Jackson's java.time module, which the JSON and MessagePack codecs register. */
  public static final OptionalLibrary JACKSON_JAVA_TIME =
      new OptionalLibrary(
          "the json and msgpack codecs",
          "com.fasterxml.jackson.datatype.jsr310.JavaTimeModule",
          "com.fasterxml.jackson.datatype:jackson-datatype-jsr310");

  /**
   * Jackson's Jdk8 module ({@code Optional} and friends), registered by the JSON and MessagePack
   * codecs when present.
   */
  public static final OptionalLibrary JACKSON_JDK8 =
      new OptionalLibrary(
          "Optional values in the json and msgpack codecs",
          "com.fasterxml.jackson.datatype.jdk8.Jdk8Module",
          "com.fasterxml.jackson.datatype:jackson-datatype-jdk8");

  /** msgpack-java's Jackson format. */
  public static final OptionalLibrary MSGPACK =
      new OptionalLibrary(
          "the msgpack codec",
          "org.msgpack.jackson.dataformat.MessagePackFactory",
          "org.msgpack:jackson-dataformat-msgpack");

  /** Kryo 5. */
  public static final OptionalLibrary KRYO =
      new OptionalLibrary(
          "the kryo codec", "com.esotericsoftware.kryo.Kryo", "com.esotericsoftware:kryo");

  /** Apache Fory. */
  public static final OptionalLibrary FORY =
      new OptionalLibrary("the fory codec", "org.apache.fory.Fory", "org.apache.fory:fory-core");

  /** Protocol Buffers for Java. */
  public static final OptionalLibrary PROTOBUF =
      new OptionalLibrary(
          "the protobuf codec", "com.google.protobuf.Message", "com.google.protobuf:protobuf-java");

  /** Apache Avro. */
  public static final OptionalLibrary AVRO =
      new OptionalLibrary(
          "the avro codec", "org.apache.avro.specific.SpecificDatumReader", "org.apache.avro:avro");

  /** Apache Thrift. */
  public static final OptionalLibrary THRIFT =
      new OptionalLibrary(
          "the thrift codec", "org.apache.thrift.TBase", "org.apache.thrift:libthrift");

  /** fastjson2. */
  public static final OptionalLibrary FASTJSON2 =
      new OptionalLibrary(
          "the fastjson2 codec", "com.alibaba.fastjson2.JSON", "com.alibaba.fastjson2:fastjson2");

  /** Caffeine, which near caches keep their values in. */
  public static final OptionalLibrary CAFFEINE =
      new OptionalLibrary(
          "near caches",
          "com.github.benmanes.caffeine.cache.Caffeine",
          "com.github.ben-manes.caffeine:caffeine");

  private CodecLibraries() {}
}
