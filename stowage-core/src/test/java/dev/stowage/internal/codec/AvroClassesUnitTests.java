package dev.stowage.internal.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.samples.avro.BoardRecord;
import dev.stowage.samples.avro.Media;
import dev.stowage.samples.avro.MediaContent;
import dev.stowage.samples.avro.Player;
import org.apache.avro.Schema;
import org.junit.jupiter.api.Test;

class AvroClassesUnitTests {
  private final AvroClasses classes =
      new AvroClasses(MediaContent.class, MediaContent.getClassSchema());

  @Test
  void resolvesTheRecordAndTheNamedTypesOfItsFields() {
    assertThat(classes.getClass(MediaContent.getClassSchema())).isEqualTo(MediaContent.class);
    assertThat(classes.getClass(Media.getClassSchema())).isEqualTo(Media.class);
    assertThat(classes.getClass(Player.getClassSchema())).isEqualTo(Player.class);
  }

  @Test
  void resolvesNoOtherNamedTypeEvenWhenItsClassIsOnTheClassPath() {
    assertThat(classes.getClass(BoardRecord.getClassSchema())).isNull();
    Schema hostile =
        new Schema.Parser()
            .parse(
                "{\"type\":\"record\",\"name\":\"ProcessBuilder\",\"namespace\":\"java.lang\","
                    + "\"fields\":[]}");
    assertThat(classes.getClass(hostile)).isNull();
  }

  @Test
  void leavesUnnamedTypesToAvro() {
    assertThat(classes.getClass(Schema.create(Schema.Type.LONG))).isEqualTo(Long.TYPE);
  }
}
