package dev.stowage.internal.codec;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Vector;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.IntFunction;
import org.apache.fory.Fory;
import org.apache.fory.ThreadSafeFory;
import org.apache.fory.memory.MemoryBuffer;
import org.apache.fory.resolver.ClassInfo;
import org.apache.fory.serializer.ArraySerializers;
import org.apache.fory.serializer.Serializer;
import org.apache.fory.serializer.Serializers;
import org.apache.fory.serializer.collection.CollectionLikeSerializer;
import org.apache.fory.serializer.collection.CollectionSerializer;
import org.apache.fory.serializer.collection.CollectionSerializers;
import org.apache.fory.serializer.collection.ImmutableCollectionSerializers;
import org.apache.fory.serializer.collection.MapLikeSerializer;
import org.apache.fory.serializer.collection.MapSerializer;
import org.jspecify.annotations.Nullable;

/**
 * Fory reads an array's, a collection's or a big number's length and allocates that much before it
 * reads an element: five bytes can ask for 2 GiB. The serializers installed here read the same
 * bytes as Fory's own, but first check the length against the bytes left (each element takes at
 * least one byte; a primitive array's length is in bytes), and fail with an {@link
 * IllegalArgumentException} instead. The common collections get serializers that keep Fory's
 * generated-code fast path; every other registered class whose serializer starts with a length
 * ({@link #LENGTH_FIRST}, and every object array class, including the ones Fory creates serializers
 * for as it meets them) is wrapped, so that Fory reads it through the wrapper.
 */
final class ForyBounds {
  /**
   * Fory 0.13's serializers whose bytes start with the element count, read before anything is
   * allocated for it (checked against its bytecode; {@code ForyBoundsUnitTests} fuzzes each).
   */
  static final Set<String> LENGTH_FIRST =
      Set.of(
          "org.apache.fory.serializer.collection.CollectionSerializers$ConcurrentSkipListSetSerializer",
          "org.apache.fory.serializer.collection.GuavaCollectionSerializers$ImmutableBiMapSerializer",
          "org.apache.fory.serializer.collection.GuavaCollectionSerializers$ImmutableListSerializer",
          "org.apache.fory.serializer.collection.GuavaCollectionSerializers$ImmutableMapSerializer",
          "org.apache.fory.serializer.collection.GuavaCollectionSerializers$ImmutableSetSerializer",
          "org.apache.fory.serializer.collection.GuavaCollectionSerializers$ImmutableSortedMapSerializer",
          "org.apache.fory.serializer.collection.GuavaCollectionSerializers$ImmutableSortedSetSerializer",
          "org.apache.fory.serializer.collection.GuavaCollectionSerializers$RegularImmutableListSerializer",
          "org.apache.fory.serializer.collection.MapSerializers$ConcurrentHashMapSerializer",
          "org.apache.fory.serializer.collection.MapSerializers$ConcurrentSkipListMapSerializer",
          "org.apache.fory.serializer.collection.MapSerializers$EnumMapSerializer",
          "org.apache.fory.serializer.collection.MapSerializers$LazyMapSerializer",
          "org.apache.fory.serializer.collection.SubListSerializers$SubListSerializer",
          "org.apache.fory.serializer.ArraySerializers$ObjectArraySerializer");

  private ForyBounds() {}

