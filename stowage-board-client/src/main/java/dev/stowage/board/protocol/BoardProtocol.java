package dev.stowage.board.protocol;

/**
 * The wire constants of the board protocol, specified byte by byte in {@code docs/PROTOCOL.md}.
 *
 * <p>Every frame, in both directions, is:
 *
 * <pre>
 * u32 big-endian  length: the number of bytes that follow (type + request id + body), at least 5
 * u8              type: an operation (client to server) or a reply kind (server to client)
 * u32 big-endian  request id, chosen by the client; a reply carries its request's id
 * ...             body, length - 5 bytes
 * </pre>
 *
 * <p>Request bodies and successful reply bodies are Stowage envelopes ({@code docs/ENVELOPE.md})
 * with codec {@link #CODEC_JSON} or {@link #CODEC_MSGPACK} and no compression; a reply uses the
 * codec of its request. Error bodies are a {@code u16} code and a UTF-8 message.
 */
public final class BoardProtocol {
  /** Bytes of the length field. */
  public static final int LENGTH_BYTES = 4;

  /** Bytes after the length field that every frame has: the type and the request id. */
  public static final int FRAME_HEADER_BYTES = 5;

  /** Request: create one post; body: an enveloped post object. Reply: the stored post. */
  public static final int OP_CREATE = 0x01;

  /** Request: create 1 to 1,000 posts at once; body: an enveloped array of posts. */
  public static final int OP_CREATE_ALL = 0x02;

  /** Request: a page, newest first; body: an enveloped array {@code [page, size]}. */
  public static final int OP_PAGE = 0x03;

  /** Request: one post by id; body: an enveloped string. Unknown ids get error 404. */
  public static final int OP_GET = 0x04;

  /** Request: liveness; empty body. Reply: OK with an empty body. */
  public static final int OP_PING = 0x05;

  /** Reply: the request succeeded; the body is an envelope in the request's codec (or empty). */
  public static final int REPLY_OK = 0x80;

  /** Reply: the request failed; body {@code u16 code, UTF-8 message}. The connection stays open. */
  public static final int REPLY_ERROR = 0x81;

  /**
   * The server is closing the connection; body {@code u16 code, UTF-8 message}. Its request id is
   * that of the offending frame when there is one, else 0. Nothing follows it.
   */
  public static final int REPLY_CLOSING = 0x82;

  /** Envelope codec id of JSON request and reply bodies. */
  public static final int CODEC_JSON = 1;

  /** Envelope codec id of MessagePack request and reply bodies (what the Java client sends). */
  public static final int CODEC_MSGPACK = 2;

  /** Error code: the request is malformed (body, envelope, page or size); as HTTP's 400. */
  public static final int ERROR_BAD_REQUEST = 400;

  /** Error code: no post has the requested id; as HTTP's 404. */
  public static final int ERROR_NOT_FOUND = 404;

  /** Error code: the server failed; as HTTP's 500. */
  public static final int ERROR_INTERNAL = 500;

  /**
   * Closing code: no request for the idle timeout, or the connection was idle the longest when the
   * server, full, made room for a new one. Nothing was in flight, and no request that arrives after
   * it is run: the client may send it again on a new connection.
   */
  public static final int CLOSE_IDLE = 1001;

  /**
   * Closing code: a frame was started and then no byte came for the read timeout, or it was not
   * complete within the frame timeout.
   */
  public static final int CLOSE_READ_TIMEOUT = 1002;

  /** Closing code: a frame's length exceeds the server's maximum frame size. */
  public static final int CLOSE_FRAME_TOO_LARGE = 1003;

  /** Closing code: a frame's length is below 5, so it cannot hold a type and a request id. */
  public static final int CLOSE_MALFORMED_FRAME = 1004;

  /** Closing code: the client ended its side of the connection in the middle of a frame. */
  public static final int CLOSE_TRUNCATED_FRAME = 1005;

  /** Closing code: the frame's type is no operation. */
  public static final int CLOSE_UNKNOWN_OPERATION = 1006;

  /** Closing code: a TLS handshake arrived on the plain port. */
  public static final int CLOSE_TLS_ON_PLAIN_PORT = 1007;

  /**
   * Closing code: the server already holds its maximum number of connections from the client's
   * address, or in all with none of them idle.
   */
  public static final int CLOSE_TOO_MANY_CONNECTIONS = 1008;

  private BoardProtocol() {}
}
