package dev.stowage.internal.codec;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A walk over a JDK serialization stream, before {@link java.io.ObjectInputStream} creates
 * anything, that measures the object graph the stream describes as a tree: every object counted
 * again each time it is referenced. Hashing a set or a map of such a graph during deserialization
 * walks that tree, so a few kilobytes of shared references (the classic nested {@code HashSet}s,
 * each level holding the two sets of the level below) cost 2<sup>depth</sup> calls to {@code
 * hashCode} before the stream ends. The walk follows the grammar of the Java Object Serialization
 * Specification (chapter 6) in time proportional to the stream's length, allocates nothing the
 * stream declares, and refuses a stream that
 *
 * <ul>
 *   <li>reaches more than {@link #MAX_UNFOLDED_OBJECTS} objects counted that way,
 *   <li>declares an array, a string or a block of data longer than what is left of the stream,
 *   <li>names a proxy class (the allowlist never allows one), carries an exception written in place
 *       of an object, or externalizable data without block framing (protocol 1),
 *   <li>does not follow the grammar: truncated, a reference to no handle, an unknown type code.
 * </ul>
 *
 * <p>A class whose {@code writeObject} writes optional data before calling {@code
 * defaultWriteObject} (which the specification forbids) cannot be followed and is refused. A
 * reference to an object still being read (a cycle) counts one object: hashing a cycle fails with a
 * {@link StackOverflowError}, quickly, rather than running long. Stateless and thread-safe.
 */
final class JdkGraphBounds {
  /** The most objects a stream may reach, each counted as often as it is referenced. */
  static final long MAX_UNFOLDED_OBJECTS = 10_000_000;

  /**
   * The deepest the walk recurses, counting objects and class descriptors: a value the filter's
   * depth limit (64 objects) lets through, with its classes' superclass chains, stays well below.
   */
  private static final int MAX_NESTING = 256;

  private static final int TC_NULL = 0x70;
  private static final int TC_REFERENCE = 0x71;
  private static final int TC_CLASSDESC = 0x72;
  private static final int TC_OBJECT = 0x73;
  private static final int TC_STRING = 0x74;
  private static final int TC_ARRAY = 0x75;
  private static final int TC_CLASS = 0x76;
  private static final int TC_BLOCKDATA = 0x77;
  private static final int TC_ENDBLOCKDATA = 0x78;
  private static final int TC_RESET = 0x79;
  private static final int TC_BLOCKDATALONG = 0x7A;
  private static final int TC_EXCEPTION = 0x7B;
  private static final int TC_LONGSTRING = 0x7C;
  private static final int TC_PROXYCLASSDESC = 0x7D;
  private static final int TC_ENUM = 0x7E;
  private static final int BASE_HANDLE = 0x7E0000;
  private static final int SC_WRITE_METHOD = 0x01;
  private static final int SC_SERIALIZABLE = 0x02;
  private static final int SC_EXTERNALIZABLE = 0x04;
  private static final int SC_BLOCK_DATA = 0x08;

  private JdkGraphBounds() {}

  /**
   * Why the stream in {@code length} bytes of {@code data} at {@code offset} must not be read, or
   * {@code null} if the object it starts with is within the bounds. Bytes after that object are not
   * looked at, as {@code readObject} does not read them.
   */
  static @Nullable String problem(byte[] data, int offset, int length) {
    Walk walk = new Walk(data, offset, offset + length);
    try {
      walk.stream();
      return null;
    } catch (Refused e) {
      return e.getMessage();
    }
  }

  /** Ends a walk; carries no stack trace. */
  private static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Refused(String message) {
      super(message, null, false, false);
    }
  }

  /** A class descriptor: enough of it to follow the data of its objects. */
  @SuppressWarnings("ArrayRecordComponent") // never compared: a record for its accessors only
  private record ClassDesc(
      String name, int flags, char[] fieldTypes, @Nullable ClassDesc superDesc) {}

  /** What a handle names: a class descriptor, or something with a weight (-1 while it is read). */
  private static final class Handle {
    final @Nullable ClassDesc desc;
    long weight;

    Handle(@Nullable ClassDesc desc, long weight) {
      this.desc = desc;
      this.weight = weight;
    }
  }

  private static final class Walk {
    private final byte[] data;
    private final int start;
    private final int end;
    private int pos;
    private int nesting;
    private final List<Handle> handles = new ArrayList<>();

    Walk(byte[] data, int start, int end) {
      this.data = data;
      this.start = start;
      this.end = end;
      this.pos = start;
    }

    void stream() {
      if (u2() != 0xACED) {
        throw refuse("it does not start with the serialization magic ac ed");
      }
      int version = u2();
      if (version != 5) {
        throw refuse("serialization version " + version + ", not 5");
      }
      int tc = u1();
      while (tc == TC_RESET) {
        handles.clear();
        tc = u1();
      }
      if (tc == TC_BLOCKDATA || tc == TC_BLOCKDATALONG || tc == TC_ENDBLOCKDATA) {
        throw refuse("it starts with block data, not an object");
      }
      object(tc);
    }

    /** Reads the object whose type code {@code tc} was just read; returns its weight. */
    private long object(int tc) {
      if (++nesting > MAX_NESTING) {
        throw refuse("it nests deeper than " + MAX_NESTING);
      }
      try {
        return switch (tc) {
          case TC_NULL -> 0;
          case TC_REFERENCE -> {
            Handle handle = handle();
            yield handle.desc != null || handle.weight < 0 ? 1 : handle.weight;
          }
          case TC_OBJECT -> newObject();
          case TC_STRING -> newString(u2());
          case TC_LONGSTRING -> newString(s8());
          case TC_ARRAY -> newArray();
          case TC_CLASS -> {
            classDesc();
            handles.add(new Handle(null, 1));
            yield 1;
          }
          case TC_ENUM -> {
            classDesc();
            handles.add(new Handle(null, 1));
            int name = u1();
            if (name != TC_STRING && name != TC_LONGSTRING && name != TC_REFERENCE) {
              throw refuse(
                  "an enum constant's name at byte " + (pos - 1 - start) + " is not a string");
            }
            object(name);
            yield 1;
          }
          case TC_CLASSDESC, TC_PROXYCLASSDESC -> {
            classDescAfter(tc);
            yield 1;
          }
          case TC_EXCEPTION ->
              throw refuse("it holds an exception that was thrown while it was written");
          case TC_RESET -> throw refuse("a reset inside an object, at byte " + (pos - 1 - start));
          default ->
              throw refuse(
                  "unknown type code 0x"
                      + Integer.toHexString(tc)
                      + " at byte "
                      + (pos - 1 - start));
        };
      } finally {
        nesting--;
      }
    }

    private long newString(long length) {
      handles.add(new Handle(null, 1));
      skip(length, "a string");
      return 1;
    }

    private long newArray() {
      ClassDesc desc = classDesc();
      if (desc == null || desc.name().length() < 2 || desc.name().charAt(0) != '[') {
        throw refuse("an array at byte " + (pos - start) + " names no array class");
      }
      Handle handle = new Handle(null, -1);
      handles.add(handle);
      int size = s4();
      char element = desc.name().charAt(1);
      int elementSize = primitiveSize(element);
      long left = (long) end - pos;
      if (size < 0 || (long) size * Math.max(1, elementSize) > left) {
        throw refuse(
            "an array of "
                + size
                + " elements ("
                + desc.name()
                + ") at byte "
                + (pos - 4 - start)
                + ", but "
                + left
                + " bytes are left");
      }
      long weight = 1;
      if (elementSize > 0) {
        skip((long) size * elementSize, "an array");
      } else if (element == 'L' || element == '[') {
        for (int i = 0; i < size; i++) {
          weight = add(weight, object(u1()));
        }
      } else {
        throw refuse("an array of unknown element type '" + element + "'");
      }
      handle.weight = weight;
      return weight;
    }

    private long newObject() {
      ClassDesc desc = classDesc();
      if (desc == null) {
        throw refuse("an object at byte " + (pos - start) + " has no class");
      }
      Handle handle = new Handle(null, -1);
      handles.add(handle);
      List<ClassDesc> layout = new ArrayList<>();
      for (ClassDesc c = desc; c != null; c = c.superDesc()) {
        layout.add(0, c);
      }
      long weight = 1;
      for (ClassDesc c : layout) {
        int flags = c.flags();
        if ((flags & SC_EXTERNALIZABLE) != 0) {
          if ((flags & SC_BLOCK_DATA) == 0) {
            throw refuse(
                "class " + c.name() + " is externalizable data without block framing (protocol 1)");
          }
          weight = add(weight, annotation());
        } else if ((flags & SC_SERIALIZABLE) != 0) {
          for (char type : c.fieldTypes()) {
            int size = primitiveSize(type);
            if (size > 0) {
              skip(size, "a field of " + c.name());
            } else {
              weight = add(weight, object(u1()));
            }
          }
          if ((flags & SC_WRITE_METHOD) != 0) {
            weight = add(weight, annotation());
          }
        }
      }
      handle.weight = weight;
      return weight;
    }

    /** Objects and block data up to the end-of-block marker; the weight of the objects. */
    private long annotation() {
      long weight = 0;
      for (int tc = u1(); tc != TC_ENDBLOCKDATA; tc = u1()) {
        if (tc == TC_BLOCKDATA) {
          skip(u1(), "a block of data");
        } else if (tc == TC_BLOCKDATALONG) {
          skip(s4(), "a block of data");
        } else {
          weight = add(weight, object(tc));
        }
      }
      return weight;
    }

    /** A class descriptor where one is expected: new, null, or a reference to one. */
    private @Nullable ClassDesc classDesc() {
      int tc = u1();
      return switch (tc) {
        case TC_NULL -> null;
        case TC_REFERENCE -> {
          Handle handle = handle();
          if (handle.desc == null) {
            throw refuse("a reference at byte " + (pos - 5 - start) + " names no class descriptor");
          }
          yield handle.desc;
        }
        case TC_CLASSDESC, TC_PROXYCLASSDESC -> classDescAfter(tc);
        default ->
            throw refuse(
                "a class descriptor was expected at byte "
                    + (pos - 1 - start)
                    + ", not type code 0x"
                    + Integer.toHexString(tc));
      };
    }

    private ClassDesc classDescAfter(int tc) {
      if (tc == TC_PROXYCLASSDESC) {
        throw refuse("it names a proxy class, which the allowlist never allows");
      }
      if (++nesting > MAX_NESTING) {
        throw refuse("it nests deeper than " + MAX_NESTING);
      }
      try {
        String name = utf();
        skip(8, "a serialVersionUID");
        int index = handles.size();
        handles.add(new Handle(null, 1));
        int flags = u1();
        int count = u2();
        if (count > end - pos) {
          throw refuse(
              "class "
                  + name
                  + " declares "
                  + count
                  + " fields, but "
                  + (end - pos)
                  + " bytes are left");
        }
        char[] types = new char[count];
        for (int i = 0; i < count; i++) {
          types[i] = (char) u1();
          utf();
          if (types[i] == 'L' || types[i] == '[') {
            int typeName = u1();
            if (typeName != TC_STRING && typeName != TC_LONGSTRING && typeName != TC_REFERENCE) {
              throw refuse("a field type of class " + name + " is not a string");
            }
            object(typeName);
          } else if (primitiveSize(types[i]) == 0) {
            throw refuse("class " + name + " has a field of unknown type code '" + types[i] + "'");
          }
        }
        annotation();
        ClassDesc superDesc = classDesc();
        ClassDesc desc = new ClassDesc(name, flags, types, superDesc);
        handles.set(index, new Handle(desc, 1));
        return desc;
      } finally {
        nesting--;
      }
    }

    private Handle handle() {
      int wire = s4();
      int index = wire - BASE_HANDLE;
      if (index < 0 || index >= handles.size()) {
        throw refuse(
            "a reference at byte "
                + (pos - 5 - start)
                + " to handle 0x"
                + Integer.toHexString(wire)
                + ", which names nothing");
      }
      return handles.get(index);
    }

    private static int primitiveSize(char type) {
      return switch (type) {
        case 'B', 'Z' -> 1;
        case 'C', 'S' -> 2;
        case 'I', 'F' -> 4;
        case 'J', 'D' -> 8;
        default -> 0;
      };
    }

    private static long add(long weight, long more) {
      long sum = weight + more;
      if (sum > MAX_UNFOLDED_OBJECTS || sum < 0) {
        throw new Refused(
            "it reaches more than "
                + MAX_UNFOLDED_OBJECTS
                + " objects when every shared object is counted each time it is referenced");
      }
      return sum;
    }

    private String utf() {
      int length = u2();
      int from = pos;
      skip(length, "a name");
      return new String(data, from, length, StandardCharsets.ISO_8859_1);
    }

    private void skip(long count, String what) {
      if (count < 0 || count > end - pos) {
        throw refuse(
            what
                + " at byte "
                + (pos - start)
                + " declares "
                + count
                + " bytes, but "
                + (end - pos)
                + " are left");
      }
      pos += (int) count;
    }

    private int u1() {
      if (pos >= end) {
        throw refuse("it ends at byte " + (pos - start) + ", in the middle of an object");
      }
      return data[pos++] & 0xFF;
    }

    private int u2() {
      return u1() << 8 | u1();
    }

    private int s4() {
      return u2() << 16 | u2();
    }

    private long s8() {
      return (long) s4() << 32 | (s4() & 0xFFFF_FFFFL);
    }

    private Refused refuse(String reason) {
      return new Refused(reason);
    }
  }
}