  /**
   * Replaces the serializers that allocate by a length read from the bytes. Call before any use.
   */
  @SuppressWarnings("JdkObsolete") // a Vector a value holds is decoded as a Vector
  static void install(ThreadSafeFory fory) {
    Set<Class<?>> replaced = new HashSet<>();
    replace(
        fory,
        replaced,
        ArrayList.class,
        f -> new BoundedCollection<>(f, ArrayList.class, ArrayList::new));
    replace(
        fory,
        replaced,
        ArrayDeque.class,
        f -> new BoundedCollection<>(f, ArrayDeque.class, ArrayDeque::new));
    replace(
        fory, replaced, Vector.class, f -> new BoundedCollection<>(f, Vector.class, Vector::new));
    replace(
        fory,
        replaced,
        HashSet.class,
        f -> new BoundedCollection<>(f, HashSet.class, HashSet::new));
    replace(
        fory,
        replaced,
        LinkedHashSet.class,
        f -> new BoundedCollection<>(f, LinkedHashSet.class, LinkedHashSet::new));
    replace(fory, replaced, HashMap.class, f -> new BoundedMap<>(f, HashMap.class, HashMap::new));
    replace(
        fory,
        replaced,
        LinkedHashMap.class,
        f -> new BoundedMap<>(f, LinkedHashMap.class, LinkedHashMap::new));
    replace(fory, replaced, CopyOnWriteArrayList.class, BoundedCopyOnWriteList::new);
    for (Class<?> list :
        List.of(
            List.of().getClass(),
            List.of(1).getClass(),
            List.of(1, 2, 3).subList(0, 1).getClass())) {
      replace(fory, replaced, list, f -> new BoundedImmutableList(f, list));
    }
    for (Class<?> set : List.of(Set.of().getClass(), Set.of(1).getClass())) {
      replace(fory, replaced, set, f -> new BoundedImmutableSet(f, set));
    }
    for (Class<?> map : List.of(Map.of().getClass(), Map.of(1, 1).getClass())) {
      replace(fory, replaced, map, f -> new BoundedImmutableMap(f, map));
    }
    replace(
        fory,
        replaced,
        int[].class,
        f -> new CountFirst<>(f, new ArraySerializers.IntArraySerializer(f), 1));
    replace(
        fory,
        replaced,
        long[].class,
        f -> new CountFirst<>(f, new ArraySerializers.LongArraySerializer(f), 1));
    replace(
        fory,
        replaced,
        float[].class,
        f -> new CountFirst<>(f, new ArraySerializers.FloatArraySerializer(f), 1));
    replace(
        fory,
        replaced,
        double[].class,
        f -> new CountFirst<>(f, new ArraySerializers.DoubleArraySerializer(f), 1));
    replace(
        fory,
        replaced,
        short[].class,
        f -> new CountFirst<>(f, new ArraySerializers.ShortArraySerializer(f), 1));
    replace(
        fory,
        replaced,
        char[].class,
        f -> new CountFirst<>(f, new ArraySerializers.CharArraySerializer(f), 1));
    replace(
        fory,
        replaced,
        byte[].class,
        f -> new CountFirst<>(f, new ArraySerializers.ByteArraySerializer(f), 1));
    replace(
        fory,
        replaced,
        boolean[].class,
        f -> new CountFirst<>(f, new ArraySerializers.BooleanArraySerializer(f), 1));
    replace(
        fory,
        replaced,
        String[].class,
        f -> new CountFirst<>(f, new ArraySerializers.StringArraySerializer(f), 1));
    replace(
        fory,
        replaced,
        BigInteger.class,
        f -> new CountFirst<>(f, new Serializers.BigIntegerSerializer(f), 1));
    // scale, precision, then the unscaled value's length and bytes
    replace(
        fory,
        replaced,
        BigDecimal.class,
        f -> new CountFirst<>(f, new Serializers.BigDecimalSerializer(f), 1, 2, 0));
    replace(
        fory,
        replaced,
        BitSet.class,
        f ->
            new CountFirst<>(
                f,
                new CollectionSerializers.BitSetSerializer(f, BitSet.class),
                1)); // its words' bytes
    List<Class<?>> registered =
        fory.execute(f -> new ArrayList<>(f.getClassResolver().getRegisteredClasses()));
    for (Class<?> type : registered) {
      if (!replaced.contains(type) && fory.<Boolean>execute(f -> lengthFirst(f, type))) {
        fory.registerSerializer(type, f -> checked(f, f.getClassResolver().getSerializer(type)));
      }
    }
    fory.setSerializerFactory(ForyBounds::objectArrays);
  }

  private static void replace(
      ThreadSafeFory fory,
      Set<Class<?>> replaced,
      Class<?> type,
      Function<Fory, Serializer<?>> serializer) {
    fory.registerSerializer(type, serializer);
    replaced.add(type);
  }

  /**
   * Fory's own serializer, wrapped so that its length is checked first; maps and collections stay
   * what Fory expects.
   */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static Serializer<?> checked(Fory fory, Serializer serializer) {
    if (serializer instanceof MapLikeSerializer map) {
      return new CheckedMap(fory, map);
    }
    if (serializer instanceof CollectionLikeSerializer collection) {
      return new CheckedCollection(fory, collection);
    }
    return serializer instanceof ArraySerializers.ObjectArraySerializer
        ? new CountFirst<>(fory, serializer, 1, 0, 1)
        : new CountFirst<>(fory, serializer, 1);
  }

  /**
   * Whether Fory's serializer for a registered class reads a length first. Only serializers Fory
   * already made are looked at (it makes the collections' at start); creating the others would
   * compile code for classes such as exceptions. Those, when made later, are object arrays ({@link
   * #objectArrays}) or read no length first.
   */
  private static boolean lengthFirst(Fory fory, Class<?> type) {
    Serializer<?> serializer;
    try {
      ClassInfo info = fory.getClassResolver().getClassInfo(type, false);
      serializer = info == null ? null : info.getSerializer();
    } catch (RuntimeException e) {
      return false; // classes such as Void have none
    }
    return serializer != null && LENGTH_FIRST.contains(serializer.getClass().getName());
  }

