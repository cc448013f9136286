package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.connection.RedisSession;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * How the keys of one bulk operation travel: in chunks of at most a chunk size of keys, a chunk
 * being the commands sent together and awaited as one round trip, one command per <em>group</em> of
 * the chunk's keys.
 *
 * <p>On one server ({@link #consecutive}) a chunk is one group of consecutive keys, so each chunk
 * is one command, and there is one <em>lane</em>. On a cluster ({@link #bySlot}) a multi-key
 * command or script may only touch keys of one hash slot, so the keys are grouped by slot (each
 * group in the order the keys were given), the groups are put in the lane of the master that serves
 * their slot, and each lane's groups, in slot order, are packed into chunks of at most the chunk
 * size of keys (a slot with more keys than that is cut into several groups). Each lane gets its own
 * window of chunks in flight ({@link ChunkWindow}), so the masters work in parallel and none waits
 * behind another's chunks. Each lane knows its {@linkplain #owners() owner}, so that a chunk's
 * commands can be written to that master together, in one flush. Immutable.
 */
final class SlotPlan {
  /**
   * One round trip's commands.
   *
   * @param groups the indexes, into the operation's keys, of the keys of each command
   */
  record Chunk(List<int[]> groups) {
    /** The number of keys in the chunk. */
    int keys() {
      int n = 0;
      for (int[] group : groups) {
        n += group.length;
      }
      return n;
    }
  }

  private final List<List<Chunk>> lanes;

  /** The owner of each lane, aligned with {@link #lanes}; empty where none is known. */
  private final List<Optional<Object>> owners;

  private SlotPlan(List<List<Chunk>> lanes, List<Optional<Object>> owners) {
    this.lanes = lanes;
    this.owners = owners;
  }

  /**
   * How a bulk operation over {@code keys} travels on {@code session}: on one server, chunks of
   * consecutive keys ({@link #consecutive}); on a cluster, groups of one slot in a lane per master,
   * as the session's {@linkplain RedisSession#slotMasters() topology known now} says ({@link
   * #bySlot}).
   */
  static SlotPlan of(RedisSession session, byte[][] keys, int chunkSize) {
    if (!session.isCluster()) {
      return consecutive(keys.length, chunkSize);
    }
    return bySlot(keys, chunkSize, session.slotMasters());
  }

  /** The plan on one server: chunks of {@code chunkSize} consecutive keys, each one command. */
  static SlotPlan consecutive(int keys, int chunkSize) {
    requirePositive(chunkSize);
    List<Chunk> chunks = new ArrayList<>();
    for (int from = 0; from < keys; from += chunkSize) {
      int[] group = new int[Math.min(keys, from + chunkSize) - from];
      for (int i = 0; i < group.length; i++) {
        group[i] = from + i;
      }
      chunks.add(new Chunk(List.of(group)));
    }
    return chunks.isEmpty()
        ? new SlotPlan(List.of(), List.of())
        : new SlotPlan(List.of(chunks), List.of(Optional.empty()));
  }

  /**
   * The plan on a cluster: {@code keys} grouped by hash slot ({@link SlotHash#getSlot(byte[])}), in
   * lanes by {@code ownerOfSlot} (the master serving a slot, or {@code null} when no master is
   * known for it, which makes a lane of its own), and packed into chunks of at most {@code
   * chunkSize} keys per lane.
   */
  @SuppressWarnings("ReferenceEquality") // the sentinel of an unknown owner
  static SlotPlan bySlot(
      byte[][] keys, int chunkSize, IntFunction<? extends @Nullable Object> ownerOfSlot) {
    requireNonNull(keys, "keys");
    requirePositive(chunkSize);
    int[] slots = new int[keys.length];
    int[] perSlot = new int[SlotHash.SLOT_COUNT];
    for (int i = 0; i < keys.length; i++) {
      slots[i] = SlotHash.getSlot(keys[i]);
      perSlot[slots[i]]++;
    }
    // The keys of each slot, in the order given: a counting sort by slot.
    int[] start = new int[SlotHash.SLOT_COUNT + 1];
    for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
      start[slot + 1] = start[slot] + perSlot[slot];
    }
    int[] sorted = new int[keys.length];
    int[] next = Arrays.copyOf(start, SlotHash.SLOT_COUNT);
    for (int i = 0; i < keys.length; i++) {
      sorted[next[slots[i]]++] = i;
    }
    Object unknown = new Object();
    Map<Object, LaneBuilder> byOwner = new LinkedHashMap<>();
    for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
      if (perSlot[slot] == 0) {
        continue;
      }
      Object owner = ownerOfSlot.apply(slot);
      LaneBuilder lane =
          byOwner.computeIfAbsent(owner == null ? unknown : owner, o -> new LaneBuilder(chunkSize));
      for (int from = start[slot]; from < start[slot + 1]; from += chunkSize) {
        lane.add(Arrays.copyOfRange(sorted, from, Math.min(start[slot + 1], from + chunkSize)));
      }
    }
    List<List<Chunk>> lanes = new ArrayList<>();
    List<Optional<Object>> owners = new ArrayList<>();
    for (Map.Entry<Object, LaneBuilder> lane : byOwner.entrySet()) {
      lanes.add(lane.getValue().build());
      owners.add(lane.getKey() == unknown ? Optional.empty() : Optional.of(lane.getKey()));
    }
    return new SlotPlan(List.copyOf(lanes), List.copyOf(owners));
  }

  /** The lanes, each the chunks that one master is sent, in order. */
  List<List<Chunk>> lanes() {
    return lanes;
  }

  /**
   * Who serves each lane, aligned with {@link #lanes()}: the owner {@link #bySlot} was told for the
   * lane's slots, or empty for the lane of slots with no known owner and for the one lane of {@link
   * #consecutive}.
   */
  List<Optional<Object>> owners() {
    return owners;
  }

  /** The number of chunks over every lane. */
  int chunks() {
    int n = 0;
    for (List<Chunk> lane : lanes) {
      n += lane.size();
    }
    return n;
  }

  /** The number of commands: groups over every chunk. */
  int commands() {
    int n = 0;
    for (List<Chunk> lane : lanes) {
      for (Chunk chunk : lane) {
        n += chunk.groups().size();
      }
    }
    return n;
  }

  /**
   * The largest number of chunks one lane has: the round trips the plan takes, lanes running in
   * parallel.
   */
  int rounds() {
    int most = 0;
    for (List<Chunk> lane : lanes) {
      most = Math.max(most, lane.size());
    }
    return most;
  }

  private static void requirePositive(int chunkSize) {
    if (chunkSize < 1) {
      throw new IllegalArgumentException("chunkSize must be positive, got " + chunkSize);
    }
  }

  /** Packs a lane's groups into chunks of at most the chunk size of keys. */
  private static final class LaneBuilder {
    private final int chunkSize;
    private final List<Chunk> chunks = new ArrayList<>();
    private List<int[]> open = new ArrayList<>();
    private int openKeys;

    LaneBuilder(int chunkSize) {
      this.chunkSize = chunkSize;
    }

    void add(int[] group) {
      if (openKeys + group.length > chunkSize) {
        close();
      }
      open.add(group);
      openKeys += group.length;
    }

    private void close() {
      if (!open.isEmpty()) {
        chunks.add(new Chunk(List.copyOf(open)));
        open = new ArrayList<>();
        openKeys = 0;
      }
    }

    List<Chunk> build() {
      close();
      return List.copyOf(chunks);
    }
  }
}
