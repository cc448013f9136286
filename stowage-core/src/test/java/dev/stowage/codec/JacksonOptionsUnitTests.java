package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonAutoDetect.Visibility;
import com.fasterxml.jackson.annotation.PropertyAccessor;
import dev.stowage.Codec;
import dev.stowage.TypeRef;
import dev.stowage.codec.JacksonOptions.PropertyNaming;
import dev.stowage.samples.Item;
import dev.stowage.samples.Samples;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Jackson options change the mapping as they say, and the defaults write the very bytes the
 * codecs wrote with no options.
 */
class JacksonOptionsUnitTests {

  /** A class without getters: invisible to Jackson's default visibility. */
  static final class Hidden {
    private int itemCount;

    Hidden() {}

    Hidden(int itemCount) {
      this.itemCount = itemCount;
    }
  }

  @Test
  void theDefaultsWriteTheSameBytesAsTheCodecsWithoutOptions() {
    Item item = Samples.item(7);
    TypeRef<Item> type = TypeRef.of(Item.class);
    assertThat(Codecs.json(type, JacksonOptions.defaults()).encode(item))
        .isEqualTo(Codecs.json(Item.class).encode(item));
    assertThat(Codecs.msgpack(type, JacksonOptions.defaults()).encode(item))
        .isEqualTo(Codecs.msgpack(Item.class).encode(item));
    assertThat(Codecs.msgpackCompact(type, JacksonOptions.defaults()).encode(item))
        .isEqualTo(Codecs.msgpackCompact(Item.class).encode(item));
  }

  @Test
  void namingAndVisibilityNeedNoMapperType() {
    Codec<Hidden> codec =
        Codecs.json(
            TypeRef.of(Hidden.class),
            JacksonOptions.defaults()
                .withPropertyNaming(PropertyNaming.KEBAB_CASE)
                .withVisibility(PropertyAccessor.FIELD, Visibility.ANY));
    byte[] bytes = codec.encode(new Hidden(3));
    assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("{\"item-count\":3}");
    assertThat(codec.decode(bytes, 0, bytes.length).itemCount).isEqualTo(3);
  }

  @Test
  void optionsAreImmutableAndTheLaterVisibilityForAnAccessorWins() {
    JacksonOptions base = JacksonOptions.defaults();
    JacksonOptions changed =
        base.withVisibility(PropertyAccessor.FIELD, Visibility.ANY)
            .withVisibility(PropertyAccessor.FIELD, Visibility.NONE)
            .withDiscoveredModules();
    assertThat(base.visibility()).isEmpty();
    assertThat(base.discoversModules()).isFalse();
    assertThat(changed.visibility())
        .containsExactly(Map.entry(PropertyAccessor.FIELD, Visibility.NONE));
    assertThat(changed.discoversModules()).isTrue();
    assertThat(changed.propertyNaming()).isEqualTo(PropertyNaming.AS_DECLARED);
  }

  @Test
  void discoveredModulesLeaveTheCodecWorking() {
    Item item = Samples.item(2);
    Codec<Item> codec =
        Codecs.msgpackCompact(
            TypeRef.of(Item.class), JacksonOptions.defaults().withDiscoveredModules());
    byte[] bytes = codec.encode(item);
    assertThat(codec.decode(bytes, 0, bytes.length)).isEqualTo(item);
  }
}
