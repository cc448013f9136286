package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.stowage.Codec;
import dev.stowage.CodecException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * JDK deserialization bounded by work: values of allowlisted classes that cost time exponential or
 * quadratic in their size end quickly with a CodecException, and ordinary values, shared references
 * included, still decode. The bounds are generous (several seconds); without them each of these
 * payloads runs for minutes or more.
 */
class JdkWorkBoundsUnitTests {
  private static final Duration QUICKLY = Duration.ofSeconds(10);

  @SuppressWarnings("rawtypes")
  private final Codec<HashSet> sets = Codecs.jdk(HashSet.class);

  /**
   * The classic serialization DoS: each level holds two sets, and each set of a level holds both
   * sets of the level below, so hashing the root visits 2<sup>depth</sup> sets. Depth 60 takes a
   * few kilobytes.
   */
  @SuppressWarnings("NonApiType") // a HashSet is what the attack serializes
  static HashSet<Object> nestedHashSets(int depth) {
    HashSet<Object> root = new HashSet<>();
    Set<Object> s1 = root;
    Set<Object> s2 = new HashSet<>();
    for (int i = 0; i < depth; i++) {
      Set<Object> t1 = new HashSet<>();
      Set<Object> t2 = new HashSet<>();
      t1.add("foo"); // so that t1 and t2 differ
      s1.add(t1);
      s1.add(t2);
      s2.add(t1);
      s2.add(t2);
      s1 = t1;
      s2 = t2;
    }
    return root;
  }

