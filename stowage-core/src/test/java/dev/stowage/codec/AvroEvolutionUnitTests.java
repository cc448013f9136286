package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import dev.stowage.samples.avro.BoardRecord;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/**
 * The Avro codec reads values written with another version of the record's schema through Avro's
 * own resolution. The older values here are written by Avro's own writer with that schema.
 */
class AvroEvolutionUnitTests {
  /** An older BoardRecord: no title, an extra field first, the rest reordered. */
  private static final String OLDER =
      """
      {"type": "record", "name": "BoardRecord", "namespace": "dev.stowage.samples.avro", "fields": [
        {"name": "legacy_flag", "type": "int"},
        {"name": "member_id", "type": "int"},
        {"name": "score", "type": "long"},
        {"name": "created_ts", "type": "long"},
        {"name": "id", "type": ["null", "string"], "default": null},
        {"name": "body", "type": ["null", "string"], "default": null}
      ]}""";

  /** A schema that lacks the reader's {@code score}, which has no default. */
  private static final String WITHOUT_SCORE =
      """
      {"type": "record", "name": "BoardRecord", "namespace": "dev.stowage.samples.avro", "fields": [
        {"name": "member_id", "type": "long"},
        {"name": "created_ts", "type": "long"}
      ]}""";

  @SuppressWarnings("unchecked")
  private final Codec.Evolving<BoardRecord> codec =
      (Codec.Evolving<BoardRecord>) Codecs.avro(BoardRecord.class);

  @Test
  void aValueOfAnOlderSchemaIsResolvedByFieldName() throws IOException {
    Schema older = new Schema.Parser().parse(OLDER);
    GenericRecord value = new GenericData.Record(older);
    value.put("legacy_flag", 1);
    value.put("member_id", 42);
    value.put("score", 7L);
    value.put("created_ts", 1_700_000_000L);
    value.put("id", "abc");
    value.put("body", "hello");
    byte[] bytes = write(older, value);

    BoardRecord read = codec.decode(bytes, 0, bytes.length, OLDER);

    assertThat(read.getMemberId()).as("int promoted to long").isEqualTo(42L);
    assertThat(read.getScore()).isEqualTo(7L);
    assertThat(read.getCreatedTs()).isEqualTo(1_700_000_000L);
    assertThat(read.getId()).isEqualTo("abc");
    assertThat(read.getBody()).isEqualTo("hello");
    assertThat(read.getTitle()).as("a field the writer lacked takes its default").isNull();
  }

  @Test
  void aValueAvroCannotResolveIsRefused() throws IOException {
    Schema without = new Schema.Parser().parse(WITHOUT_SCORE);
    GenericRecord value = new GenericData.Record(without);
    value.put("member_id", 42L);
    value.put("created_ts", 1L);
    byte[] bytes = write(without, value);

    assertThatThrownBy(() -> codec.decode(bytes, 0, bytes.length, WITHOUT_SCORE))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("score");
  }

  @Test
  void theCodecsSchemaIsTheRecordsAvroSchema() {
    assertThat(new Schema.Parser().parse(codec.schema())).isEqualTo(BoardRecord.getClassSchema());
  }

  private static byte[] write(Schema schema, GenericRecord value) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<GenericRecord>(schema).write(value, encoder);
    encoder.flush();
    return out.toByteArray();
  }
}