  /** Object array classes other than the ones above, as Fory meets them; null lets Fory choose. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static @Nullable Serializer objectArrays(Fory fory, Class<?> type) {
    if (!type.isArray() || type.getComponentType().isPrimitive()) {
      return null;
    }
    return new CountFirst<>(fory, new ArraySerializers.ObjectArraySerializer(fory, type), 1, 0, 1);
  }

  /**
   * Checks the varint length at the buffer's reading position, without moving it: {@code length}
   * units of {@code unitBytes} must fit in the bytes after it.
   */
  static void checkLength(MemoryBuffer buffer, long unitBytes, Class<?> type) {
    checkLength(buffer, unitBytes, 0, 0, type);
  }

  /**
   * As {@link #checkLength(MemoryBuffer, long, Class)}, for a length after {@code varintsBefore}
   * other varints, kept in the bits of its varint above the lowest {@code flagBits} (an object
   * array keeps a flag in its lowest bit).
   */
  static void checkLength(
      MemoryBuffer buffer, long unitBytes, int varintsBefore, int flagBits, Class<?> type) {
    int start = buffer.readerIndex();
    for (int i = 0; i < varintsBefore; i++) {
      buffer.readVarUint32Small7();
    }
    int length = buffer.readVarUint32Small7() >>> flagBits;
    int left = buffer.remaining();
    buffer.readerIndex(start);
    if (length < 0 || length * unitBytes > left) {
      throw new IllegalArgumentException(
          "a "
              + type.getSimpleName()
              + " of "
              + Integer.toUnsignedString(length)
              + (unitBytes == 1 ? "" : " units of " + unitBytes + " bytes")
              + " cannot fit in the "
              + left
              + " bytes left");
    }
  }

  /**
   * A serializer whose bytes start with a varint length (or have it after a few varints); reads
   * after checking it.
   */
  private static final class CountFirst<T> extends Serializer<T> {
    private final Serializer<T> delegate;
    private final long unitBytes;
    private final int varintsBefore;
    private final int flagBits;

    CountFirst(Fory fory, Serializer<T> delegate, long unitBytes) {
      this(fory, delegate, unitBytes, 0, 0);
    }

    CountFirst(Fory fory, Serializer<T> delegate, long unitBytes, int varintsBefore, int flagBits) {
      super(fory, delegate.getType(), delegate.needToWriteRef(), delegate.isImmutable());
      this.delegate = delegate;
      this.unitBytes = unitBytes;
      this.varintsBefore = varintsBefore;
      this.flagBits = flagBits;
    }

    @Override
    public void write(MemoryBuffer buffer, T value) {
      delegate.write(buffer, value);
    }

    @Override
    public T read(MemoryBuffer buffer) {
      checkLength(buffer, unitBytes, varintsBefore, flagBits, type);
      return delegate.read(buffer);
    }

    @Override
    public T copy(T value) {
      return delegate.copy(value);
    }
  }

  /**
   * Fory's layout for a collection (as its ArrayList, HashSet and similar serializers write it),
   * checked.
   */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class BoundedCollection<T extends Collection>
      extends CollectionSerializer<T> {
    private final IntFunction<T> factory;

    BoundedCollection(Fory fory, Class<T> type, IntFunction<T> factory) {
      super(fory, type, true);
      this.factory = factory;
    }

    @Override
    public Collection newCollection(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      int size = buffer.readVarUint32Small7();
      setNumElements(size);
      T collection = factory.apply(size);
      fory.getRefResolver().reference(collection);
      return collection;
    }
  }

