package dev.stowage.spring;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Set;

/**
 * The classes a cache without a configured type may create when it reads a value: those in the
 * given packages and their subpackages, and a fixed set of JDK value classes. A name is checked as
 * text before any class is loaded, so a value naming another class is refused without loading it.
 */
final class ClassAllowlist {
  /**
   * JDK classes a cached value may be, besides the packages; lists, sets and maps of them are read
   * as {@link ClassNamingCodec} says.
   */
  static final Set<String> JDK_VALUES =
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
          "java.math.BigDecimal",
          "java.math.BigInteger",
          "java.util.UUID",
          "java.time.Instant",
          "java.time.LocalDate",
          "java.time.LocalDateTime",
          "java.time.LocalTime",
          "java.time.OffsetDateTime",
          "java.time.ZonedDateTime",
          "java.time.Duration",
          "java.time.Period",
          "java.time.Year",
          "java.time.YearMonth");

  private final List<String> packages;

  ClassAllowlist(List<String> packages) {
    for (String name : requireNonNull(packages, "packages")) {
      if (name.isBlank() || name.startsWith(".") || name.endsWith(".") || name.contains("*")) {
        throw new IllegalArgumentException(
            "stowage.allowed-packages: '"
                + name
                + "' is not a package name (such as com.example; its subpackages are allowed too)");
      }
    }
    this.packages = List.copyOf(packages);
  }

  /** Whether a value of the class of this binary name may be created. */
  boolean permits(String className) {
    if (JDK_VALUES.contains(className)) {
      return true;
    }
    for (String name : packages) {
      if (className.length() > name.length()
          && className.startsWith(name)
          && className.charAt(name.length()) == '.') {
        return true;
      }
    }
    return false;
  }

  List<String> packages() {
    return packages;
  }

  @Override
  public String toString() {
    return "the packages " + packages + " and the JDK value classes";
  }
}
