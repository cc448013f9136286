package dev.stowage.internal.redis;

import dev.stowage.internal.connection.RedisSession;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;

/**
 * Removes the keys a {@code SCAN} finds: on each master, one {@code SCAN} page at a time, then an
 * {@code UNLINK} of what it found (per slot on a cluster, a master's commands of a page written to
 * it as one batch; what a master redirects is sent again through the shared connection, which
 * follows a key that moved). On a cluster every master is scanned on its own connection, in
 * parallel; pages are handled on Lettuce's computation threads, not on a connection's I/O thread.
 */
final class ScanUnlink {
  private ScanUnlink() {}

  /** {@code text} with the characters that Redis's glob patterns give a meaning escaped. */
  static String globEscaped(String text) {
    StringBuilder escaped = new StringBuilder(text.length() + 8);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
        escaped.append('\\');
      }
      escaped.append(c);
    }
    return escaped.toString();
  }

  /**
   * Unlinks the keys {@code match} finds and {@code ours} accepts, answering how many; failures
   * translated as {@code what} names the operation.
   */
  static CompletableFuture<Long> run(
      RedisSession session, ScanArgs match, Predicate<byte[]> ours, int chunkSize, String what) {
    LongAdder removed = new LongAdder();
    CompletableFuture<Void> all;
    try {
      List<RedisSession.Node> masters = session.masters();
      CompletableFuture<?>[] each = new CompletableFuture<?>[masters.size()];
      for (int i = 0; i < each.length; i++) {
        RedisSession.Node master = masters.get(i);
        each[i] =
            master
                .commands()
                .thenComposeAsync(
                    commands ->
                        from(
                            session, commands, ScanCursor.INITIAL, match, ours, chunkSize, removed),
                    session.decodeExecutor());
      }
      all = CompletableFuture.allOf(each);
    } catch (RuntimeException e) {
      all = CompletableFuture.failedFuture(e);
    }
    return session.translated(all.thenApply(done -> removed.sum()), what);
  }

  /** One SCAN of a master from {@code cursor}, an UNLINK of what it found, then the next. */
  private static CompletableFuture<Void> from(
      RedisSession session,
      RedisClusterAsyncCommands<byte[], byte[]> master,
      ScanCursor cursor,
      ScanArgs match,
      Predicate<byte[]> ours,
      int chunkSize,
      LongAdder removed) {
    return session
        .<KeyScanCursor<byte[]>>dispatchOn(master, c -> c.scan(cursor, match))
        .thenComposeAsync(
            page -> {
              byte[][] keys = page.getKeys().stream().filter(ours).toArray(byte[][]::new);
              CompletableFuture<Void> unlinked =
                  ChunkWindow.run(
                      SlotPlan.of(session, keys, chunkSize),
                      session,
                      new GroupCommand<Long>(
                          group -> BuiltCommands.unlink(ChunkedWriter.select(keys, group)),
                          group -> {
                            byte[][] unlinking = ChunkedWriter.select(keys, group);
                            return session.dispatch(c -> c.unlink(unlinking));
                          },
                          (group, n) -> removed.add(n)));
              return page.isFinished()
                  ? unlinked
                  : unlinked.thenCompose(
                      done -> from(session, master, page, match, ours, chunkSize, removed));
            },
            session.decodeExecutor());
  }
}
