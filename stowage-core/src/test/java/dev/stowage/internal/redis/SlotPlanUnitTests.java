package dev.stowage.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlotPlanUnitTests {
  /** Three masters as the testkit's cluster starts them: 0-5460, 5461-10922, 10923-16383. */
  private static Object threeMasters(int slot) {
    return slot <= 5460 ? "a" : slot <= 10922 ? "b" : "c";
  }

  private static byte[][] keys(List<String> texts) {
    return texts.stream().map(text -> text.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
  }

  private static List<String> numbered(String prefix, int n) {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      texts.add(prefix + i);
    }
    return texts;
  }

  @Test
  void onOneServerAChunkIsOneCommandOfConsecutiveKeys() {
    SlotPlan plan = SlotPlan.consecutive(2_500, 1_000);

    assertThat(plan.lanes()).hasSize(1);
    List<SlotPlan.Chunk> chunks = plan.lanes().get(0);
    assertThat(chunks).extracting(SlotPlan.Chunk::keys).containsExactly(1_000, 1_000, 500);
    assertThat(chunks).allSatisfy(chunk -> assertThat(chunk.groups()).hasSize(1));
    assertThat(chunks.get(1).groups().get(0)[0]).isEqualTo(1_000);
    assertThat(chunks.get(2).groups().get(0)).endsWith(2_499);
    assertThat(plan.commands()).isEqualTo(3);
    assertThat(plan.rounds()).isEqualTo(3);
    assertThat(SlotPlan.consecutive(0, 1_000).chunks()).isZero();
  }

  @Test
  void onAClusterEveryCommandTouchesOneSlotAndEveryKeyIsSentOnce() {
    List<String> texts = numbered("item:", 20_000);
    byte[][] keys = keys(texts);

    SlotPlan plan = SlotPlan.bySlot(keys, 1_000, SlotPlanUnitTests::threeMasters);

    Set<Integer> slots = new HashSet<>();
    texts.forEach(text -> slots.add(SlotHash.getSlot(text)));
    assertThat(plan.lanes()).as("a lane per master").hasSize(3);
    assertThat(plan.commands())
        .as("one command per slot: no slot has more keys than a chunk")
        .isEqualTo(slots.size())
        .isLessThan(texts.size());
    assertThat(plan.chunks())
        .as("each lane's chunks are full but the last")
        .isLessThanOrEqualTo(20 + 3);

    int[] sent = new int[keys.length];
    for (List<SlotPlan.Chunk> lane : plan.lanes()) {
      Object owner = null;
      for (SlotPlan.Chunk chunk : lane) {
        assertThat(chunk.keys()).isBetween(1, 1_000);
        for (int[] group : chunk.groups()) {
          int slot = SlotHash.getSlot(keys[group[0]]);
          for (int i : group) {
            assertThat(SlotHash.getSlot(keys[i])).isEqualTo(slot);
          }
          assertThat(group).as("keys in the order given").isSorted();
          Object master = threeMasters(slot);
          assertThat(owner == null || owner.equals(master)).as("one master per lane").isTrue();
          owner = master;
          for (int i : group) {
            sent[i]++;
          }
        }
      }
    }
    assertThat(sent).containsOnly(1);
  }

  @Test
  void keysOfOneHashTagAreOneCommandPerChunk() {
    List<String> texts = new ArrayList<>();
    for (int i = 0; i < 2_500; i++) {
      texts.add("{user:7}:" + i);
    }
    texts.addAll(numbered("{user:8}:", 10));

    SlotPlan plan = SlotPlan.bySlot(keys(texts), 1_000, SlotPlanUnitTests::threeMasters);

    List<Integer> groupSizes = new ArrayList<>();
    plan.lanes()
        .forEach(
            lane ->
                lane.forEach(
                    chunk -> chunk.groups().forEach(group -> groupSizes.add(group.length))));
    assertThat(groupSizes)
        .as("a slot with more keys than a chunk is cut into chunk-sized commands")
        .containsExactlyInAnyOrder(1_000, 1_000, 500, 10);
    assertThat(plan.commands()).isEqualTo(4);
  }

  @Test
  void theGroupsOfALaneArePackedIntoChunksUpToTheChunkSize() {
    // Six slots of one master with 40 keys each, chunks of 100: 40 + 40 fit, a third would not.
    List<String> texts = new ArrayList<>();
    for (int tag = 0; tag < 6; tag++) {
      for (int i = 0; i < 40; i++) {
        texts.add("{t" + tag + "}:" + i);
      }
    }

    SlotPlan plan = SlotPlan.bySlot(keys(texts), 100, slot -> "one");

    assertThat(plan.lanes()).hasSize(1);
    assertThat(plan.lanes().get(0))
        .extracting(chunk -> chunk.groups().size())
        .containsExactly(2, 2, 2);
    assertThat(plan.rounds()).isEqualTo(3);
  }

  @Test
  void slotsWithoutAKnownMasterGetALaneOfTheirOwn() {
    byte[][] keys = keys(numbered("k", 300));

    SlotPlan plan = SlotPlan.bySlot(keys, 1_000, slot -> slot < 8_192 ? "known" : null);

    assertThat(plan.lanes()).hasSize(2);
    int total = plan.lanes().stream().flatMap(List::stream).mapToInt(SlotPlan.Chunk::keys).sum();
    assertThat(total).isEqualTo(300);
    assertThat(Arrays.stream(keys).mapToInt(SlotHash::getSlot).distinct().count())
        .isEqualTo(plan.commands());
  }

  @Test
  void eachLaneIsNamedByTheMasterThatServesEveryKeyOfItsChunks() {
    List<String> texts = numbered("user:", 5_000);
    byte[][] keys = keys(texts);

    SlotPlan plan = SlotPlan.bySlot(keys, 700, SlotPlanUnitTests::threeMasters);

    assertThat(plan.owners()).hasSameSizeAs(plan.lanes());
    assertThat(plan.owners())
        .extracting(owner -> owner.orElseThrow())
        .containsExactlyInAnyOrder("a", "b", "c");
    for (int lane = 0; lane < plan.lanes().size(); lane++) {
      Object owner = plan.owners().get(lane).orElseThrow();
      for (SlotPlan.Chunk chunk : plan.lanes().get(lane)) {
        assertThat(chunk.keys()).isLessThanOrEqualTo(700);
        for (int[] group : chunk.groups()) {
          for (int i : group) {
            assertThat(threeMasters(SlotHash.getSlot(keys[i]))).as(texts.get(i)).isEqualTo(owner);
          }
        }
      }
    }
  }

  @Test
  void slotsWithoutAKnownMasterHaveNoOwnerAndOneServerNone() {
    SlotPlan plan =
        SlotPlan.bySlot(keys(numbered("k", 300)), 1_000, slot -> slot < 8_192 ? "known" : null);

    assertThat(plan.owners()).containsExactlyInAnyOrder(Optional.of("known"), Optional.empty());
    int unknownLane = plan.owners().indexOf(Optional.empty());
    assertThat(plan.lanes().get(unknownLane))
        .allSatisfy(
            chunk ->
                chunk
                    .groups()
                    .forEach(
                        group -> {
                          for (int i : group) {
                            assertThat(SlotHash.getSlot(("k" + i).getBytes(StandardCharsets.UTF_8)))
                                .isGreaterThanOrEqualTo(8_192);
                          }
                        }));
    assertThat(SlotPlan.consecutive(10, 4).owners()).containsExactly(Optional.empty());
    assertThat(SlotPlan.consecutive(0, 4).owners()).isEmpty();
  }

  @Test
  void aChunkSizeBelowOneIsRefused() {
    assertThatThrownBy(() -> SlotPlan.consecutive(10, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("chunkSize must be positive, got 0");
  }
}
