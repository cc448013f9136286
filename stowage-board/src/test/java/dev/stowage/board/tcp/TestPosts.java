package dev.stowage.board.tcp;

import dev.stowage.board.protocol.NewBoard;
import java.util.ArrayList;
import java.util.List;

/** Posts shaped like the seed's, distinct per index. */
final class TestPosts {
  private TestPosts() {}

  static NewBoard post(int i) {
    return new NewBoard(
        70_000L + i,
        "Tcp title " + i,
        "Body of post " + i + ".\nService require network real somebody view.",
        i + " Michael Roads\nSmithfurt",
        "Papua New Guinea",
        "Product manager",
        "4716296968179136",
        "333-96-3366",
        "Diaz and Sons",
        "+1-610-354-4229x" + i);
  }

  static List<NewBoard> posts(int from, int count) {
    List<NewBoard> posts = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      posts.add(post(from + i));
    }
    return posts;
  }
}
