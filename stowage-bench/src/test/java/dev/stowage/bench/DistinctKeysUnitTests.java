package dev.stowage.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DistinctKeysUnitTests {

  @Test
  void aKeyThatScanReturnedTwiceIsCountedOnce() {
    DistinctKeys keys = new DistinctKeys();
    keys.add(List.of("person_1", "person_2", "person_3"));
    keys.add(List.of("person_3", "person_4"));
    keys.add(List.of());
    keys.add(List.of("person_1"));

    assertThat(keys.count()).isEqualTo(4);
  }

  @Test
  void manyPagesOfDistinctKeysAreCountedExactly() {
    DistinctKeys keys = new DistinctKeys();
    for (int page = 0; page < 100; page++) {
      List<String> texts = new ArrayList<>();
      for (int i = 0; i < 1_000; i++) {
        texts.add("person_" + (page * 1_000 + i));
      }
      keys.add(texts);
    }
    // The last page again, as SCAN may give it during a rehash.
    List<String> again = new ArrayList<>();
    for (int i = 99_000; i < 100_000; i++) {
      again.add("person_" + i);
    }
    keys.add(again);

    assertThat(keys.count()).isEqualTo(100_000);
  }

  @Test
  void noKeysCountsZero() {
    assertThat(new DistinctKeys().count()).isZero();
  }
}
