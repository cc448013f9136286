package dev.stowage.internal.store;

import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.embedded.RedisServer;
import dev.stowage.internal.connection.RedisSession;
import dev.stowage.testkit.WithRedis;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import org.junit.jupiter.api.Test;

/** The pass that saves every kept key again stops with the kept keys. */
@WithRedis
class KeptKeysIntegrationTests {

  @Test
  void closingCancelsTheNextVerifyPass(RedisServer redis) {
    try (RedisSession session =
        RedisSession.open(RedisURI.create(redis.uri()), Duration.ofSeconds(2))) {
      KeptKeys kept =
          new KeptKeys(
              session, new DictionaryStore(session.shared()), new SchemaStore(session::shared));
      ScheduledFuture<?> next = requireNonNull(kept.nextVerify(), "the next verify pass");
      assertThat(next.isDone()).isFalse();

      kept.close();

      assertThat(next.isCancelled()).isTrue();
    }
  }
}