  /** Fory's layout for a map (as its HashMap serializer writes it), checked. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class BoundedMap<T extends Map> extends MapSerializer<T> {
    private final IntFunction<T> factory;

    BoundedMap(Fory fory, Class<T> type, IntFunction<T> factory) {
      super(fory, type, true);
      this.factory = factory;
    }

    @Override
    public Map newMap(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      int size = buffer.readVarUint32Small7();
      setNumElements(size);
      T map = factory.apply(size);
      fory.getRefResolver().reference(map);
      return map;
    }
  }

  /**
   * Fory's serializer for a collection, with the length checked first. Every hook Fory's generated
   * code calls goes to it, so the bytes and the fast path are its own.
   */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class CheckedCollection extends CollectionSerializer {
    private final CollectionLikeSerializer delegate;

    CheckedCollection(Fory fory, CollectionLikeSerializer delegate) {
      super(fory, delegate.getType(), delegate.supportCodegenHook());
      this.delegate = delegate;
    }

    @Override
    public void setElementSerializer(Serializer serializer) {
      super.setElementSerializer(serializer);
      delegate.setElementSerializer(serializer);
    }

    @Override
    public void write(MemoryBuffer buffer, Object value) {
      delegate.write(buffer, value);
    }

    @Override
    public Collection onCollectionWrite(MemoryBuffer buffer, Object value) {
      return delegate.onCollectionWrite(buffer, value);
    }

    @Override
    public void onCollectionWriteFinish(Collection collection) {
      delegate.onCollectionWriteFinish(collection);
    }

    @Override
    public Object read(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      return delegate.read(buffer);
    }

    @Override
    public Collection newCollection(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      return delegate.newCollection(buffer);
    }

    @Override
    public Collection newCollection(Collection collection) {
      return delegate.newCollection(collection);
    }

    @Override
    public int getAndClearNumElements() {
      return delegate.getAndClearNumElements();
    }

    @Override
    public Collection onCollectionRead(Collection collection) {
      return (Collection) delegate.onCollectionRead(collection);
    }

    @Override
    public Object copy(Object value) {
      return delegate.copy(value);
    }
  }

  /** Fory's serializer for a map, with the length checked first; as {@link CheckedCollection}. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  private static final class CheckedMap extends MapSerializer {
    private final MapLikeSerializer delegate;

    CheckedMap(Fory fory, MapLikeSerializer delegate) {
      super(fory, delegate.getType(), delegate.supportCodegenHook());
      this.delegate = delegate;
    }

    @Override
    public void setKeySerializer(Serializer serializer) {
      super.setKeySerializer(serializer);
      delegate.setKeySerializer(serializer);
    }

    @Override
    public void setValueSerializer(Serializer serializer) {
      super.setValueSerializer(serializer);
      delegate.setValueSerializer(serializer);
    }

    @Override
    public void write(MemoryBuffer buffer, Object value) {
      delegate.write(buffer, value);
    }

    @Override
    public Map onMapWrite(MemoryBuffer buffer, Object value) {
      return delegate.onMapWrite(buffer, value);
    }

    @Override
    public void onMapWriteFinish(Map map) {
      delegate.onMapWriteFinish(map);
    }

    @Override
    public Object read(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      return delegate.read(buffer);
    }

    @Override
    public Map newMap(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      return delegate.newMap(buffer);
    }

    @Override
    public Map newMap(Map map) {
      return delegate.newMap(map);
    }

    @Override
    public int getAndClearNumElements() {
      return delegate.getAndClearNumElements();
    }

    @Override
    public void setNumElements(int numElements) {
      delegate.setNumElements(numElements);
    }

    @Override
    public Map onMapRead(Map map) {
      return (Map) delegate.onMapRead(map);
    }

    @Override
    public Map onMapCopy(Map map) {
      return (Map) delegate.onMapCopy(map);
    }

    @Override
    public Object copy(Object value) {
      return delegate.copy(value);
    }
  }

  @SuppressWarnings("rawtypes")
  private static final class BoundedCopyOnWriteList
      extends CollectionSerializers.CopyOnWriteArrayListSerializer {
    BoundedCopyOnWriteList(Fory fory) {
      super(fory, CopyOnWriteArrayList.class);
    }

    @Override
    public Collection newCollection(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      return super.newCollection(buffer);
    }
  }

  @SuppressWarnings("rawtypes")
  private static final class BoundedImmutableList
      extends ImmutableCollectionSerializers.ImmutableListSerializer {
    BoundedImmutableList(Fory fory, Class type) {
      super(fory, type);
    }

    @Override
    public Collection newCollection(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      return super.newCollection(buffer);
    }
  }

  @SuppressWarnings("rawtypes")
  private static final class BoundedImmutableSet
      extends ImmutableCollectionSerializers.ImmutableSetSerializer {
    BoundedImmutableSet(Fory fory, Class type) {
      super(fory, type);
    }

    @Override
    public Collection newCollection(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      return super.newCollection(buffer);
    }
  }

  @SuppressWarnings("rawtypes")
  private static final class BoundedImmutableMap
      extends ImmutableCollectionSerializers.ImmutableMapSerializer {
    BoundedImmutableMap(Fory fory, Class type) {
      super(fory, type);
    }

    @Override
    public Map newMap(MemoryBuffer buffer) {
      checkLength(buffer, 1, type);
      return super.newMap(buffer);
    }
  }
}
