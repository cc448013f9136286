package dev.stowage.internal.codec;

import dev.stowage.Codec;
import dev.stowage.internal.format.CodecIds;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Objects;
import org.apache.avro.Schema;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificData;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.jspecify.annotations.Nullable;

/**
 * Apache Avro's binary encoding on a generated {@link SpecificRecord} class, with the class's own
 * schema as writer schema. The codec's schema is that Avro schema's JSON, so a value written with
 * an older or newer schema of the record is read through Avro's own schema resolution (fields
 * matched by name and alias, defaults for fields the writer lacked, promotions such as int to
 * long); what Avro cannot resolve is refused. Each thread keeps its own reader, writer, encoder and
 * decoder, so the codec is thread-safe. Only fields whose schema is a union with {@code null} can
 * be null. Declared lengths and counts are checked before Avro allocates for them ({@link
 * AvroBoundedDecoder}).
 */
final class AvroCodec<T> implements Codec.Evolving<T> {
  private static final String NAME = "avro";
  private static final int MAX_RETAINED_BUFFER = 256 * 1024;
  private static final byte[] EMPTY = new byte[0];
  private final Class<T> type;
  private final Schema readerSchema;
  private final AvroClasses classes;
  private final ThreadLocal<PerThread> perThread;

  AvroCodec(Class<T> type) {
    this.type = Objects.requireNonNull(type, "type");
    if (!SpecificRecord.class.isAssignableFrom(type)) {
      throw new IllegalArgumentException(
          "avro codec needs a generated org.apache.avro.specific.SpecificRecord class; "
              + type.getName()
              + " is not one (generate it from a schema with avro-tools or the avro-maven-plugin)");
    }
    this.readerSchema = SpecificData.get().getSchema(type);
    this.classes = new AvroClasses(type, readerSchema);
    PerThread first = new PerThread(readerSchema, classes);
    this.perThread = ThreadLocal.withInitial(() -> new PerThread(readerSchema, classes));
    this.perThread.set(first);
  }

  private static final class PerThread {
    final SpecificDatumWriter<Object> writer;
    final SpecificDatumReader<Object> reader;
    final AvroBoundedDecoder bounded = new AvroBoundedDecoder();
    ByteArrayOutputStream out = new ByteArrayOutputStream(512);
    @Nullable BinaryEncoder encoder;
    @Nullable BinaryDecoder decoder;

    PerThread(Schema schema, AvroClasses classes) {
      this.writer = new SpecificDatumWriter<>(schema, classes);
      this.reader = new SpecificDatumReader<>(schema, schema, classes);
    }
  }

  @Override
  public int id() {
    return CodecIds.AVRO;
  }

  @Override
  public byte[] encode(T value) {
    Objects.requireNonNull(value, "value");
    PerThread state = perThread.get();
    try {
      state.out.reset();
      state.encoder = EncoderFactory.get().directBinaryEncoder(state.out, state.encoder);
      state.writer.write(value, state.encoder);
      state.encoder.flush();
      byte[] bytes = state.out.toByteArray();
      if (bytes.length > MAX_RETAINED_BUFFER) {
        state.out = new ByteArrayOutputStream(512);
        state.encoder = null;
      }
      return bytes;
    } catch (IOException | RuntimeException e) {
      perThread.remove();
      throw CodecFailures.encode(NAME, type, e);
    }
  }

  @Override
  public T decode(byte[] data, int offset, int length) {
    CodecFailures.checkRange(NAME, data, offset, length);
    PerThread state = perThread.get();
    Object decoded;
    try {
      state.decoder = DecoderFactory.get().binaryDecoder(data, offset, length, state.decoder);
      decoded = state.reader.read(null, state.bounded.wrap(state.decoder));
      // Let go of the caller's array: the decoder is kept for the thread's next call.
      state.decoder = DecoderFactory.get().binaryDecoder(EMPTY, 0, 0, state.decoder);
    } catch (IOException | RuntimeException e) {
      perThread.remove();
      throw CodecFailures.decode(NAME, type, length, e);
    }
    if (decoded == null) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    if (!type.isInstance(decoded)) {
      throw CodecFailures.wrongType(NAME, type, decoded);
    }
    return type.cast(decoded);
  }

  @Override
  public String schema() {
    return readerSchema.toString();
  }

  /**
   * Reads a value written with another Avro schema of the record, resolved against this class's
   * schema by Avro's rules.
   *
   * @throws dev.stowage.CodecException if the writer's schema is not Avro, or Avro cannot resolve
   *     it (a field without a default that the writer lacked, a type that cannot be promoted)
   */
  @Override
  @SuppressWarnings("unchecked")
  public T decode(byte[] data, int offset, int length, String writerSchema) {
    CodecFailures.checkRange(NAME, data, offset, length);
    Object decoded;
    try {
      Schema writer = new Schema.Parser().parse(writerSchema);
      SpecificDatumReader<Object> reader = new SpecificDatumReader<>(writer, readerSchema, classes);
      decoded = reader.read(null, DecoderFactory.get().binaryDecoder(data, offset, length, null));
    } catch (IOException | RuntimeException e) {
      throw CodecFailures.decode(NAME, type, length, e);
    }
    if (decoded == null) {
      throw CodecFailures.decodedNothing(NAME, type, length);
    }
    if (!type.isInstance(decoded)) {
      throw CodecFailures.wrongType(NAME, type, decoded);
    }
    return type.cast(decoded);
  }

  @Override
  public String toString() {
    return "avro codec for " + type.getName();
  }
}
