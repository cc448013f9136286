package dev.stowage.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.samples.thrift.TBoardRecord;
import dev.stowage.samples.thrift.TMediaContent;
import java.io.ByteArrayOutputStream;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.thrift.TBase;
import org.apache.thrift.TDeserializer;
import org.apache.thrift.TSerializer;
import org.apache.thrift.protocol.TCompactProtocol;
import org.junit.jupiter.api.Test;

/** Every converter gives back an equal record, also after the format's own bytes. */
class FormsUnitTests {

  private static List<BoardRecord> boards() {
    List<BoardRecord> boards = new ArrayList<>(Samples.boards(100));
    LocalDateTime at = LocalDateTime.of(2024, 2, 29, 23, 59, 59);
    boards.add(
        new BoardRecord(
            null, 0, 0, null, null, null, null, null, null, null, null, null, null, null, 0));
    boards.add(
        new BoardRecord(
            "", Long.MIN_VALUE, Long.MAX_VALUE, "", "", "", "", "", "", "", "", "", at, at, -1));
    boards.add(
        new BoardRecord(
            "게시판",
            1,
            2,
            "标题 🚀",
            "본문\n第二行 👍🏽",
            "서울",
            "대한민국",
            "개발자",
            "0",
            "1",
            "회사",
            "+82-10",
            at,
            null,
            3));
    return boards;
  }

  private static List<MediaContent> media() {
    List<MediaContent> media = new ArrayList<>(Samples.mediaContents(100));
    media.add(Samples.keynoteMediaContent());
    return media;
  }

  @Test
  void protobufFormsRoundTrip() throws Exception {
    for (BoardRecord board : boards()) {
      dev.stowage.samples.protobuf.BoardRecord message = ProtobufForms.toProtobuf(board);
      assertThat(ProtobufForms.fromProtobuf(message)).isEqualTo(board);
      assertThat(
              ProtobufForms.fromProtobuf(
                  dev.stowage.samples.protobuf.BoardRecord.parseFrom(message.toByteArray())))
          .isEqualTo(board);
    }
    for (MediaContent content : media()) {
      dev.stowage.samples.protobuf.MediaContent message = ProtobufForms.toProtobuf(content);
      assertThat(
              ProtobufForms.fromProtobuf(
                  dev.stowage.samples.protobuf.MediaContent.parseFrom(message.toByteArray())))
          .isEqualTo(content);
    }
  }

  @Test
  void avroFormsRoundTrip() throws Exception {
    for (BoardRecord board : boards()) {
      dev.stowage.samples.avro.BoardRecord record = AvroForms.toAvro(board);
      assertThat(AvroForms.fromAvro(record)).isEqualTo(board);
      assertThat(
              AvroForms.fromAvro(avroRoundTrip(record, dev.stowage.samples.avro.BoardRecord.class)))
          .isEqualTo(board);
    }
    for (MediaContent content : media()) {
      dev.stowage.samples.avro.MediaContent record = AvroForms.toAvro(content);
      assertThat(
              AvroForms.fromAvro(
                  avroRoundTrip(record, dev.stowage.samples.avro.MediaContent.class)))
          .isEqualTo(content);
    }
  }

  @Test
  void thriftFormsRoundTrip() throws Exception {
    for (BoardRecord board : boards()) {
      TBoardRecord struct = ThriftForms.toThrift(board);
      assertThat(ThriftForms.fromThrift(struct)).isEqualTo(board);
      assertThat(ThriftForms.fromThrift(thriftRoundTrip(struct, new TBoardRecord())))
          .isEqualTo(board);
    }
    for (MediaContent content : media()) {
      TMediaContent struct = ThriftForms.toThrift(content);
      assertThat(ThriftForms.fromThrift(thriftRoundTrip(struct, new TMediaContent())))
          .isEqualTo(content);
    }
  }

  @Test
  void theBinaryFormsAreMuchSmallerThanJsonOnTheBoardRecord() throws Exception {
    BoardRecord board = Samples.board(3);
    int json = SampleJson.MAPPER.writeValueAsBytes(board).length;
    int protobuf = ProtobufForms.toProtobuf(board).toByteArray().length;
    int thrift =
        new TSerializer(new TCompactProtocol.Factory())
            .serialize(ThriftForms.toThrift(board))
            .length;
    // The field names alone are about 140 of the JSON bytes; the values are the same text.
    assertThat(protobuf).isLessThan(json - 120);
    assertThat(thrift).isLessThan(json - 120);
  }

  private static <T extends SpecificRecord> T avroRoundTrip(T record, Class<T> type)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    new SpecificDatumWriter<>(type).write(record, encoder);
    encoder.flush();
    BinaryDecoder decoder = DecoderFactory.get().binaryDecoder(out.toByteArray(), null);
    return new SpecificDatumReader<>(type).read(null, decoder);
  }

  private static <T extends TBase<?, ?>> T thriftRoundTrip(T struct, T empty) throws Exception {
    byte[] bytes = new TSerializer(new TCompactProtocol.Factory()).serialize(struct);
    new TDeserializer(new TCompactProtocol.Factory()).deserialize(empty, bytes);
    return empty;
  }
}
