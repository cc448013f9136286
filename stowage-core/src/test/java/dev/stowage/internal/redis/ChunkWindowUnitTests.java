package dev.stowage.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ChunkWindowUnitTests {

  @Test
  void sendsAtMostFourChunksBeforeOneCompletes() {
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    CompletableFuture<Void> done =
        ChunkWindow.run(
            10,
            index -> {
              CompletableFuture<Void> chunk = new CompletableFuture<>();
              sent.add(chunk);
              return chunk;
            });

    assertThat(sent).hasSize(ChunkWindow.IN_FLIGHT);
    sent.get(1).complete(null);
    assertThat(sent).hasSize(ChunkWindow.IN_FLIGHT + 1);
    for (int i = 0; i < 10; i++) {
      sent.get(i).complete(null);
    }
    assertThat(sent).hasSize(10);
    assertThat(done).isCompleted();
  }

  @Test
  void theFirstFailureFailsTheWholeAndStopsSending() {
    List<CompletableFuture<Void>> sent = new ArrayList<>();
    CompletableFuture<Void> done =
        ChunkWindow.run(
            10,
            index -> {
              CompletableFuture<Void> chunk = new CompletableFuture<>();
              sent.add(chunk);
              return chunk;
            });

    sent.get(0).completeExceptionally(new IllegalStateException("chunk 0"));
    sent.get(1).complete(null);

    assertThat(sent).hasSize(ChunkWindow.IN_FLIGHT);
    assertThatThrownBy(done::join)
        .isInstanceOf(CompletionException.class)
        .hasRootCauseMessage("chunk 0");
  }

  @Test
  void noChunksIsDoneAtOnceAndAThrowingSenderFails() {
    assertThat(
            ChunkWindow.run(
                0,
                index -> {
                  throw new AssertionError("nothing to send");
                }))
        .isCompleted();
    CompletableFuture<Void> failed =
        ChunkWindow.run(
            3,
            index -> {
              throw new IllegalArgumentException("bad chunk " + index);
            });
    assertThatThrownBy(failed::join).hasRootCauseMessage("bad chunk 0");
  }
}
