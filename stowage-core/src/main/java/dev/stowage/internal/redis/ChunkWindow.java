package dev.stowage.internal.redis;

import dev.stowage.internal.Futures;
import dev.stowage.internal.connection.MasterAddress;
import dev.stowage.internal.connection.RedisErrors;
import dev.stowage.internal.connection.RedisSession;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Sends the chunks of a bulk operation with at most {@value #IN_FLIGHT} chunks in flight per lane:
 * a lane's next chunk is sent when one of its earlier ones completes. On one server there is one
 * lane; on a cluster, one per master ({@link SlotPlan}), so that every master stays busy and none
 * waits behind another's chunks, and each chunk goes to its master as one batch ({@link
 * MasterBatch}). Redis stays busy, since the next chunks are already on the wire, yet no command
 * waits behind more than a few chunks, so every command's timeout keeps its meaning however many
 * keys the operation has. The first failure fails the whole operation, and no chunk is sent after
 * it, in any lane.
 */
public final class ChunkWindow {
  /** Chunks in flight at once, per lane. */
  static final int IN_FLIGHT = 4;

  private final AtomicInteger finished = new AtomicInteger();
  private final int chunks;
  private final CompletableFuture<Void> done = new CompletableFuture<>();

  private ChunkWindow(List<Lane> lanes) {
    int total = 0;
    for (Lane lane : lanes) {
      total += lane.chunks;
    }
    this.chunks = total;
  }

  /** One lane's chunks and how to send them. */
  private record Lane(int chunks, IntFunction<CompletableFuture<?>> send, AtomicInteger next) {}

  /**
   * Sends chunks {@code 0} to {@code chunks - 1} through {@code send}, which dispatches one chunk
   * and returns the future of its commands, in one lane.
   */
  public static CompletableFuture<Void> run(int chunks, IntFunction<CompletableFuture<?>> send) {
    return start(List.of(new Lane(chunks, send, new AtomicInteger())));
  }

  /**
   * Sends the chunks of {@code plan}, a window per lane; each chunk is its groups' commands, sent
   * together. In a lane whose owner is a master ({@link MasterAddress}) a chunk of a {@linkplain
   * GroupCommand#batchable() batchable} command is written to that master's own connection in one
   * batch ({@link MasterBatch}); otherwise (one server, slots with no known master, or a command
   * that must use its own connection) each command goes through the shared connection. A group of
   * several keys that Redis answers with {@code TRYAGAIN} there (a slot being migrated holds some
   * of them and not the others) is sent again one command per key, which Redis redirects key by
   * key.
   */
  static <T> CompletableFuture<Void> run(
      SlotPlan plan, RedisSession session, GroupCommand<T> command) {
    List<Lane> lanes = new ArrayList<>(plan.lanes().size());
    for (int i = 0; i < plan.lanes().size(); i++) {
      List<SlotPlan.Chunk> chunks = plan.lanes().get(i);
      Object owner = plan.owners().get(i).orElse(null);
      IntFunction<CompletableFuture<?>> send =
          owner instanceof MasterAddress master && command.batchable()
              ? index -> MasterBatch.send(session, master, chunks.get(index), command)
              : index -> sendChunk(chunks.get(index), command);
      lanes.add(new Lane(chunks.size(), send, new AtomicInteger()));
    }
    return start(lanes);
  }

  private static CompletableFuture<?> sendChunk(SlotPlan.Chunk chunk, GroupCommand<?> command) {
    List<int[]> groups = chunk.groups();
    if (groups.size() == 1) {
      return sendGroup(groups.get(0), command);
    }
    CompletableFuture<?>[] sent = new CompletableFuture<?>[groups.size()];
    for (int i = 0; i < sent.length; i++) {
      sent[i] = sendGroup(groups.get(i), command);
    }
    return CompletableFuture.allOf(sent);
  }

  /**
   * Sends the command over {@code group} through the shared connection, and again key by key if
   * Redis answers a group of several keys with {@code TRYAGAIN}.
   */
  static CompletableFuture<Void> sendGroup(int[] group, GroupCommand<?> command) {
    CompletableFuture<Void> sent = command.sendShared(group);
    if (group.length == 1) {
      return sent;
    }
    return Futures.handleCompose(
        sent,
        (result, failure) -> {
          if (failure == null) {
            return CompletableFuture.<Void>completedFuture(null);
          }
          if (!RedisErrors.isTryAgain(failure)) {
            return CompletableFuture.<Void>failedFuture(failure);
          }
          CompletableFuture<?>[] each = new CompletableFuture<?>[group.length];
          for (int i = 0; i < group.length; i++) {
            each[i] = sendGroup(new int[] {group[i]}, command);
          }
          return CompletableFuture.allOf(each);
        });
  }

  private static CompletableFuture<Void> start(List<Lane> lanes) {
    ChunkWindow window = new ChunkWindow(lanes);
    if (window.chunks == 0) {
      window.done.complete(null);
    }
    for (Lane lane : lanes) {
      for (int i = 0; i < Math.min(IN_FLIGHT, lane.chunks); i++) {
        window.sendNext(lane);
      }
    }
    return window.done;
  }

  private void sendNext(Lane lane) {
    if (done.isDone()) {
      return;
    }
    int chunk = lane.next.getAndIncrement();
    if (chunk >= lane.chunks) {
      return;
    }
    CompletableFuture<?> sent;
    try {
      sent = lane.send.apply(chunk);
    } catch (RuntimeException | Error e) {
      done.completeExceptionally(e);
      return;
    }
    Futures.whenDone(
        sent,
        (result, error) -> {
          if (error != null) {
            done.completeExceptionally(error);
          } else if (finished.incrementAndGet() == chunks) {
            done.complete(null);
          } else {
            sendNext(lane);
          }
        });
  }
}
