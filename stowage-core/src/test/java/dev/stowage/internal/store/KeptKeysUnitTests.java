package dev.stowage.internal.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.CacheUnavailableException;
import dev.stowage.StowageException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import java.io.IOException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** Which failed saves are tried again soon: those Redis may get over without anyone's help. */
class KeptKeysUnitTests {

  private static StowageException saveFailed(Throwable cause) {
    return new StowageException(
        "could not save zstd dictionary 1a2b3c4d to Redis: " + cause.getMessage(), cause);
  }

  @Test
  void repliesThatSayRedisCannotTakeTheWriteNowAreRetried() {
    for (String reply :
        new String[] {
          "LOADING Redis is loading the dataset in memory",
          "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.",
          "READONLY You can't write against a read only replica.",
          "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
          "CLUSTERDOWN The cluster is down",
          "TRYAGAIN Multiple keys request during rehashing of slot",
          "MOVED 3999 127.0.0.1:6381",
          "OOM command not allowed when used memory > 'maxmemory'.",
          "NOREPLICAS Not enough good replicas to write."
        }) {
      assertThat(KeptKeys.isRetryable(saveFailed(new RedisCommandExecutionException(reply))))
          .as(reply)
          .isTrue();
    }
  }

  @Test
  void lostConnectionsAndTimeoutsAreRetried() {
    assertThat(
            KeptKeys.isRetryable(
                saveFailed(new RedisCommandTimeoutException("Command timed out after 500 ms"))))
        .isTrue();
    assertThat(
            KeptKeys.isRetryable(
                new CompletionException(
                    saveFailed(
                        new RedisException("Currently not connected. Commands are rejected.")))))
        .isTrue();
    assertThat(KeptKeys.isRetryable(saveFailed(new RedisConnectionException("Unable to connect"))))
        .isTrue();
    assertThat(KeptKeys.isRetryable(saveFailed(new IOException("Connection reset by peer"))))
        .isTrue();
    assertThat(
            KeptKeys.isRetryable(
                new CacheUnavailableException("Redis at 127.0.0.1:1 has not been reached yet")))
        .isTrue();
  }

  @Test
  void refusalsAndOtherBytesUnderTheKeyAreNot() {
    assertThat(
            KeptKeys.isRetryable(
                saveFailed(
                    new RedisCommandExecutionException(
                        "NOPERM this user has no permissions to access one of the keys used as arguments"))))
        .isFalse();
    assertThat(
            KeptKeys.isRetryable(
                saveFailed(
                    new RedisCommandExecutionException(
                        "WRONGTYPE Operation against a key holding the wrong kind of value"))))
        .isFalse();
    assertThat(
            KeptKeys.isRetryable(
                new StowageException("stowage:dict:1a2b3c4d already holds 19 other bytes")))
        .isFalse();
  }
}
