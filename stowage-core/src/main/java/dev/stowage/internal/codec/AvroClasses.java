package dev.stowage.internal.codec;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.jspecify.annotations.Nullable;

/**
 * Avro's {@link SpecificData} for one generated record class, which resolves a named schema (a
 * record, an enum, a fixed) to a class only when the record's own schema names it: the record
 * itself and the generated classes of its fields. Any other name, such as one in a writer's schema
 * read from Redis, resolves to no class, and Avro reads that part generically; no class is ever
 * loaded because a stored schema names it.
 *
 * <p>This is also why the codec does not need Avro's global {@code ClassSecurityValidator} (Avro
 * 1.12.1 and later refuse to load classes outside a few trusted packages unless the application
 * lists them in the {@code org.apache.avro.SERIALIZABLE_PACKAGES} system property): the classes the
 * user handed to the codec are trusted by that act, and they are looked up here directly.
 */
final class AvroClasses extends SpecificData {
  private final Map<String, Class<?>> named;

  AvroClasses(Class<?> type, Schema schema) {
    super(type.getClassLoader());
    Map<String, Class<?>> classes = new HashMap<>();
    collect(schema, type.getClassLoader(), classes, new HashSet<>());
    this.named = Map.copyOf(classes);
  }

  @Override
  @SuppressWarnings("rawtypes") // SpecificData's signature
  public @Nullable Class getClass(Schema schema) {
    return switch (schema.getType()) {
      case RECORD, ENUM, FIXED -> named.get(schema.getFullName());
      default -> super.getClass(schema);
    };
  }

  private static void collect(
      Schema schema, @Nullable ClassLoader loader, Map<String, Class<?>> into, Set<Schema> seen) {
    if (!seen.add(schema)) {
      return;
    }
    switch (schema.getType()) {
      case RECORD -> {
        load(schema, loader, into);
        for (Schema.Field field : schema.getFields()) {
          collect(field.schema(), loader, into, seen);
        }
      }
      case ENUM, FIXED -> load(schema, loader, into);
      case UNION -> schema.getTypes().forEach(branch -> collect(branch, loader, into, seen));
      case ARRAY -> collect(schema.getElementType(), loader, into, seen);
      case MAP -> collect(schema.getValueType(), loader, into, seen);
      default -> {}
    }
  }

  private static void load(
      Schema schema, @Nullable ClassLoader loader, Map<String, Class<?>> into) {
    try {
      into.put(schema.getFullName(), Class.forName(getClassName(schema), false, loader));
    } catch (ClassNotFoundException e) {
      // A named type without a generated class is read generically, as SpecificData does.
    }
  }
}
