package dev.stowage.spring;

import java.lang.reflect.Array;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Java types written as text, as in source code but with every class named in full: {@code
 * com.example.Book}, {@code java.util.List<com.example.Book>}, {@code
 * java.util.Map<java.lang.String, com.example.Book>}, {@code com.example.Book[]}. A class of {@code
 * java.lang} may be named alone ({@code String}), a nested class with {@code $} or a dot, and a
 * primitive only as an array's component ({@code byte[]}). Wildcards and type variables are
 * refused, and so is a generic class without its type arguments (whose elements could only be read
 * as maps). {@link #of(Type)} writes a type as {@link #parse} reads it.
 */
final class JavaTypeText {
  /** How deep type arguments may nest. */
  private static final int MAX_DEPTH = 16;

  private static final Map<String, Class<?>> PRIMITIVES =
      Map.of(
          "boolean",
          boolean.class,
          "byte",
          byte.class,
          "short",
          short.class,
          "char",
          char.class,
          "int",
          int.class,
          "long",
          long.class,
          "float",
          float.class,
          "double",
          double.class);

  private final String text;
  private final ClassLoader classLoader;
  private final Predicate<String> permitted;
  private int at;

  private JavaTypeText(String text, ClassLoader classLoader, Predicate<String> permitted) {
    this.text = text;
    this.classLoader = classLoader;
    this.permitted = permitted;
  }

  /**
   * The type {@code text} names, its classes loaded (not initialised) through {@code classLoader}
   * once {@code permitted} accepts their names, which it is asked before any class is loaded.
   *
   * @throws IllegalArgumentException if the text is malformed, names a class that cannot be found
   *     or is not permitted, or gives a generic class too few or too many type arguments; the
   *     message says which and where
   */
  static Type parse(String text, ClassLoader classLoader, Predicate<String> permitted) {
    Objects.requireNonNull(text, "text");
    JavaTypeText parser = new JavaTypeText(text, classLoader, permitted);
    Type type = parser.type(0);
    parser.skipSpaces();
    if (parser.at < text.length()) {
      throw parser.malformed("unexpected '" + text.charAt(parser.at) + "'");
    }
    return type;
  }

  /** The text of {@code type}, which {@link #parse} reads back as an equal type. */
  static String of(Type type) {
    if (type instanceof Class<?> c) {
      return c.isArray() ? of(c.getComponentType()) + "[]" : c.getName();
    }
    if (type instanceof ParameterizedType parameterized) {
      return of(parameterized.getRawType())
          + Arrays.stream(parameterized.getActualTypeArguments())
              .map(JavaTypeText::of)
              .collect(Collectors.joining(", ", "<", ">"));
    }
    throw new IllegalArgumentException("no text for " + type.getTypeName());
  }

  /** The parameterized type {@code raw<arguments>}. */
  static ParameterizedType parameterized(Class<?> raw, Type... arguments) {
    return new Parameterized(raw, arguments);
  }

  private Type type(int depth) {
    if (depth > MAX_DEPTH) {
      throw malformed("type arguments nested more than " + MAX_DEPTH + " deep");
    }
    skipSpaces();
    int start = at;
    while (at < text.length()
        && (Character.isJavaIdentifierPart(text.charAt(at)) || text.charAt(at) == '.')) {
      at++;
    }
    String name = text.substring(start, at);
    if (name.isEmpty()) {
      throw malformed(
          at < text.length() && text.charAt(at) == '?'
              ? "a wildcard (?) has no class to read values as;" + " name the class"
              : "a class name expected");
    }
    Type type = load(name, start);
    skipSpaces();
    if (at < text.length() && text.charAt(at) == '<') {
      at++;
      List<Type> arguments = new ArrayList<>();
      while (true) {
        Type argument = type(depth + 1);
        if (argument instanceof Class<?> c && c.isPrimitive()) {
          throw malformed("a primitive type argument (" + c.getName() + ")");
        }
        arguments.add(argument);
        skipSpaces();
        if (at >= text.length() || text.charAt(at) != ',') {
          break;
        }
        at++;
      }
      if (at >= text.length() || text.charAt(at) != '>') {
        throw malformed("'>' expected");
      }
      at++;
      Class<?> raw = (Class<?>) type;
      if (raw.getTypeParameters().length != arguments.size()) {
        throw new IllegalArgumentException(
            raw.getName()
                + " takes "
                + raw.getTypeParameters().length
                + " type argument(s), not "
                + arguments.size()
                + ", in '"
                + text
                + "'");
      }
      type = new Parameterized(raw, arguments.toArray(Type[]::new));
    } else if (type instanceof Class<?> raw && raw.getTypeParameters().length > 0) {
      throw new IllegalArgumentException(
          raw.getName()
              + " needs its type argument(s), or its elements are read as"
              + " maps: such as "
              + raw.getName()
              + Arrays.stream(raw.getTypeParameters())
                  .map(v -> "com.example.Book")
                  .collect(Collectors.joining(", ", "<", ">"))
              + ", in '"
              + text
              + "'");
    }
    skipSpaces();
    while (text.startsWith("[", at)) {
      at++;
      skipSpaces();
      if (!text.startsWith("]", at)) {
        throw malformed("']' expected");
      }
      at++;
      if (!(type instanceof Class<?> component)) {
        throw malformed("an array of a generic type; use a java.util.List of it");
      }
      type = Array.newInstance(component, 0).getClass();
      skipSpaces();
    }
    return type;
  }

  private Class<?> load(String name, int start) {
    Class<?> primitive = PRIMITIVES.get(name);
    if (primitive != null) {
      if (!text.startsWith("[", afterSpaces())) {
        throw malformed(
            "a primitive type ("
                + name
                + ") outside an array; name its class, such as java.lang.Integer");
      }
      return primitive;
    }
    if (name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
      throw malformed("'" + name + "' is not a class name");
    }
    List<String> candidates = new ArrayList<>();
    if (name.indexOf('.') < 0) {
      candidates.add("java.lang." + name);
    } else {
      // com.example.Outer.Inner is com.example.Outer$Inner: try each dot from the last as a '$'.
      String candidate = name;
      candidates.add(candidate);
      for (int dot = candidate.lastIndexOf('.');
          dot > 0;
          dot = candidate.lastIndexOf('.', dot - 1)) {
        candidate = candidate.substring(0, dot) + '$' + candidate.substring(dot + 1);
        candidates.add(candidate);
      }
    }
    @Nullable String refused = null;
    for (String candidate : candidates) {
      if (!permitted.test(candidate)) {
        refused = refused == null ? candidate : refused;
        continue;
      }
      try {
        return Class.forName(candidate, false, classLoader);
      } catch (ClassNotFoundException | LinkageError e) {
        // the next candidate, or not found
      }
    }
    if (refused != null && refused.equals(candidates.get(0))) {
      throw new IllegalArgumentException(
          "'" + text + "' names " + refused + ", which is not allowed");
    }
    throw new IllegalArgumentException(
        "class " + name + " not found (at " + start + " in '" + text + "')");
  }

  private int afterSpaces() {
    int i = at;
    while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
      i++;
    }
    return i;
  }

  private void skipSpaces() {
    at = afterSpaces();
  }

  private IllegalArgumentException malformed(String what) {
    return new IllegalArgumentException(
        "'"
            + text
            + "' is not a Java type: "
            + what
            + " at "
            + at
            + " (write it as in source code, with every class named in full: java.util.List<com.example.Book>)");
  }

  /** A class with type arguments, equal to the JDK's own for the same class and arguments. */
  private static final class Parameterized implements ParameterizedType {
    private final Class<?> raw;
    private final Type[] arguments;

    Parameterized(Class<?> raw, Type[] arguments) {
      this.raw = raw;
      this.arguments = arguments.clone();
    }

    @Override
    public Type[] getActualTypeArguments() {
      return arguments.clone();
    }

    @Override
    public Type getRawType() {
      return raw;
    }

    @Override
    public @Nullable Type getOwnerType() {
      return raw.getDeclaringClass();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof ParameterizedType that
          && raw.equals(that.getRawType())
          && Objects.equals(getOwnerType(), that.getOwnerType())
          && Arrays.equals(arguments, that.getActualTypeArguments());
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(arguments) ^ Objects.hashCode(getOwnerType()) ^ raw.hashCode();
    }

    @Override
    public String toString() {
      return of(this);
    }
  }
}
