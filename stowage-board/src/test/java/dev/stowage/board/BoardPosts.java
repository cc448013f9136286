package dev.stowage.board;

import java.util.LinkedHashMap;
import java.util.Map;

/** Request bodies shaped like the seed's posts, distinct per index. */
final class BoardPosts {
  private BoardPosts() {}

  static Map<String, Object> post(int i) {
    Map<String, Object> post = new LinkedHashMap<>();
    post.put("member_id", 60_000L + i);
    post.put("title", "Title number " + i);
    post.put("body", "These religious theory thousand company girl long environment " + i
        + ".\nService require network real somebody view. Sing woman five by.");
    post.put("address", i + " Michael Roads Apt. 058\nSmithfurt, CT 85072");
    post.put("country", "Papua New Guinea");
    post.put("job", "Product manager");
    post.put("credit", "4716296968179136");
    post.put("ssn", "333-96-3366");
    post.put("company", "Diaz and Sons");
    post.put("phone_number", "+1-610-354-4229x" + i);
    return post;
  }
}
