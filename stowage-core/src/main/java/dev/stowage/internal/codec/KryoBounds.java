package dev.stowage.internal.codec;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.CollectionSerializer;
import com.esotericsoftware.kryo.serializers.MapSerializer;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Kryo trusts the lengths in its input and allocates an array, a string or a collection of that
 * size before reading a single element, so a few corrupt bytes can ask for gigabytes. These
 * replacements check every length against the bytes that are left first (each element takes at
 * least one byte), and fail with a {@link KryoException} instead.
 */
final class KryoBounds {
  private KryoBounds() {}

  /**
   * A class resolver that reads registered class ids only. Kryo writes a class by name only when it
   * is not registered, which registration-required Kryo never does, yet its reader still loads a
   * class named in the bytes ({@code Class.forName}, searching the whole class path when there is
   * none) before it checks the registration: corrupt or hostile bytes cost a class path search per
   * decode, and any class on it could be loaded. A name is refused before any lookup.
   */
  static final class RegisteredIdsOnly extends DefaultClassResolver {
    private static final int NAME_SHOWN = 200;

    @Override
    protected Registration readName(Input input) {
      input.readVarInt(true); // the id Kryo gives the name within one stream
      String name = input.readString(); // checked against the bytes left (BoundedInput)
      if (name != null && name.length() > NAME_SHOWN) {
        name = name.substring(0, NAME_SHOWN) + "...";
      }
      throw new KryoException(
          "the bytes name the class "
              + name
              + " where a registered class id belongs; a class is never looked up by name");
    }
  }

  static void checkCount(long count, Input input, String what) {
    long left = (long) input.limit() - input.position();
    if (count < 0 || count > left) {
      throw new KryoException(
          what + " of " + count + " elements cannot fit in the " + left + " bytes left");
    }
  }

  /**
   * An input over one byte range whose strings and primitive arrays are checked before they are
   * allocated.
   */
  static final class BoundedInput extends Input {
    @Override
    public String readString() {
      checkStringLength();
      return super.readString();
    }

    @Override
    public StringBuilder readStringBuilder() {
      checkStringLength();
      return super.readStringBuilder();
    }

    private void checkStringLength() {
      if (position < limit && (buffer[position] & 0x80) != 0) {
        // A UTF-8 string: a flagged varint holding the char count + 1. (ASCII strings end at a
        // marked byte.)
        int start = position;
        int countPlusOne = readVarIntFlag(true);
        position = start;
        if (countPlusOne > 1) { // 0 is null, 1 is ""
          checkCount(countPlusOne - 1L, this, "a string");
        }
      }
    }

    @Override
    public byte[] readBytes(int length) {
      checkCount(length, this, "a byte array");
      return super.readBytes(length);
    }

    @Override
    public int[] readInts(int length) {
      checkCount(length, this, "an int array");
      return super.readInts(length);
    }

    @Override
    public int[] readInts(int length, boolean optimizePositive) {
      checkCount(length, this, "an int array");
      return super.readInts(length, optimizePositive);
    }

    @Override
    public long[] readLongs(int length) {
      checkCount(length, this, "a long array");
      return super.readLongs(length);
    }

    @Override
    public long[] readLongs(int length, boolean optimizePositive) {
      checkCount(length, this, "a long array");
      return super.readLongs(length, optimizePositive);
    }

    @Override
    public float[] readFloats(int length) {
      checkCount(length, this, "a float array");
      return super.readFloats(length);
    }

    @Override
    public double[] readDoubles(int length) {
      checkCount(length, this, "a double array");
      return super.readDoubles(length);
    }

    @Override
    public short[] readShorts(int length) {
      checkCount(length, this, "a short array");
      return super.readShorts(length);
    }

    @Override
    public char[] readChars(int length) {
      checkCount(length, this, "a char array");
      return super.readChars(length);
    }

    @Override
    public boolean[] readBooleans(int length) {
      checkCount(length, this, "a boolean array");
      return super.readBooleans(length);
    }
  }

  /** Kryo's collection serializer, checking the size before the collection is created. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static class BoundedCollectionSerializer extends CollectionSerializer<Collection> {
    @Override
    protected Collection create(
        Kryo kryo, Input input, Class<? extends Collection> type, int size) {
      checkCount(size, input, "a collection");
      return super.create(kryo, input, type, size);
    }
  }

  /** Kryo's map serializer, checking the size before the map is created. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static class BoundedMapSerializer extends MapSerializer<Map> {
    @Override
    protected Map create(Kryo kryo, Input input, Class<? extends Map> type, int size) {
      checkCount(size, input, "a map");
      return super.create(kryo, input, type, size);
    }
  }

  /** {@code List.of(...)} lists, read into a checked ArrayList and copied. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static final class ImmutableListSerializer extends BoundedCollectionSerializer {
    @Override
    protected Collection create(
        Kryo kryo, Input input, Class<? extends Collection> type, int size) {
      checkCount(size, input, "a list");
      return new ArrayList(size);
    }

    @Override
    public Collection read(Kryo kryo, Input input, Class<? extends Collection> type) {
      return List.copyOf(super.read(kryo, input, type));
    }
  }

  /** {@code Set.of(...)} sets, read into a checked LinkedHashSet and copied. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static final class ImmutableSetSerializer extends BoundedCollectionSerializer {
    @Override
    protected Collection create(
        Kryo kryo, Input input, Class<? extends Collection> type, int size) {
      checkCount(size, input, "a set");
      return new LinkedHashSet(size);
    }

    @Override
    public Collection read(Kryo kryo, Input input, Class<? extends Collection> type) {
      return Set.copyOf(super.read(kryo, input, type));
    }
  }

  /** {@code Map.of(...)} maps, read into a checked HashMap and copied. */
  @SuppressWarnings({"rawtypes", "unchecked"})
  static final class ImmutableMapSerializer extends BoundedMapSerializer {
    @Override
    protected Map create(Kryo kryo, Input input, Class<? extends Map> type, int size) {
      checkCount(size, input, "a map");
      return new HashMap(size);
    }

    @Override
    public Map read(Kryo kryo, Input input, Class<? extends Map> type) {
      return Map.copyOf(super.read(kryo, input, type));
    }
  }

  /**
   * Wraps the serializer of an object array, which starts with the length + 1 as a positive varint,
   * and checks that length before the array is allocated.
   */
  static final class LengthCheckedArraySerializer<T> extends Serializer<T> {
    private final Serializer<T> delegate;

    LengthCheckedArraySerializer(Serializer<T> delegate) {
      super(delegate.getAcceptsNull(), delegate.isImmutable());
      this.delegate = delegate;
    }

    @Override
    public void write(Kryo kryo, Output output, T object) {
      delegate.write(kryo, output, object);
    }

    @Override
    public T read(Kryo kryo, Input input, Class<? extends T> type) {
      int start = input.position();
      int lengthPlusOne = input.readVarInt(true);
      input.setPosition(start);
      checkCount(lengthPlusOne - 1L, input, "an array");
      return delegate.read(kryo, input, type);
    }

    @Override
    public T copy(Kryo kryo, T original) {
      return delegate.copy(kryo, original);
    }
  }
}
