package dev.stowage.testkit;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaGenericArrayType;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaParameterizedType;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.domain.JavaTypeVariable;
import com.tngtech.archunit.core.domain.JavaWildcardType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A module's public API as text: every public or protected type of the given packages, and each
 * one's public and protected constructors, methods and fields, with their generic signatures, one
 * line each, types and members sorted. A module's test compares it with a committed file (for
 * example {@code api/stowage-core.api}), so that a change to the API shows in review and is
 * deliberate; {@code -Dstowage.api.update=true} rewrites the file instead (see
 * docs/ARCHITECTURE.md, "Build checks in detail").
 *
 * <p>The classes are read from the module's compiled main classes ({@code target/classes}) with
 * ArchUnit's importer. A type counts only if every type enclosing it is public or protected too.
 * Synthetic and bridge members are left out.
 */
public final class ApiDump {

  /** The system property that makes {@link #check} rewrite the file instead of comparing. */
  public static final String UPDATE_PROPERTY = "stowage.api.update";

  private ApiDump() {}

  /** The API of the classes under {@code classesDir} in {@code packages}, as text. */
  public static String of(Path classesDir, Set<String> packages) {
    TreeMap<String, List<String>> types = new TreeMap<>();
    for (JavaClass type : new ClassFileImporter().importPath(classesDir)) {
      if (!packages.contains(type.getPackageName()) || !exported(type)) {
        continue;
      }
      List<String> members = new ArrayList<>();
      for (JavaField field : type.getFields()) {
        if (visible(field.getModifiers())) {
          members.add(
              modifiers(field.getModifiers()) + name(field.getType()) + " " + field.getName());
        }
      }
      for (JavaCodeUnit unit : type.getCodeUnits()) {
        if (visible(unit.getModifiers()) && !unit.getName().equals("<clinit>")) {
          members.add(codeUnit(type, unit));
        }
      }
      members.sort(Comparator.naturalOrder());
      types.put(type.getName(), members);
      // The header goes first, after the sort of the members.
      members.add(0, header(type));
    }
    StringBuilder text = new StringBuilder();
    types.forEach(
        (name, lines) -> {
          text.append(lines.get(0)).append('\n');
          lines
              .subList(1, lines.size())
              .forEach(line -> text.append("  ").append(line).append('\n'));
          text.append('\n');
        });
    return text.toString();
  }

