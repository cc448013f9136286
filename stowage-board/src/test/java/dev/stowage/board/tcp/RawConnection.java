package dev.stowage.board.tcp;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** A plain socket that speaks the protocol byte by byte, to send what no client would. */
final class RawConnection implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;

  RawConnection(int port, Duration readTimeout) throws IOException {
    this(port, readTimeout, "127.0.0.1");
  }

  /**
   * Connects from {@code localAddress}, another loopback address such as {@code 127.0.0.2}, to
   * stand for another client machine.
   */
  RawConnection(int port, Duration readTimeout, String localAddress) throws IOException {
    socket = new Socket("127.0.0.1", port, InetAddress.getByName(localAddress), 0);
    socket.setSoTimeout((int) readTimeout.toMillis());
    socket.setTcpNoDelay(true);
    in = new DataInputStream(socket.getInputStream());
  }

  Socket socket() {
    return socket;
  }

  void send(byte[] bytes) throws IOException {
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
  }

  /** Sends a frame of {@code type}, {@code id} and {@code body}. */
  void sendFrame(int type, int id, byte[] body) throws IOException {
    send(frame(type, id, body));
  }

  static byte[] frame(int type, int id, byte[] body) {
    return ByteBuffer.allocate(9 + body.length)
        .putInt(5 + body.length)
        .put((byte) type)
        .putInt(id)
        .put(body)
        .array();
  }

  /** The next whole frame, length field included. */
  byte[] readFrame() throws IOException {
    int length = in.readInt();
    byte[] frame = new byte[4 + length];
    ByteBuffer.wrap(frame).putInt(length);
    in.readFully(frame, 4, length);
    return frame;
  }

  /** Whether the server closed the connection: the next read sees the end of the stream. */
  boolean endsNow() throws IOException {
    try {
      return in.read() == -1;
    } catch (SocketException e) {
      return e.getMessage() != null && e.getMessage().contains("reset");
    }
  }

  /**
   * Whether the server has closed the connection by now (bytes or the end of the stream are
   * waiting), without blocking.
   */
  boolean closedByServer() {
    try {
      socket.setSoTimeout(1);
      return in.read() != -2;
    } catch (SocketTimeoutException e) {
      return false;
    } catch (IOException e) {
      return true;
    }
  }

  /** Everything until the server closes the connection. */
  byte[] readToEnd() throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    InputStream stream = in;
    try {
      for (int n; (n = stream.read(buffer)) != -1; ) {
        all.write(buffer, 0, n);
      }
    } catch (EOFException | SocketException e) {
      // reset after the last bytes: what was read is the answer
    }
    return all.toByteArray();
  }

  /** The CLOSING or ERROR frame {@code code} with {@code message}, for request {@code id}. */
  static byte[] codeFrame(int type, int id, int code, String message) {
    byte[] text = message.getBytes(StandardCharsets.UTF_8);
    return ByteBuffer.allocate(11 + text.length)
        .putInt(7 + text.length)
        .put((byte) type)
        .putInt(id)
        .putShort((short) code)
        .put(text)
        .array();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
