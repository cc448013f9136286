package dev.stowage.internal.codec;

import java.io.ObjectInputFilter;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@link ObjectInputFilter} of the JDK codec: an allowlist of classes, with limits on depth,
 * array length, object references and stream bytes. Everything not allowed is rejected, proxies
 * included. Arrays are judged by their element class. Immutable and thread-safe.
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
   * JDK classes that carry plain data and run nothing of interest when read: the boxed primitives
   * and their superclasses, {@code Object} (for {@code Object[]}: its elements are checked one by
   * one, and {@code Object} itself is not serializable), enums, big numbers, the serial forms of the immutable collections, and
   * the common collections. Every class of {@code java.time} is allowed as well.
   */
  static final Set<String> JDK_BASICS = Set.of(
      "java.lang.String", "java.lang.Boolean", "java.lang.Character", "java.lang.Byte", "java.lang.Short",
      "java.lang.Integer", "java.lang.Long", "java.lang.Float", "java.lang.Double", "java.lang.Number",
      "java.lang.Enum", "java.lang.Object", "java.math.BigDecimal", "java.math.BigInteger",
      // HashMap and HashSet check their table size as a Map.Entry[] before they read entries.
      "java.util.Map$Entry",
      "java.util.ArrayList", "java.util.LinkedList", "java.util.HashMap", "java.util.LinkedHashMap",
      "java.util.TreeMap", "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet",
      "java.util.ArrayDeque", "java.util.UUID", "java.util.Date", "java.util.Arrays$ArrayList",
      // List.of(...) and friends: written as CollSer, which resolves to one of these.
      "java.util.CollSer", "java.util.ImmutableCollections$ListN", "java.util.ImmutableCollections$List12",
      "java.util.ImmutableCollections$SetN", "java.util.ImmutableCollections$Set12",
      "java.util.ImmutableCollections$MapN", "java.util.ImmutableCollections$Map1",
      "java.util.Collections$EmptyList", "java.util.Collections$EmptySet", "java.util.Collections$EmptyMap",
      "java.util.Collections$SingletonList", "java.util.Collections$SingletonSet",
      "java.util.Collections$SingletonMap", "java.util.Collections$UnmodifiableCollection",
      "java.util.Collections$UnmodifiableList", "java.util.Collections$UnmodifiableRandomAccessList",
      "java.util.Collections$UnmodifiableSet", "java.util.Collections$UnmodifiableMap");

  private final Set<String> classNames;
  private final Set<String> packages;
  private final List<String> packageTrees;

  /**
   * @param allowedClasses classes that are allowed, besides {@link #JDK_BASICS}
   * @param patterns {@code "com.example.Type"} (one class), {@code "com.example.*"} (the classes of
   *     a package) or {@code "com.example.**"} (a package and its subpackages)
   * @throws IllegalArgumentException if a pattern is blank or allows everything
   */
  JdkClassFilter(Set<Class<?>> allowedClasses, List<String> patterns) {
    Set<String> names = new HashSet<>(JDK_BASICS);
    for (Class<?> allowed : allowedClasses) {
      names.add(allowed.getName());
    }
    Set<String> exactPackages = new HashSet<>();
    List<String> trees = new ArrayList<>();
    for (String pattern : patterns) {
      String trimmed = pattern.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("*") || trimmed.startsWith(".")) {
        throw new IllegalArgumentException("jdk codec: '" + pattern
            + "' is not an allowlist pattern; use a class name, 'com.example.*' or 'com.example.**'");
      }
      if (trimmed.endsWith(".**")) {
        trees.add(trimmed.substring(0, trimmed.length() - 3));
      } else if (trimmed.endsWith(".*")) {
        exactPackages.add(trimmed.substring(0, trimmed.length() - 2));
      } else if (trimmed.contains("*")) {
        throw new IllegalArgumentException("jdk codec: '" + pattern
            + "' is not an allowlist pattern; '*' may only end one as '.*' or '.**'");
      } else {
        names.add(trimmed);
      }
    }
    this.classNames = Set.copyOf(names);
    this.packages = Set.copyOf(exactPackages);
    this.packageTrees = List.copyOf(trees);
  }

  @Override
  public Status checkInput(FilterInfo info) {
    if (info.depth() > MAX_DEPTH || info.arrayLength() > MAX_ARRAY_LENGTH || info.references() > MAX_REFERENCES
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
  String rejection(FilterInfo info) {
    if (info.depth() > MAX_DEPTH) {
      return "nesting depth " + info.depth() + " is over the limit of " + MAX_DEPTH;
    }
    if (info.arrayLength() > MAX_ARRAY_LENGTH) {
      return "an array of " + info.arrayLength() + " elements is over the limit of " + MAX_ARRAY_LENGTH;
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

  /** Whether the filter lets objects (or arrays) of this class be created. */
  boolean allows(Class<?> type) {
    Class<?> element = FieldTypes.elementOf(type);
    if (element.isPrimitive()) {
      return true;
    }
    if (Proxy.isProxyClass(element)) {
      return false;
    }
    String name = element.getName();
    if (classNames.contains(name) || name.startsWith("java.time.")) {
      return true;
    }
    String packageName = element.getPackageName();
    if (packages.contains(packageName)) {
      return true;
    }
    for (String tree : packageTrees) {
      if (packageName.equals(tree) || packageName.startsWith(tree + ".")) {
        return true;
      }
    }
    return false;
  }
}
