package dev.stowage.internal.codec;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The classes a codec may create, judged by name alone, so that a class can be refused before it is
 * loaded (and its static initializer run): exact class names, every class of {@code java.time}, and
 * the patterns given. Immutable and thread-safe.
 */
final class ClassNameAllowlist {
  private final Set<String> classNames;
  private final Set<String> packages;
  private final List<String> packageTrees;

  /**
   * @param codec names the codec in messages, such as {@code "jdk"}
   * @param classNames classes that are allowed by their binary names ({@code
   *     com.example.Outer$Inner})
   * @param patterns {@code "com.example.Type"} (one class), {@code "com.example.*"} (the classes of
   *     a package) or {@code "com.example.**"} (a package and its subpackages)
   * @throws IllegalArgumentException if a pattern is blank or allows everything
   */
  ClassNameAllowlist(String codec, Collection<String> classNames, List<String> patterns) {
    Set<String> names = new HashSet<>(classNames);
    Set<String> exactPackages = new HashSet<>();
    List<String> trees = new ArrayList<>();
    for (String pattern : patterns) {
      String trimmed = pattern.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("*") || trimmed.startsWith(".")) {
        throw new IllegalArgumentException(
            codec
                + " codec: '"
                + pattern
                + "' is not an allowlist pattern; use a class name, 'com.example.*' or 'com.example.**'");
      }
      if (trimmed.endsWith(".**")) {
        trees.add(trimmed.substring(0, trimmed.length() - 3));
      } else if (trimmed.endsWith(".*")) {
        exactPackages.add(trimmed.substring(0, trimmed.length() - 2));
      } else if (trimmed.contains("*")) {
        throw new IllegalArgumentException(
            codec
                + " codec: '"
                + pattern
                + "' is not an allowlist pattern; '*' may only end one as '.*' or '.**'");
      } else {
        names.add(trimmed);
      }
    }
    this.classNames = Set.copyOf(names);
    this.packages = Set.copyOf(exactPackages);
    this.packageTrees = List.copyOf(trees);
  }

  /** Whether the class of this binary name (not an array) may be created. */
  boolean allows(String className) {
    if (classNames.contains(className) || className.startsWith("java.time.")) {
      return true;
    }
    int dot = className.lastIndexOf('.');
    String packageName = dot < 0 ? "" : className.substring(0, dot);
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
