package dev.stowage.internal.codec;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;
import org.jspecify.annotations.Nullable;

/**
 * Avro's binary decoder, with every declared length checked against the bytes left before anything
 * is allocated. Avro allocates a string or bytes field of its declared length, and an array or map
 * of its declared block count, before it reads them: five bytes could ask for 2 GiB. Here a string
 * or bytes field may not declare more bytes than are left, and an array or map block not more items
 * than bytes are left (so an array of a zero-byte type, such as {@code null}, is refused). Not
 * thread-safe, like the decoder it wraps.
 */
final class AvroBoundedDecoder extends Decoder {
  // Set by wrap() before any read: the codec wraps each payload's decoder first.
  @SuppressWarnings("NullAway.Init")
  private BinaryDecoder in;

  /** Reads {@code in} from now on; the binary decoder must be over a byte array. */
  AvroBoundedDecoder wrap(BinaryDecoder in) {
    this.in = in;
    return this;
  }

  private long left() throws IOException {
    return in.inputStream().available();
  }

  private int checkLength(long length, String what) throws IOException {
    long left = left();
    if (length < 0 || length > left) {
      throw new AvroRuntimeException(
          what + " declares " + length + " bytes, but " + left + " are left");
    }
    return (int) length;
  }

  private long checkCount(long count, String what) throws IOException {
    long left = left();
    if (count > left) {
      throw new AvroRuntimeException(
          what + " declares " + count + " items, but " + left + " bytes are left");
    }
    return count;
  }

  @Override
  public Utf8 readString(@Nullable Utf8 old) throws IOException {
    int length = checkLength(in.readLong(), "a string");
    Utf8 result = old != null ? old : new Utf8();
    result.setByteLength(length);
    if (length != 0) {
      in.readFixed(result.getBytes(), 0, length);
    }
    return result;
  }

  @Override
  public String readString() throws IOException {
    return readString(null).toString();
  }

  @Override
  public ByteBuffer readBytes(ByteBuffer old) throws IOException {
    int length = checkLength(in.readLong(), "a bytes field");
    ByteBuffer result;
    if (old != null && length <= old.capacity()) {
      result = old;
      result.clear();
    } else {
      result = ByteBuffer.allocate(length);
    }
    in.readFixed(result.array(), result.position(), length);
    result.limit(length);
    return result;
  }

  @Override
  public long readArrayStart() throws IOException {
    return checkCount(in.readArrayStart(), "an array block");
  }

  @Override
  public long arrayNext() throws IOException {
    return checkCount(in.arrayNext(), "an array block");
  }

  @Override
  public long readMapStart() throws IOException {
    return checkCount(in.readMapStart(), "a map block");
  }

  @Override
  public long mapNext() throws IOException {
    return checkCount(in.mapNext(), "a map block");
  }

  @Override
  public void readNull() throws IOException {
    in.readNull();
  }

  @Override
  public boolean readBoolean() throws IOException {
    return in.readBoolean();
  }

  @Override
  public int readInt() throws IOException {
    return in.readInt();
  }

  @Override
  public long readLong() throws IOException {
    return in.readLong();
  }

  @Override
  public float readFloat() throws IOException {
    return in.readFloat();
  }

  @Override
  public double readDouble() throws IOException {
    return in.readDouble();
  }

  @Override
  public void skipString() throws IOException {
    in.skipString();
  }

  @Override
  public void skipBytes() throws IOException {
    in.skipBytes();
  }

  @Override
  public void readFixed(byte[] bytes, int start, int length) throws IOException {
    in.readFixed(bytes, start, length);
  }

  @Override
  public void skipFixed(int length) throws IOException {
    in.skipFixed(length);
  }

  @Override
  public int readEnum() throws IOException {
    return in.readEnum();
  }

  @Override
  public long skipArray() throws IOException {
    return in.skipArray();
  }

  @Override
  public long skipMap() throws IOException {
    return in.skipMap();
  }

  @Override
  public int readIndex() throws IOException {
    return in.readIndex();
  }
}