  /**
   * Fails, with the lines that differ, when the API of {@code classesDir}'s {@code packages} is not
   * the text of {@code apiFile}; with {@code -Dstowage.api.update=true}, writes the file instead.
   */
  public static void check(Path classesDir, Set<String> packages, Path apiFile) {
    String actual = of(classesDir, packages);
    try {
      if (Boolean.getBoolean(UPDATE_PROPERTY)) {
        Files.createDirectories(apiFile.toAbsolutePath().getParent());
        Files.writeString(apiFile, actual, StandardCharsets.UTF_8);
        return;
      }
      String expected =
          Files.exists(apiFile) ? Files.readString(apiFile, StandardCharsets.UTF_8) : "";
      if (!expected.equals(actual)) {
        throw new AssertionError(
            "The public API differs from "
                + apiFile
                + " (- only in the file, + only in the classes). If the change is deliberate,"
                + " rewrite the file with -D"
                + UPDATE_PROPERTY
                + "=true and commit it:\n"
                + diff(expected, actual));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The lines only in {@code expected} ("- ") and only in {@code actual} ("+ "), with their type.
   */
  static String diff(String expected, String actual) {
    Set<String> before = typedLines(expected);
    Set<String> after = typedLines(actual);
    StringBuilder text = new StringBuilder();
    before.stream()
        .filter(line -> !after.contains(line))
        .forEach(line -> text.append("- ").append(line).append('\n'));
    after.stream()
        .filter(line -> !before.contains(line))
        .forEach(line -> text.append("+ ").append(line).append('\n'));
    return text.toString();
  }

  /** Each member line prefixed with its type's header, so that a diff line says where it is. */
  private static Set<String> typedLines(String dump) {
    Set<String> lines = new LinkedHashSet<>();
    String header = "";
    for (String line : dump.lines().toList()) {
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("  ")) {
        lines.add(header + " { " + line.strip() + " }");
      } else {
        header = line;
        lines.add(line);
      }
    }
    return lines;
  }

  private static boolean exported(JavaClass type) {
    if (!visible(type.getModifiers()) || type.getModifiers().contains(JavaModifier.SYNTHETIC)) {
      return false;
    }
    Optional<JavaClass> enclosing = type.getEnclosingClass();
    return enclosing.isEmpty() || exported(enclosing.get());
  }

  private static boolean visible(Set<JavaModifier> modifiers) {
    return (modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED))
        && !modifiers.contains(JavaModifier.SYNTHETIC)
        && !modifiers.contains(JavaModifier.BRIDGE);
  }

  private static String header(JavaClass type) {
    Set<JavaModifier> modifiers = type.getModifiers();
    String kind;
    if (type.isAnnotation()) {
      kind = "@interface";
    } else if (type.isInterface()) {
      kind = "interface";
    } else if (type.isEnum()) {
      kind = "enum";
    } else if (type.getRawSuperclass()
        .map(JavaClass::getName)
        .orElse("")
        .equals("java.lang.Record")) {
      kind = "record";
    } else {
      kind = "class";
    }
    StringBuilder header = new StringBuilder();
    header.append(type.isInterface() ? interfaceModifiers(modifiers) : modifiers(modifiers));
    header
        .append(kind)
        .append(' ')
        .append(type.getName())
        .append(typeParameters(type.getTypeParameters()));
    type.getSuperclass()
        .map(ApiDump::name)
        .filter(
            name ->
                !name.equals("java.lang.Object")
                    && !name.startsWith("java.lang.Enum<")
                    && !name.equals("java.lang.Record"))
        .ifPresent(name -> header.append(" extends ").append(name));
    List<String> interfaces = type.getInterfaces().stream().map(ApiDump::name).sorted().toList();
    if (!interfaces.isEmpty()) {
      header
          .append(type.isInterface() ? " extends " : " implements ")
          .append(String.join(", ", interfaces));
    }
    return header.toString();
  }

  private static String codeUnit(JavaClass owner, JavaCodeUnit unit) {
    StringBuilder line = new StringBuilder();
    Set<JavaModifier> modifiers = unit.getModifiers();
    line.append(owner.isInterface() ? interfaceModifiers(modifiers) : modifiers(modifiers));
    if (owner.isInterface()
        && !unit.isConstructor()
        && !modifiers.contains(JavaModifier.ABSTRACT)
        && !modifiers.contains(JavaModifier.STATIC)) {
      // A default method: adding one keeps implementations compiling, adding an abstract one not.
      line.append("default ");
    }
    String typeParameters = typeParameters(unit.getTypeParameters());
    if (!typeParameters.isEmpty()) {
      line.append(typeParameters).append(' ');
    }
    if (unit.isConstructor()) {
      line.append(owner.getSimpleName());
    } else {
      line.append(name(unit.getReturnType())).append(' ').append(unit.getName());
    }
    line.append(
        unit.getParameterTypes().stream()
            .map(ApiDump::name)
            .collect(Collectors.joining(", ", "(", ")")));
    List<String> thrown =
        unit.getThrowsClause().getTypes().stream().map(JavaClass::getName).sorted().toList();
    if (!thrown.isEmpty()) {
      line.append(" throws ").append(String.join(", ", thrown));
    }
    return line.toString();
  }

  private static String typeParameters(List<? extends JavaTypeVariable<?>> variables) {
    if (variables.isEmpty()) {
      return "";
    }
    return variables.stream()
        .map(
            variable -> {
              List<String> bounds =
                  variable.getUpperBounds().stream()
                      .map(ApiDump::name)
                      .filter(bound -> !bound.equals("java.lang.Object"))
                      .toList();
              return bounds.isEmpty()
                  ? variable.getName()
                  : variable.getName() + " extends " + String.join(" & ", bounds);
            })
        .collect(Collectors.joining(", ", "<", ">"));
  }

  /** A type's name with its generic arguments, arrays as {@code []}. */
  private static String name(JavaType type) {
    if (type instanceof JavaClass javaClass) {
      return javaClass.isArray() ? name(javaClass.getComponentType()) + "[]" : javaClass.getName();
    }
    if (type instanceof JavaGenericArrayType array) {
      return name(array.getComponentType()) + "[]";
    }
    if (type instanceof JavaParameterizedType parameterized) {
      return name(parameterized.toErasure())
          + parameterized.getActualTypeArguments().stream()
              .map(ApiDump::name)
              .collect(Collectors.joining(", ", "<", ">"));
    }
    if (type instanceof JavaWildcardType wildcard) {
      if (!wildcard.getLowerBounds().isEmpty()) {
        return "? super " + name(wildcard.getLowerBounds().get(0));
      }
      List<JavaType> upper = wildcard.getUpperBounds();
      return upper.isEmpty() || upper.get(0).getName().equals("java.lang.Object")
          ? "?"
          : "? extends " + name(upper.get(0));
    }
    return type.getName(); // a type variable
  }

  /** The modifiers that matter to a caller, in the JLS order, each followed by a space. */
  private static String modifiers(Set<JavaModifier> modifiers) {
    StringBuilder text = new StringBuilder();
    for (JavaModifier modifier :
        List.of(
            JavaModifier.PUBLIC,
            JavaModifier.PROTECTED,
            JavaModifier.ABSTRACT,
            JavaModifier.STATIC,
            JavaModifier.FINAL,
            JavaModifier.VOLATILE,
            JavaModifier.TRANSIENT)) {
      if (modifiers.contains(modifier)) {
        text.append(modifier.name().toLowerCase(Locale.ROOT)).append(' ');
      }
    }
    return text.toString();
  }

  /**
   * An interface's methods are abstract unless marked {@code default} or {@code static}, so the
   * dump leaves "abstract" out there and says "default" instead.
   */
  private static String interfaceModifiers(Set<JavaModifier> modifiers) {
    return modifiers(modifiers).replace("abstract ", "");
  }
}
