package dev.stowage;

/**
 * A codec whose bytes depend on the shape of its type, and which can say so: it describes that
 * shape as a schema, and reads values written with another schema of the same type.
 *
 * <p>{@link EnvelopeCodec} writes the {@linkplain Schemas#fingerprint(String) fingerprint} of
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
public interface EvolvingCodec<T> extends Codec<T> {

  /**
   * The schema of the values this codec writes, as stable text: the same type and configuration
   * give the same text in every process and every run, and any change in the type that changes the
   * bytes changes the text.
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
