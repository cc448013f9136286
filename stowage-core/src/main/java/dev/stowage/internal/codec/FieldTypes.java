package dev.stowage.internal.codec;

import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The classes that a value type's serialized fields declare, found by walking the declared
 * (generic) field types from the value class into every class outside the JDK. Interfaces, abstract
 * classes and {@code Object} are left out: what they hold is only known at run time, and the codec
 * checks it then.
 */
final class FieldTypes {
  private FieldTypes() {}

  /**
   * The concrete classes reachable from {@code roots} through non-static, non-transient fields
   * (record components for records), superclasses included, in the order first met. The roots
   * themselves are part of the answer. Primitive types and arrays are unwrapped to their element
   * classes.
   */
  static Set<Class<?>> reachableFrom(Iterable<Class<?>> roots) {
    Set<Class<?>> found = new LinkedHashSet<>();
    Deque<Class<?>> pending = new ArrayDeque<>();
    for (Class<?> root : roots) {
      addClass(root, found, pending);
    }
    while (!pending.isEmpty()) {
      Class<?> type = pending.poll();
      if (isJdk(type)) {
        continue;
      }
      if (type.isRecord()) {
        for (RecordComponent component : type.getRecordComponents()) {
          addType(component.getGenericType(), found, pending);
        }
        continue;
      }
      for (Class<?> c = type; c != null && c != Object.class && !isJdk(c); c = c.getSuperclass()) {
        addClass(c, found, pending);
        for (Field field : c.getDeclaredFields()) {
          int modifiers = field.getModifiers();
          if (!Modifier.isStatic(modifiers)
              && !Modifier.isTransient(modifiers)
              && !field.isSynthetic()) {
            addType(field.getGenericType(), found, pending);
          }
        }
      }
    }
    return found;
  }

  /**
   * A stable description of the shape that positional codecs write for {@code registered}, in
   * registration order: each class and every class reachable from it, with its serialized fields
   * (name and declared type) in declaration order. Any change to a field, its type, the classes or
   * their order changes the text. {@code codec} starts it, so two codecs never share a shape.
   */
  static String shapeOf(String codec, List<Class<?>> registered) {
    StringBuilder text = new StringBuilder(codec).append(" registered ");
    for (Class<?> type : registered) {
      text.append(type.getName()).append(' ');
    }
    for (Class<?> type : reachableFrom(registered)) {
      if (isJdk(type)) {
        continue;
      }
      text.append('\n').append(type.getName()).append(" {");
      if (type.isRecord()) {
        for (RecordComponent component : type.getRecordComponents()) {
          text.append(' ')
              .append(component.getName())
              .append(':')
              .append(component.getGenericType().getTypeName());
        }
      } else {
        for (Class<?> c = type;
            c != null && c != Object.class && !isJdk(c);
            c = c.getSuperclass()) {
          for (Field field : c.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (!Modifier.isStatic(modifiers)
                && !Modifier.isTransient(modifiers)
                && !field.isSynthetic()) {
              text.append(' ')
                  .append(field.getName())
                  .append(':')
                  .append(field.getGenericType().getTypeName());
            }
          }
        }
      }
      if (type.isEnum()) {
        for (Object constant : type.getEnumConstants()) {
          text.append(' ').append(((Enum<?>) constant).name());
        }
      }
      text.append(" }");
    }
    return text.toString();
  }

  /** Whether a class belongs to the JDK's own modules (java.*, javax.*, jdk.*, sun.*). */
  static boolean isJdk(Class<?> type) {
    Class<?> element = elementOf(type);
    if (element.isPrimitive()) {
      return true;
    }
    String name = element.getName();
    return name.startsWith("java.")
        || name.startsWith("javax.")
        || name.startsWith("jdk.")
        || name.startsWith("sun.");
  }

  static Class<?> elementOf(Class<?> type) {
    Class<?> element = type;
    while (element.isArray()) {
      element = element.getComponentType();
    }
    return element;
  }

  private static void addType(Type type, Set<Class<?>> found, Deque<Class<?>> pending) {
    if (type instanceof Class<?> c) {
      addClass(c, found, pending);
    } else if (type instanceof ParameterizedType parameterized) {
      addType(parameterized.getRawType(), found, pending);
      for (Type argument : parameterized.getActualTypeArguments()) {
        addType(argument, found, pending);
      }
    } else if (type instanceof GenericArrayType array) {
      addType(array.getGenericComponentType(), found, pending);
    } else if (type instanceof WildcardType wildcard) {
      for (Type bound : wildcard.getUpperBounds()) {
        addType(bound, found, pending);
      }
    } else if (type instanceof TypeVariable<?> variable) {
      // A type variable's bounds are usually Object or an interface; concrete bounds still count.
      for (Type bound : variable.getBounds()) {
        if (bound instanceof Class<?>) {
          addType(bound, found, pending);
        }
      }
    }
  }

  private static void addClass(Class<?> type, Set<Class<?>> found, Deque<Class<?>> pending) {
    Class<?> element = elementOf(type);
    if (element.isPrimitive()
        || element == Object.class
        || element.isInterface()
        || (Modifier.isAbstract(element.getModifiers()) && !element.isArray())) {
      return;
    }
    if (found.add(element)) {
      pending.add(element);
    }
  }
}
