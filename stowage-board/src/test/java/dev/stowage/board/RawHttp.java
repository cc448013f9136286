package dev.stowage.board;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/** An HTTP/1.1 connection on a plain socket, to send what no client would, and when. */
public final class RawHttp implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;

  public RawHttp(int port, Duration readTimeout) throws IOException {
    this(port, readTimeout, "127.0.0.1");
  }

  /**
   * Connects from {@code localAddress}, another loopback address such as {@code 127.0.0.2}, to
   * stand for another client machine.
   */
  public RawHttp(int port, Duration readTimeout, String localAddress) throws IOException {
    socket = new Socket("127.0.0.1", port, InetAddress.getByName(localAddress), 0);
    socket.setSoTimeout((int) readTimeout.toMillis());
    socket.setTcpNoDelay(true);
    in = new DataInputStream(socket.getInputStream());
  }

  public void send(String text) throws IOException {
    send(text.getBytes(StandardCharsets.UTF_8));
  }

  public void send(byte[] bytes) throws IOException {
    socket.getOutputStream().write(bytes);
    socket.getOutputStream().flush();
  }

  /** {@code GET path} on this connection, kept alive. */
  public void get(String path) throws IOException {
    send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n");
  }

  /** A response: its status, its headers (names in lower case) and its body. */
  @SuppressWarnings("ArrayRecordComponent") // never compared: a response as read
  public record Response(int status, Map<String, String> headers, byte[] body) {
    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }
  }

  /** The next response, read to the end of its body (by its content-length). */
  public Response readResponse() throws IOException {
    Response head = readResponseHead();
    byte[] body = new byte[Integer.parseInt(head.headers().getOrDefault("content-length", "0"))];
    in.readFully(body);
    return new Response(head.status(), head.headers(), body);
  }

  /** The status line and headers of the next response, with an empty body (a HEAD's answer). */
  public Response readResponseHead() throws IOException {
    String statusLine = readLine();
    Map<String, String> headers = new LinkedHashMap<>();
    for (String line = readLine(); !line.isEmpty(); line = readLine()) {
      int colon = line.indexOf(':');
      headers.put(
          line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          line.substring(colon + 1).trim());
    }
    return new Response(Integer.parseInt(statusLine.split(" ")[1]), headers, new byte[0]);
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b; (b = in.read()) != '\n'; ) {
      if (b == -1) {
        throw new EOFException("the server closed the connection; read so far: " + line);
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  /** Whether bytes from the server wait to be read, without blocking. */
  public boolean hasInput() throws IOException {
    return in.available() > 0;
  }

  /** Whether the server has closed the connection: the next read sees the end of the stream. */
  public boolean endsNow() throws IOException {
    try {
      return in.read() == -1;
    } catch (SocketException e) {
      return e.getMessage() != null && e.getMessage().contains("reset");
    }
  }

  /** {@code POST path} of a JSON body on this connection, kept alive. */
  public void postJson(String path, byte[] json) throws IOException {
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes(
        ("POST "
                + path
                + " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Type: application/json\r\nContent-Length: "
                + json.length
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    request.writeBytes(json);
    send(request.toByteArray());
  }

  /** Everything until the server closes the connection. */
  public byte[] readToEnd() throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    try {
      for (int n; (n = in.read(buffer)) != -1; ) {
        all.write(buffer, 0, n);
      }
    } catch (SocketException e) {
      // reset after the last bytes: what was read is the answer
    }
    return all.toByteArray();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
