package dev.stowage;

import static java.util.Objects.requireNonNull;

import java.lang.reflect.Array;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;

/**
 * A value type with its type arguments, such as {@code List<Item>}, which a {@code Class} cannot
 * express. Made by subclassing, so the compiler records the argument:
 *
 * <pre>{@code
 * RedisCache<String, List<Item>> lists = stowage.cache("lists", new TypeRef<List<Item>>() {}).build();
 * }</pre>
 *
 * <p>The JSON and MessagePack codecs decode to the declared element types. Two type references are
 * equal when their types are. Immutable.
 *
 * @param <T> the type
 */
public abstract class TypeRef<T> {
  private final Type type;

  /**
   * Captures the type argument of the anonymous subclass being created.
   *
   * @throws IllegalStateException if the subclass gives no concrete type argument
   */
  protected TypeRef() {
    Type superclass = getClass().getGenericSuperclass();
    if (!(superclass instanceof ParameterizedType parameterized)
        || parameterized.getRawType() != TypeRef.class) {
      throw new IllegalStateException(
          "create a TypeRef as an anonymous subclass with a type argument:"
              + " new TypeRef<List<Item>>() {}");
    }
    this.type = requireConcrete(parameterized.getActualTypeArguments()[0]);
  }

  private TypeRef(Type type) {
    this.type = type;
  }

  /** The type reference of a plain class. */
  public static <T> TypeRef<T> of(Class<T> type) {
    requireNonNull(type, "type");
    return new TypeRef<>(type) {};
  }

  /**
   * The type reference of a type built at run time, such as a {@code ParameterizedType} read from a
   * method's generic return type or parsed from configuration text. Its arguments must be concrete,
   * as for the anonymous subclass.
   *
   * @throws IllegalArgumentException if {@code type} is, or has as an argument, a type variable or
   *     a wildcard, or is not a {@code Class}, a {@code ParameterizedType} or a {@code
   *     GenericArrayType}
   */
  public static TypeRef<?> of(Type type) {
    requireNonNull(type, "type");
    try {
      requireConcrete(type);
      rawOf(type);
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    return new TypeRef<Object>(type) {};
  }

  /** The type, a {@code Class} or a {@code ParameterizedType} (or an array of one). */
  public final Type type() {
    return type;
  }

  /** The class of the type without its arguments, such as {@code List} for {@code List<Item>}. */
  @SuppressWarnings("unchecked")
  public final Class<T> rawType() {
    return (Class<T>) rawOf(type);
  }

  private static Class<?> rawOf(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType parameterized) {
      return (Class<?>) parameterized.getRawType();
    }
    if (type instanceof GenericArrayType array) {
      return Array.newInstance(rawOf(array.getGenericComponentType()), 0).getClass();
    }
    throw new IllegalStateException("no class for " + type.getTypeName());
  }

  private static Type requireConcrete(Type type) {
    if (type instanceof TypeVariable<?> || type instanceof WildcardType) {
      throw new IllegalStateException(
          "a TypeRef needs a concrete type, not "
              + type.getTypeName()
              + "; a type variable is erased at run time");
    }
    if (type instanceof ParameterizedType parameterized) {
      for (Type argument : parameterized.getActualTypeArguments()) {
        if (argument instanceof TypeVariable<?>) {
          throw new IllegalStateException(
              "a TypeRef needs a concrete type, not "
                  + type.getTypeName()
                  + "; a type variable is erased at run time");
        }
      }
    }
    return type;
  }

  @Override
  public final boolean equals(Object other) {
    return other instanceof TypeRef<?> that && type.equals(that.type);
  }

  @Override
  public final int hashCode() {
    return type.hashCode();
  }

  @Override
  public final String toString() {
    return type.getTypeName();
  }
}
