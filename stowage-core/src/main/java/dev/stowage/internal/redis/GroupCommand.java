package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import io.lettuce.core.protocol.RedisCommand;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The command a bulk operation sends over one group of its keys (consecutive keys, or on a cluster
 * keys of one slot), given by the indexes of the keys, in its two forms: built but not sent, for
 * {@link MasterBatch} to write with the rest of its chunk to the master that serves the slot; and
 * sent through the shared connection, which routes it by its key and follows redirections. {@code
 * replied} takes the reply of either, once per command that Redis answered.
 *
 * @param built the command over a group, not yet sent; {@code null} for a command that must go
 *     through its own connection, such as a read of a near cache's, which tracks what it reads
 * @param shared sends the command over a group through the shared connection, untranslated
 * @param replied what to do with the reply to the command over a group; runs on the thread that
 *     completes the command, often a connection's I/O thread, so it only stores or counts
 * @param <T> the type of the reply
 */
record GroupCommand<T>(
    @Nullable Function<int[], RedisCommand<byte[], byte[], T>> built,
    Function<int[], CompletableFuture<T>> shared,
    BiConsumer<int[], T> replied) {
  GroupCommand {
    requireNonNull(shared, "shared");
    requireNonNull(replied, "replied");
  }

  /**
   * Whether the command can be written to a master in a batch: whether it can be {@link #built}.
   */
  boolean batchable() {
    return built != null;
  }

  /** Sends the command over {@code group} through the shared connection and takes its reply. */
  CompletableFuture<Void> sendShared(int[] group) {
    CompletableFuture<T> sent;
    try {
      sent = shared.apply(group);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return sent.thenAccept(reply -> replied.accept(group, reply));
  }
}
