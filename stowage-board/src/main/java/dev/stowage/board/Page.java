package dev.stowage.board;

import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A page of posts as stowage mode serves it: the posts' JSON fragments, newest first, and the
 * response bodies made from them, each made on first use and then kept, so that a page the feed
 * keeps in the process (its near cache) is spliced or transcoded once, not for every reader.
 * Immutable in effect and thread-safe: a body may be made twice by racing readers, never
 * differently.
 */
public final class Page {
  private final List<byte[]> fragments;
  private volatile byte @Nullable [] httpJson;
  private volatile byte @Nullable [] httpMsgpack;
  private volatile byte @Nullable [] dataJson;
  private volatile byte @Nullable [] dataMsgpack;

  /** A page of these fragments, which must not change afterwards. */
  public Page(List<byte[]> fragments) {
    this.fragments = List.copyOf(Objects.requireNonNull(fragments, "fragments"));
  }

  /** The posts' JSON fragments, newest first. */
  public List<byte[]> fragments() {
    return fragments;
  }

  /** The number of posts. */
  public int size() {
    return fragments.size();
  }

  /** The HTTP API's JSON body: {@code {"code":200,"message":"success","data":[…]}}. */
  public byte[] httpJson() {
    byte[] body = httpJson;
    if (body == null) {
      httpJson = body = BoardFormats.splicePage(fragments);
    }
    return body;
  }

  /** The HTTP API's MessagePack body, the same map as {@link #httpJson()}. */
  public byte[] httpMsgpack(BoardFormats formats) {
    byte[] body = httpMsgpack;
    if (body == null) {
      httpMsgpack = body = formats.transcodePage(fragments);
    }
    return body;
  }

  /** The posts alone as one JSON array, as the TCP protocol answers a page. */
  public byte[] dataJson() {
    byte[] body = dataJson;
    if (body == null) {
      int length = 2 + Math.max(0, fragments.size() - 1);
      for (byte[] fragment : fragments) {
        length += fragment.length;
      }
      body = new byte[length];
      int at = 0;
      body[at++] = '[';
      for (int i = 0; i < fragments.size(); i++) {
        if (i > 0) {
          body[at++] = ',';
        }
        System.arraycopy(fragments.get(i), 0, body, at, fragments.get(i).length);
        at += fragments.get(i).length;
      }
      body[at] = ']';
      dataJson = body;
    }
    return body;
  }

  /** The posts alone as one MessagePack array, as the TCP protocol answers a page. */
  public byte[] dataMsgpack(BoardFormats formats) {
    byte[] body = dataMsgpack;
    if (body == null) {
      ByteArrayOutputStream out = new ByteArrayOutputStream(fragments.size() * 512 + 8);
      formats.transcodeData(fragments, true, out);
      dataMsgpack = body = out.toByteArray();
    }
    return body;
  }
}
