package dev.stowage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.internal.compress.ZstdDictionary;
import dev.stowage.internal.format.FeedLayout;
import dev.stowage.internal.format.Schemas;
import dev.stowage.internal.format.StowageKeys;
import dev.stowage.internal.store.DictionaryStore;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The names of the keys Stowage writes are stored format: what a release wrote, the next one must
 * find. Every name is spelled out here, so that a change to one fails this test.
 */
class StowageKeysUnitTests {

  @Test
  void theNamesAreTheStoredOnes() {
    assertThat(StowageKeys.schema(0x0ABCDEF)).isEqualTo("stowage:schema:0abcdef");
    assertThat(StowageKeys.schema(0x0FFFFFFF)).isEqualTo("stowage:schema:fffffff");
    assertThat(StowageKeys.dictionary(0xE43D0DEEL)).isEqualTo("stowage:dict:e43d0dee");
    assertThat(StowageKeys.dictionary(0x2AL)).isEqualTo("stowage:dict:0000002a");
    assertThat(StowageKeys.dictionaryInfo(0x2AL)).isEqualTo("stowage:dict-info:0000002a");
    assertThat(StowageKeys.learnedByCache("boards")).isEqualTo("stowage:learned:cache:boards");
    assertThat(StowageKeys.learnedByFeed("board")).isEqualTo("stowage:learned:feed:board");
    assertThat(StowageKeys.loadLock("users:42")).isEqualTo("stowage:lock:users:42");
    assertThat(StowageKeys.feedBucket("board", 0)).isEqualTo("board:b:0");
    assertThat(StowageKeys.feedBucket("board", 140_737_488_355_328L))
        .isEqualTo("board:b:140737488355328");
    assertThat(StowageKeys.feedSealedBucket("board", 3)).isEqualTo("board:s:3");
    assertThat(StowageKeys.feedSealHold("board", 3)).isEqualTo("board:h:3");
  }

  @Test
  void thePrefixesAreTheStoredOnes() {
    assertThat(StowageKeys.NAMESPACE).isEqualTo("stowage:");
    assertThat(StowageKeys.SCHEMA_PREFIX).isEqualTo("stowage:schema:");
    assertThat(StowageKeys.DICTIONARY_PREFIX).isEqualTo("stowage:dict:");
    assertThat(StowageKeys.DICTIONARY_INFO_PREFIX).isEqualTo("stowage:dict-info:");
    assertThat(StowageKeys.LEARNED_BY_CACHE_PREFIX).isEqualTo("stowage:learned:cache:");
    assertThat(StowageKeys.LEARNED_BY_FEED_PREFIX).isEqualTo("stowage:learned:feed:");
    assertThat(StowageKeys.LOCK_PREFIX).isEqualTo("stowage:lock:");
    assertThat(StowageKeys.FEED_BUCKET_INFIX).isEqualTo(":b:");
    assertThat(StowageKeys.FEED_SEALED_INFIX).isEqualTo(":s:");
    assertThat(StowageKeys.FEED_HOLD_INFIX).isEqualTo(":h:");
  }

  @Test
  void theOwnersOfTheIdsNameTheirKeysHere() {
    ZstdDictionary dictionary = ZstdDictionary.of("a dictionary".getBytes(StandardCharsets.UTF_8));
    assertThat(DictionaryStore.key(dictionary.id()))
        .isEqualTo(StowageKeys.dictionary(dictionary.id()))
        .isEqualTo("stowage:dict:" + dictionary.hexId());
    int fingerprint = Schemas.fingerprint("record Board(long id, String title)");
    assertThat(Schemas.key(fingerprint))
        .isEqualTo(StowageKeys.schema(fingerprint))
        .isEqualTo("stowage:schema:" + Schemas.hex(fingerprint));
    assertThat(FeedLayout.bucketKey("board", 7)).isEqualTo(StowageKeys.feedBucket("board", 7));
    assertThat(FeedLayout.sealedKey("board", 7))
        .isEqualTo(StowageKeys.feedSealedBucket("board", 7));
  }

  /**
   * No prefix has a brace, so a key built on an application's key keeps its Redis Cluster hash tag.
   */
  @Test
  void aKeyBuiltOnATaggedKeyKeepsItsHashTag() throws IllegalAccessException {
    List<String> names = new ArrayList<>();
    for (Field field : StowageKeys.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getType() == String.class) {
        names.add((String) field.get(null));
      }
    }
    assertThat(names).hasSize(10).noneMatch(name -> name.contains("{") || name.contains("}"));

    assertThat(hashTag(StowageKeys.loadLock("{user:42}:profile"))).isEqualTo("user:42");
    assertThat(hashTag(StowageKeys.feedBucket("{board}", 7))).isEqualTo("board");
    assertThat(hashTag(StowageKeys.feedSealedBucket("{board}", 7))).isEqualTo("board");
    assertThat(hashTag(StowageKeys.feedSealHold("{board}", 7))).isEqualTo("board");
    assertThat(hashTag(StowageKeys.learnedByFeed("{board}"))).isEqualTo("board");
    assertThat(hashTag(StowageKeys.learnedByCache("{users}"))).isEqualTo("users");
  }

  @Test
  void namesAreRequired() {
    assertThatThrownBy(() -> StowageKeys.learnedByCache(null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("cacheName");
    assertThatThrownBy(() -> StowageKeys.learnedByFeed(null)).hasMessage("feedKey");
    assertThatThrownBy(() -> StowageKeys.loadLock(null)).hasMessage("valueKey");
    assertThatThrownBy(() -> StowageKeys.feedBucket(null, 1)).hasMessage("feedKey");
  }

  /**
   * What Redis Cluster hashes: the text between the first brace and the next closing one, when not
   * empty.
   */
  private static String hashTag(String key) {
    int open = key.indexOf('{');
    int close = open < 0 ? -1 : key.indexOf('}', open + 1);
    return close > open + 1 ? key.substring(open + 1, close) : key;
  }
}
