package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.sun.management.ThreadMXBean;
import dev.stowage.Codec;
import dev.stowage.CodecException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeMap;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The JDK (and Guava) classes that Fory registers, each as a value of its own: it round trips
 * through the serializers {@code ForyBounds} installs, to the same bytes, and a length far past the
 * bytes that follow, put in place of any byte, costs no allocation near what it declares.
 */
class ForyBoundsUnitTests {
  private static final long ALLOCATION_ALLOWANCE = 4L << 20;
  private static final List<byte[]> HUGE =
      List.of(
          CodecCorruptionUnitTests.bytes(0x80, 0x80, 0x80, 0x40), // 2^27 as a varint
          CodecCorruptionUnitTests.bytes(0x80, 0x80, 0x80, 0x80, 0x01), // 2^28
          CodecCorruptionUnitTests.bytes(0xfc, 0xff, 0xff, 0xff, 0x07)); // 2^31 - 4

  /** Each value as the one argument, arrays included (JUnit would spread an Object[]). */
  @SuppressWarnings(
      "JdkObsolete") // Fory serializes a Vector with a serializer of its own, which the bounds
  // replace
  static Stream<Arguments> values() {
    BitSet bits = new BitSet();
    bits.set(3);
    bits.set(700);
    return Stream.of(
            new ArrayList<>(List.of("a", "b", "c")),
            new ArrayDeque<>(List.of("a", "b")),
            new Vector<>(List.of("a", "b")),
            new HashSet<>(Set.of("a", "b")),
            new LinkedHashSet<>(List.of("a", "b")),
            new HashMap<>(Map.of("a", "b")),
            new LinkedHashMap<>(Map.of("a", "b")),
            new TreeMap<>(Map.of("a", "b")),
            new PriorityQueue<>(List.of("a", "b")),
            new ConcurrentHashMap<>(Map.of("a", "b")),
            new ConcurrentSkipListSet<>(Set.of("a", "b")),
            new CopyOnWriteArrayList<>(List.of("a", "b")),
            List.of("a", "b", "c"),
            List.of("a"),
            // Fory reads a sub-list back as a list of another class: held in an array here
            new Object[] {
              List.of(1, 2, 3, 4).subList(1, 3),
              new ArrayList<>(List.of("a", "b", "c")).subList(0, 2)
            },
            Set.of("a", "b", "c"),
            Set.of("a"),
            Map.of("a", "b", "c", "d"),
            Map.of("a", "b"),
            Arrays.asList("a", "b"),
            Collections.unmodifiableList(new ArrayList<>(List.of("a"))),
            ImmutableList.of("a", "b", "c"),
            ImmutableSet.of("a", "b", "c"),
            ImmutableMap.of("a", "b", "c", "d"),
            new int[] {1, 2, 3},
            new long[] {1, 2},
            new double[] {1.5},
            new float[] {2.5f},
            new short[] {3},
            new char[] {'c'},
            new byte[] {1, 2},
            new boolean[] {true},
            new String[] {"a", "b"},
            new Object[] {"a", 1},
            new Integer[] {1, 2},
            new Long[] {3L},
            bits,
            new BigInteger("123456789012345678901234567890"),
            new BigDecimal("-1234567890.0987654321"))
        .map(value -> Arguments.of((Object) value));
  }

  @ParameterizedTest
  @MethodSource("values")
  @SuppressWarnings({"unchecked", "rawtypes"})
  void roundTripsAndRefusesHugeLengthsWithoutAllocatingThem(Object value) {
    Codec<Object> codec = (Codec<Object>) (Codec) Codecs.fory(value.getClass());
    byte[] bytes = codec.encode(value);
    Object decoded = codec.decode(bytes);
    assertThat(decoded).isInstanceOf(value.getClass());
    assertThat(Arrays.deepToString(new Object[] {decoded}))
        .isEqualTo(Arrays.deepToString(new Object[] {value}));

    ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (byte[] huge : HUGE) {
      for (int at = 0; at < bytes.length; at++) {
        byte[] inserted = new byte[bytes.length - 1 + huge.length];
        System.arraycopy(bytes, 0, inserted, 0, at);
        System.arraycopy(huge, 0, inserted, at, huge.length);
        System.arraycopy(bytes, at + 1, inserted, at + huge.length, bytes.length - at - 1);
        decodeOrCodecException(codec, inserted); // once, for classes and generated code
        long before = threads.getCurrentThreadAllocatedBytes();
        decodeOrCodecException(codec, inserted);
        assertThat(threads.getCurrentThreadAllocatedBytes() - before)
            .as("%s with a huge length in place of byte %d", value.getClass().getName(), at)
            .isLessThan(ALLOCATION_ALLOWANCE);
      }
    }
  }

  private static void decodeOrCodecException(Codec<Object> codec, byte[] data) {
    try {
      assertThat(codec.decode(data)).isNotNull();
    } catch (CodecException expected) {
      assertThat(expected.getMessage()).startsWith("fory codec");
    }
  }
}
