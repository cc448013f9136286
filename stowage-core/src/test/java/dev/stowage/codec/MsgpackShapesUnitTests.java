package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.Codec;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import org.junit.jupiter.api.Test;

/**
 * Both MessagePack shapes, named and compact, are read by either codec: for a record, and for an
 * array of records, whose values start with an array header in both shapes.
 */
class MsgpackShapesUnitTests {
  @Test
  void eitherShapeOfARecordIsReadByEitherCodec() {
    Item item = Samples.item(7);
    Codec<Item> named = Codecs.msgpack(Item.class);
    Codec<Item> compact = Codecs.msgpackCompact(Item.class);
    assertThat(compact.decode(named.encode(item))).isEqualTo(item);
    assertThat(named.decode(compact.encode(item))).isEqualTo(item);
    assertThat(compact.encode(item).length).isLessThan(named.encode(item).length);
  }

  @Test
  void eitherShapeOfAnArrayOfRecordsIsReadByEitherCodec() {
    Item[] items = Samples.items(3).toArray(Item[]::new);
    Codec<Item[]> named = Codecs.msgpack(Item[].class);
    Codec<Item[]> compact = Codecs.msgpackCompact(Item[].class);
    assertThat(named.decode(named.encode(items))).containsExactly(items);
    assertThat(compact.decode(compact.encode(items))).containsExactly(items);
    assertThat(compact.decode(named.encode(items))).containsExactly(items);
    assertThat(named.decode(compact.encode(items))).containsExactly(items);
    assertThat(named.decode(named.encode(new Item[0]))).isEmpty();
  }
}
