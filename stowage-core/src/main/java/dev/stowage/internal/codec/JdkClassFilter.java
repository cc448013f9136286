package dev.stowage.internal.codec;

import java.io.ObjectInputFilter;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Proxy;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ObjectInputFilter} of the JDK codec: an allowlist of classes, with limits on depth,
 * array length, object references and stream bytes. Everything not allowed is rejected, proxies
 * included. Arrays are judged by their element class. Immutable and thread-safe.
 *
 * <p>Reading one value goes through {@link #reading(long)}, which adds the limits that depend on
 * the value: an array (or the table a {@code HashMap}, {@code HashSet} or {@code ArrayList} sizes
 * from the stream) may not have more elements than bytes are left, and reading may not take more
 * CPU time than {@link #workBudgetNanos(long)}, so that hash collisions between many keys, which
 * cost time quadratic in their number while each key is put, end in bounded time.
 */
final class JdkClassFilter implements ObjectInputFilter {
  /** The deepest nesting of objects a value may have. */
  static final long MAX_DEPTH = 64;

  /** The longest array a value may hold, checked before the array is allocated. */
  static final long MAX_ARRAY_LENGTH = 16L * 1024 * 1024;

  /** The most object references a value may have. */
  static final long MAX_REFERENCES = 1_000_000;

  /** The most bytes a value may take. */
  static final long MAX_BYTES = 256L * 1024 * 1024;

  /**
   * What an array may exceed the bytes left by: a collection reads its size from a block of data
   * (up to 1 KiB, already counted as read) before it sizes its table.
   */
  private static final long BLOCK_SLACK = 1024 + 5;

  /** How many filter calls pass between two looks at the CPU time. */
  private static final int CLOCK_EVERY = 64;

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  /**
   * JDK classes that carry plain data and run nothing of interest when read: the boxed primitives
   * and their superclasses, {@code Object} (for {@code Object[]}: its elements are checked one by
   * one, and {@code Object} itself is not serializable), enums, big numbers, the serial forms of
   * the immutable collections, and the common collections. Every class of {@code java.time} is
   * allowed as well.
   */
  static final Set<String> JDK_BASICS =
      Set.of(
          "java.lang.String",
          "java.lang.Boolean",
          "java.lang.Character",
          "java.lang.Byte",
          "java.lang.Short",
          "java.lang.Integer",
          "java.lang.Long",
          "java.lang.Float",
          "java.lang.Double",
          "java.lang.Number",
          "java.lang.Enum",
          "java.lang.Object",
          "java.math.BigDecimal",
          "java.math.BigInteger",
          // HashMap and HashSet check their table size as a Map.Entry[] before they read entries.
          "java.util.Map$Entry",
          "java.util.ArrayList",
          "java.util.LinkedList",
          "java.util.HashMap",
          "java.util.LinkedHashMap",
          "java.util.TreeMap",
          "java.util.HashSet",
          "java.util.LinkedHashSet",
          "java.util.TreeSet",
          "java.util.ArrayDeque",
          "java.util.UUID",
          "java.util.Date",
          "java.util.Arrays$ArrayList",
          // List.of(...) and friends: written as CollSer, which resolves to one of these.
          "java.util.CollSer",
          "java.util.ImmutableCollections$ListN",
          "java.util.ImmutableCollections$List12",
          "java.util.ImmutableCollections$SetN",
          "java.util.ImmutableCollections$Set12",
          "java.util.ImmutableCollections$MapN",
          "java.util.ImmutableCollections$Map1",
          "java.util.Collections$EmptyList",
          "java.util.Collections$EmptySet",
          "java.util.Collections$EmptyMap",
          "java.util.Collections$SingletonList",
          "java.util.Collections$SingletonSet",
          "java.util.Collections$SingletonMap",
          "java.util.Collections$UnmodifiableCollection",
          "java.util.Collections$UnmodifiableList",
          "java.util.Collections$UnmodifiableRandomAccessList",
          "java.util.Collections$UnmodifiableSet",
          "java.util.Collections$UnmodifiableMap");

  private final ClassNameAllowlist names;

  /**
   * @param allowedClasses classes that are allowed, besides {@link #JDK_BASICS}
   * @param patterns {@code "com.example.Type"} (one class), {@code "com.example.*"} (the classes of
   *     a package) or {@code "com.example.**"} (a package and its subpackages)
   * @throws IllegalArgumentException if a pattern is blank or allows everything
   */
  JdkClassFilter(Set<Class<?>> allowedClasses, List<String> patterns) {
    Set<String> classNames = new HashSet<>(JDK_BASICS);
    for (Class<?> allowed : allowedClasses) {
      classNames.add(allowed.getName());
    }
    this.names = new ClassNameAllowlist("jdk", classNames, patterns);
  }

  @Override
  public Status checkInput(FilterInfo info) {
    if (info.depth() > MAX_DEPTH
        || info.arrayLength() > MAX_ARRAY_LENGTH
        || info.references() > MAX_REFERENCES
        || info.streamBytes() > MAX_BYTES) {
      return Status.REJECTED;
    }
    Class<?> type = info.serialClass();
    if (type == null) {
      return Status.ALLOWED;
    }
    return allows(type) ? Status.ALLOWED : Status.REJECTED;
  }

  /** Why {@link #checkInput} rejects {@code info}, for messages; {@code null} if it does not. */
  @Nullable String rejection(FilterInfo info) {
    if (info.depth() > MAX_DEPTH) {
      return "nesting depth " + info.depth() + " is over the limit of " + MAX_DEPTH;
    }
    if (info.arrayLength() > MAX_ARRAY_LENGTH) {
      return "an array of "
          + info.arrayLength()
          + " elements is over the limit of "
          + MAX_ARRAY_LENGTH;
    }
    if (info.references() > MAX_REFERENCES) {
      return info.references() + " object references are over the limit of " + MAX_REFERENCES;
    }
    if (info.streamBytes() > MAX_BYTES) {
      return info.streamBytes() + " bytes are over the limit of " + MAX_BYTES;
    }
    Class<?> type = info.serialClass();
    if (type != null && !allows(type)) {
      return "class " + type.getName() + " is not in its allowlist";
    }
    return null;
  }

  /**
   * The CPU time that reading a value of {@code length} bytes may take: a second, and 200 ns more
   * per byte (2.7 s for 8 MiB). Ordinary values take a small fraction of it.
   */
  static long workBudgetNanos(long length) {
    return 1_000_000_000L + 200L * length;
  }

  /** A filter for reading one value of {@code length} bytes, from the calling thread. */
  Reading reading(long length) {
    return new Reading(length);
  }

  /**
   * This filter for one value: also bounds arrays by the bytes left and reading by CPU time, and
   * keeps the first reason it rejected something. Used by one thread, for one value.
   */
  final class Reading implements ObjectInputFilter {
    private final long length;
    private final long budget;
    private final long started;
    private int calls;
    private @Nullable String rejection;

    private Reading(long length) {
      this.length = length;
      this.budget = workBudgetNanos(length);
      this.started = cpuTime();
    }

    @Override
    public Status checkInput(FilterInfo info) {
      String reason = JdkClassFilter.this.rejection(info);
      if (reason == null && info.arrayLength() >= 0) {
        long bytes = info.arrayLength() * elementSize(info.serialClass());
        long left = length - info.streamBytes();
        if (bytes > left + BLOCK_SLACK) {
          reason =
              "an array of "
                  + info.arrayLength()
                  + " elements ("
                  + name(info.serialClass())
                  + ") cannot fit in the "
                  + Math.max(0, left)
                  + " bytes left of the value";
        }
      }
      if (reason == null && ++calls % CLOCK_EVERY == 0) {
        long spent = cpuTime() - started;
        if (spent > budget) {
          reason =
              "reading took more than "
                  + budget / 1_000_000
                  + " ms of CPU time, the limit for "
                  + length
                  + " bytes ("
                  + info.references()
                  + " objects read so far)";
        }
      }
      if (reason == null) {
        return Status.ALLOWED;
      }
      if (rejection == null) {
        rejection = reason;
      }
      return Status.REJECTED;
    }

    /** The first reason this filter rejected something, or {@code null}. */
    @Nullable String rejection() {
      return rejection;
    }
  }

  private static long elementSize(Class<?> array) {
    Class<?> component = array == null ? null : array.getComponentType();
    if (component == null || !component.isPrimitive()) {
      return 1;
    }
    if (component == long.class || component == double.class) {
      return 8;
    }
    if (component == int.class || component == float.class) {
      return 4;
    }
    return component == short.class || component == char.class ? 2 : 1;
  }

  private static String name(Class<?> type) {
    return type == null
        ? "unknown class"
        : type.getComponentType() != null
            ? type.getComponentType().getName() + "[]"
            : type.getName();
  }

  /** The calling thread's CPU time, or the wall clock where the JVM does not measure it. */
  private static long cpuTime() {
    long cpu = THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    return cpu >= 0 ? cpu : System.nanoTime();
  }

  /** Whether the filter lets objects (or arrays) of this class be created. */
  boolean allows(Class<?> type) {
    Class<?> element = FieldTypes.elementOf(type);
    if (element.isPrimitive()) {
      return true;
    }
    if (Proxy.isProxyClass(element)) {
      return false;
    }
    return names.allows(element.getName());
  }
}