  @Test
  void theClassicNestedHashSetsAreRefusedQuickly() {
    byte[] payload = sets.encode(nestedHashSets(60));
    assertThat(payload.length).as("a few kilobytes").isLessThan(8 * 1024);
    assertTimeoutPreemptively(
        QUICKLY,
        () ->
            assertThatThrownBy(() -> sets.decode(payload))
                .isInstanceOf(CodecException.class)
                .hasMessageStartingWith(
                    "jdk codec refused to decode " + payload.length + " bytes as java.util.HashSet")
                .hasMessageContaining(
                    "more than 10000000 objects when every shared object is counted each time it is referenced"));

    // Twelve levels (4,096 sets unfolded) are an ordinary value. The sets are changed after they
    // are
    // added, as the payload is built, so compare hash codes: equals would look in stale buckets.
    HashSet<Object> shallow = nestedHashSets(12);
    @SuppressWarnings("unchecked")
    HashSet<Object> decoded = sets.decode(sets.encode(shallow));
    assertThat(decoded).hasSize(2);
    assertThat(decoded.hashCode()).isEqualTo(shallow.hashCode());
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void listsThatShareTheirHalvesAndAreHashedOnceAreRefusedQuickly() {
    // Lists are read without hashing; the one set that holds the top list hashes 2^60 lists at
    // once.
    ArrayList top = new ArrayList();
    HashSet holder = new HashSet();
    holder.add(top);
    ArrayList current = top;
    for (int i = 0; i < 60; i++) {
      ArrayList half = new ArrayList();
      current.add(half);
      current.add(half);
      current = half;
    }
    byte[] payload = sets.encode(holder);
    assertTimeoutPreemptively(
        QUICKLY,
        () ->
            assertThatThrownBy(() -> sets.decode(payload))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("counted each time it is referenced"));
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void manyKeysWithOneHashCodeRunIntoTheWorkBudget() {
    // [i, -31 i] hashes to 961 for every i; lists are not Comparable, so every insertion compares
    // the new key with all the others. The set is built with distinct hashes and the lists changed
    // afterwards: serialization writes the elements without hashing them again.
    HashSet colliding = new HashSet();
    List<ArrayList> keys = new ArrayList<>();
    int count = 150_000;
    for (int i = 0; i < count; i++) {
      ArrayList key = new ArrayList(List.of(i, i));
      colliding.add(key);
      keys.add(key);
    }
    for (int i = 0; i < count; i++) {
      keys.get(i).set(1, -31 * i);
    }
    assertThat(keys.get(7).hashCode()).isEqualTo(keys.get(9).hashCode());
    byte[] payload = sets.encode(colliding);
    assertTimeoutPreemptively(
        Duration.ofSeconds(30),
        () ->
            assertThatThrownBy(() -> sets.decode(payload))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining(
                    "ms of CPU time, the limit for " + payload.length + " bytes"));
  }

  @Test
  @SuppressWarnings({"rawtypes", "unchecked"})
  void aListThatContainsItselfInsideASetFailsQuickly() {
    ArrayList self = new ArrayList();
    HashSet holder = new HashSet();
    holder.add(self);
    self.add("x");
    self.add(self);
    byte[] payload = sets.encode(holder);
    assertTimeoutPreemptively(
        QUICKLY,
        () ->
            assertThatThrownBy(() -> sets.decode(payload))
                .isInstanceOf(CodecException.class)
                .hasMessageContaining("the stack overflowed"));
  }

  @Test
  void anArrayOrATableLargerThanTheBytesLeftIsRefused() {
    @SuppressWarnings("ArrayRecordComponent") // never compared: it carries the array to encode
    record Longs(long[] values) implements Serializable {}
    Codec<Longs> longs = Codecs.jdk(Longs.class);
    byte[] bytes = longs.encode(new Longs(new long[] {0x5151515151515151L}));
    // The array's length (big-endian) comes right before its first element: 2^20 longs, 8 MiB.
    int length = indexOf(bytes, new byte[] {0, 0, 0, 1, 0x51, 0x51});
    bytes[length + 1] = 0x10;
    bytes[length + 3] = 0;
    assertThatThrownBy(() -> longs.decode(bytes))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("an array of 1048576 elements ([J) at byte " + length + ", but ");

    // A HashMap sizes its table from the count in its block data, before it reads an entry.
    @SuppressWarnings("rawtypes")
    Codec<HashMap> maps = Codecs.jdk(HashMap.class);
    byte[] map = maps.encode(new HashMap<>(Map.of("k", "v")));
    // writeObject writes the table size, then the number of mappings, as two ints in a block.
    int mappings = blockOfTwoInts(map) + 6;
    assertThat(map[mappings + 3]).isEqualTo((byte) 1);
    map[mappings + 1] = 0x10; // 1,048,577 mappings: a table of 2,097,152 entries, 8 MiB
    assertThatThrownBy(() -> maps.decode(map))
        .isInstanceOf(CodecException.class)
        .hasMessageContaining("elements (java.util.Map$Entry[]) cannot fit in the");
  }

  /** A writer, shared by every note that names it. */
  record Writer(String name, int age) implements Serializable {}

  record Note(
      long id,
      String title,
      Writer writer,
      List<String> tags,
      BigDecimal credit,
      Instant at,
      LocalDate day,
      UUID uuid,
      Thread.State state)
      implements Serializable {}

  record Wall(
      String name, List<Note> notes, Map<String, Set<Long>> index, TreeMap<String, Note> pinned)
      implements Serializable {}

  @Test
  @SuppressWarnings("EnumOrdinal") // any constant will do: the index only varies them
  void ordinaryAllowlistedValuesStillDecodeSharedReferencesIncluded() {
    Writer shared = new Writer("안녕", 42);
    List<Note> notes = new ArrayList<>();
    Map<String, Set<Long>> index = new LinkedHashMap<>();
    for (int i = 0; i < 5_000; i++) {
      Note note =
          new Note(
              i,
              "title " + i,
              shared,
              List.of("tag" + i % 7, "all"),
              BigDecimal.valueOf(i, 2),
              Instant.ofEpochSecond(1_700_000_000L + i),
              LocalDate.of(2024, 1 + i % 12, 1 + i % 28),
              new UUID(i, -i),
              Thread.State.values()[i % 6]);
      notes.add(note);
      index.computeIfAbsent("tag" + i % 7, k -> new HashSet<>()).add((long) i);
    }
    TreeMap<String, Note> pinned =
        new TreeMap<>(Map.of("first", notes.get(0), "last", notes.get(4_999)));
    Wall wall = new Wall("wall", notes, index, pinned);
    Codec<Wall> walls = Codecs.jdk(Wall.class, Thread.State.class.getName());
    Wall decoded = walls.decode(walls.encode(wall));
    assertThat(decoded).isEqualTo(wall);
    assertThat(decoded.notes().get(3).writer()).isSameAs(decoded.notes().get(4_000).writer());
  }

  /** The position of the first block of data holding exactly two ints (TC_BLOCKDATA, length 8). */
  private static int blockOfTwoInts(byte[] data) {
    for (int i = 0; i + 10 <= data.length; i++) {
      if (data[i] == 0x77 && data[i + 1] == 0x08) {
        return i;
      }
    }
    throw new AssertionError("no block of two ints");
  }

  private static int indexOf(byte[] data, byte[] part) {
    outer:
    for (int i = 0; i <= data.length - part.length; i++) {
      for (int j = 0; j < part.length; j++) {
        if (data[i + j] != part[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }
}
