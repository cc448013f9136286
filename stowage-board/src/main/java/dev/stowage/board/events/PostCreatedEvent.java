package dev.stowage.board.events;

import dev.stowage.board.protocol.Board;
import java.nio.charset.StandardCharsets;

/**
 * The value of a post's event on the topic: UTF-8 JSON, one object, schema version {@value
 * #VERSION}.
 *
 * <pre>{@code
 * {"version":1,"type":"post-created","board":"board","id":"000000000000000000000042",
 *  "score":66,"post":{"id":"000000000000000000000042","score":66,"member_id":71642,...}}
 * }</pre>
 *
 * <p>{@code id} and {@code score} repeat the post's, so that a consumer deduplicates by {@code id}
 * and orders by {@code score} without reading {@code post}, which is the post exactly as {@code GET
 * /boards/{id}} returns it. A later version may add fields; a consumer ignores those it does not
 * know and reads {@code version} to tell a change that is not an addition.
 */
public final class PostCreatedEvent {
  /** The schema's version, in every event's {@code version} field. */
  public static final int VERSION = 1;

  /** The event's {@code type}. */
  public static final String TYPE = "post-created";

  private PostCreatedEvent() {}

  /**
   * The event of {@code post} on {@code board}.
   *
   * @param postJson the post's JSON object, as the API returns it
   */
  public static byte[] encode(String board, Board post, byte[] postJson) {
    // The id is 24 hexadecimal digits and the board a fixed name: nothing to escape.
    byte[] head =
        ("{\"version\":"
                + VERSION
                + ",\"type\":\""
                + TYPE
                + "\",\"board\":\""
                + board
                + "\",\"id\":\""
                + post.id()
                + "\",\"score\":"
                + post.score()
                + ",\"post\":")
            .getBytes(StandardCharsets.UTF_8);
    byte[] event = new byte[head.length + postJson.length + 1];
    System.arraycopy(head, 0, event, 0, head.length);
    System.arraycopy(postJson, 0, event, head.length, postJson.length);
    event[event.length - 1] = '}';
    return event;
  }
}
