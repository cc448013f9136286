package dev.stowage;

/**
 * Turns values of one type into bytes and back.
 *
 * <p>A codec names its wire format with an {@linkplain #id() id}, which the envelope records in
 * every value it writes. A reader picks the decoder from that id, not from its own configuration,
 * so a cache can change codecs without flushing Redis. Ids 1 to 127 are reserved for the built-in
 * codecs listed in {@link CodecIds}; ids 128 to 255 are free for codecs of your own.
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
}
