package dev.stowage.internal.format;

/**
 * The codec ids that the envelope records. These numbers are part of the wire format: they never
 * change meaning. Ids from {@link #USER_MIN} to 255 are free for codecs of your own.
 */
public final class CodecIds {
  /** Jackson JSON. */
  public static final int JSON = 1;

  /** MessagePack, written through msgpack-java's Jackson format. */
  public static final int MSGPACK = 2;

  /** Kryo 5, with registered classes. */
  public static final int KRYO = 3;

  /** Apache Fory, with registered classes. */
  public static final int FORY = 4;

  /** Protocol Buffers. */
  public static final int PROTOBUF = 5;

  /** Apache Avro binary encoding. */
  public static final int AVRO = 6;

  /** Apache Thrift, compact protocol. */
  public static final int THRIFT = 7;

  /** JDK serialization behind an {@link java.io.ObjectInputFilter} allowlist. */
  public static final int JDK = 8;

  /** fastjson2 JSON. */
  public static final int FASTJSON2 = 9;

  /** UTF-8 text, for values that are strings. */
  public static final int STRING = 10;

  /** The first id free for user codecs. */
  public static final int USER_MIN = 128;

  private static final String[] NAMES = {
    null,
    "json",
    "msgpack",
    "kryo",
    "fory",
    "protobuf",
    "avro",
    "thrift",
    "jdk",
    "fastjson2",
    "string"
  };

  private CodecIds() {}

  /** The name of a built-in id, {@code "user-<id>"} for a user id, or {@code "unknown-<id>"}. */
  public static String name(int id) {
    if (id > 0 && id < NAMES.length) {
      return NAMES[id];
    }
    return id >= USER_MIN && id <= 255 ? "user-" + id : "unknown-" + id;
  }

  /** The id for a built-in name such as {@code "kryo"}, or -1 if there is none. */
  public static int forName(String name) {
    for (int i = 1; i < NAMES.length; i++) {
      if (NAMES[i].equalsIgnoreCase(name)) {
        return i;
      }
    }
    return -1;
  }
}
