package dev.stowage;

import dev.stowage.internal.format.CodecIds;

/**
 * Turns values of one type into bytes and back.
 *
 * <p>A codec names its wire format with an {@linkplain #id() id}, which the envelope records in
 * every value it writes. A reader picks the decoder from that id, not from its own configuration,
 * so a cache can change codecs without flushing Redis. Ids 1 to 127 are reserved for the built-in
 * codecs (their names are what {@link Inspector#codecName(int)} gives); ids 128 to 255 are free for
 * codecs of your own.
 *
 * <p>Implementations must be thread-safe: one instance serves every caller of a cache. Neither
 * method accepts or returns {@code null}.
 *
 * @param <T> the type of the values
 */
public interface Codec<T> {

  /** The format id recorded in the envelope: 1 to 255. */
  int id();

  /** A short, stable name for logs and the inspector, such as {@code "kryo"}. */
  default String name() {
    return CodecIds.name(id());
  }

  /**
   * Encodes a value.
   *
   * @throws CodecException if the value cannot be encoded, for example because its class is not
   *     registered with the codec
   */
  byte[] encode(T value);

  /**
   * Decodes {@code length} bytes of {@code data} starting at {@code offset}.
   *
   * @throws CodecException if the bytes are not a valid value of this format, or name a class that
   *     the codec is not allowed to create
   */
  T decode(byte[] data, int offset, int length);

  /** Decodes a whole array: {@code decode(data, 0, data.length)}. */
  default T decode(byte[] data) {
    return decode(data, 0, data.length);
  }

  /**
   * A codec whose bytes depend on the shape of its type, and which can say so: it describes that
   * shape as a schema, and reads values written with another schema of the same type.
   *
   * <p>Caches and feeds write the {@linkplain Inspector#schemaFingerprint(String) fingerprint} of
   * {@link #schema()} in every value's header (the envelope's schema field) and keeps the schema
   * itself where readers find it (in Redis, under {@code stowage:schema:<fingerprint>}). A reader
   * whose own schema has the same fingerprint decodes as usual; a reader whose schema differs gets
   * the writer's schema and calls {@link #decode(byte[], int, int, String)}, which either reads the
   * value correctly or throws. A value a codec cannot read correctly must never be read as a wrong
   * value: a cache counts the exception as a miss and loads the value again.
   *
   * <p>Implementations must be thread-safe, like every {@link Codec}.
   *
   * @param <T> the type of the values
   */
  interface Evolving<T> extends Codec<T> {

    /**
     * The schema of the values this codec writes, as stable text: the same type and configuration
     * give the same text in every process and every run, and any change in the type that changes
     * the bytes changes the text.
     */
    String schema();

    /**
     * Decodes a value written with {@code writerSchema}, the {@link #schema()} of the codec that
     * wrote it.
     *
     * @throws CodecException if the value cannot be read correctly with this codec's type, for
     *     example because a field changed to an incompatible type; the message says why
     */
    T decode(byte[] data, int offset, int length, String writerSchema);
  }
}
