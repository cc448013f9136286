package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.Futures;
import dev.stowage.internal.connection.MasterAddress;
import dev.stowage.internal.connection.RedisErrors;
import dev.stowage.internal.connection.RedisSession;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.RedisCommand;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Writes the commands of one chunk of a bulk operation on a Redis Cluster to the master that serves
 * their slots, all at once on that master's own connection: one write and one flush for the chunk,
 * where the shared cluster connection would flush once per command (per slot).
 *
 * <p>A master's own connection follows no redirection. A command that the master answers with
 * {@code MOVED} or {@code ASK} (its slot moved, or is moving, since the plan was made) or {@code
 * TRYAGAIN} (its slot is mid-migration and holds some of its keys), is sent again through the
 * shared connection, which follows redirections and refreshes the topology; there a group that
 * Redis still answers with {@code TRYAGAIN} is sent key by key ({@link ChunkWindow}). A script the
 * master does not know yet ({@code NOSCRIPT}) is sent again the same way, which loads it. Every
 * other failure fails the chunk as it is.
 */
final class MasterBatch {
  private MasterBatch() {}

  /**
   * Sends the commands of {@code chunk}'s groups to {@code master} in one write; the future
   * completes once every command was answered and its reply taken, or fails with the first failure
   * (untranslated).
   */
  static <T> CompletableFuture<Void> send(
      RedisSession session, MasterAddress master, SlotPlan.Chunk chunk, GroupCommand<T> command) {
    CompletableFuture<StatefulRedisConnection<byte[], byte[]>> connection;
    try {
      connection = session.masterConnection(master.host(), master.port());
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return connection.thenCompose(node -> write(node, chunk, command));
  }

  private static <T> CompletableFuture<Void> write(
      StatefulRedisConnection<byte[], byte[]> node, SlotPlan.Chunk chunk, GroupCommand<T> command) {
    List<int[]> groups = chunk.groups();
    if (groups.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    Function<int[], RedisCommand<byte[], byte[], T>> build =
        requireNonNull(command.built(), "built");
    List<AsyncCommand<byte[], byte[], T>> built = new ArrayList<>(groups.size());
    for (int[] group : groups) {
      built.add(new AsyncCommand<>(build.apply(group)));
    }
    CompletableFuture<Void> done = new CompletableFuture<>();
    AtomicInteger unanswered = new AtomicInteger(groups.size());
    for (int i = 0; i < groups.size(); i++) {
      int[] group = groups.get(i);
      Futures.whenDone(
          built.get(i),
          (reply, failure) -> {
            if (failure == null) {
              try {
                command.replied().accept(group, reply);
              } catch (RuntimeException e) {
                done.completeExceptionally(e);
                return;
              }
              answered(unanswered, done);
            } else if (RedisErrors.isRedirection(failure)
                || failure instanceof RedisNoScriptException) {
              Futures.whenDone(
                  ChunkWindow.sendGroup(group, command),
                  (resent, again) -> {
                    if (again != null) {
                      done.completeExceptionally(again);
                    } else {
                      answered(unanswered, done);
                    }
                  });
            } else {
              done.completeExceptionally(failure);
            }
          });
    }
    try {
      node.dispatch(built);
    } catch (RuntimeException e) {
      done.completeExceptionally(e);
    }
    return done;
  }

  private static void answered(AtomicInteger unanswered, CompletableFuture<Void> done) {
    if (unanswered.decrementAndGet() == 0) {
      done.complete(null);
    }
  }
}
