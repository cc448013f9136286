package dev.stowage.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.internal.connection.RedisErrors;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.protocol.Command;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class BuiltCommandsUnitTests {
  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /** What the command puts on the wire. */
  private static String wire(Command<byte[], byte[], ?> command) {
    ByteBuf buffer = Unpooled.buffer();
    try {
      command.encode(buffer);
      return buffer.toString(StandardCharsets.UTF_8);
    } finally {
      buffer.release();
    }
  }

  @Test
  void msetPairsEachKeyWithItsValueAndRoutesByTheFirstKey() {
    byte[][] keys = {utf8("{a}:1"), utf8("{a}:2")};
    Command<byte[], byte[], String> mset =
        BuiltCommands.mset(keys, new byte[][] {utf8("one"), utf8("two")});

    assertThat(wire(mset))
        .isEqualTo("*5\r\n$4\r\nMSET\r\n$5\r\n{a}:1\r\n$3\r\none\r\n$5\r\n{a}:2\r\n$3\r\ntwo\r\n");
    assertThat(SlotHash.getSlot(mset.getArgs().getFirstEncodedKey()))
        .isEqualTo(SlotHash.getSlot(keys[1]));
    assertThatThrownBy(() -> BuiltCommands.mset(keys, new byte[][] {utf8("one")}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("MSET needs a value per key: 2 keys, 1 values");
  }

  @Test
  void readsDeletesAndScriptsCarryTheirKeysInOrder() {
    byte[][] keys = {utf8("k1"), utf8("k2")};

    assertThat(wire(BuiltCommands.mget(keys)))
        .isEqualTo("*3\r\n$4\r\nMGET\r\n$2\r\nk1\r\n$2\r\nk2\r\n");
    assertThat(wire(BuiltCommands.del(keys)))
        .isEqualTo("*3\r\n$3\r\nDEL\r\n$2\r\nk1\r\n$2\r\nk2\r\n");
    assertThat(wire(BuiltCommands.unlink(keys)))
        .isEqualTo("*3\r\n$6\r\nUNLINK\r\n$2\r\nk1\r\n$2\r\nk2\r\n");
    assertThat(
            wire(BuiltCommands.evalshaInteger("abc", keys, new byte[][] {utf8("v1"), utf8("60")})))
        .isEqualTo(
            "*7\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n2\r\n$2\r\nk1\r\n$2\r\nk2\r\n$2\r\nv1\r\n$2\r\n60\r\n");
  }

  @Test
  void onlyRedirectionsAndTryAgainSendACommandElsewhere() {
    assertThat(
            RedisErrors.isRedirection(
                new RedisCommandExecutionException("MOVED 3999 127.0.0.1:6381")))
        .isTrue();
    assertThat(
            RedisErrors.isRedirection(
                new CompletionException(
                    new RedisCommandExecutionException("ASK 3999 127.0.0.1:6381"))))
        .isTrue();
    assertThat(
            RedisErrors.isRedirection(
                new RedisCommandExecutionException(
                    "TRYAGAIN Multiple keys request during rehashing of slot")))
        .isTrue();
    assertThat(
            RedisErrors.isRedirection(
                new RedisCommandExecutionException("CLUSTERDOWN The cluster is down")))
        .isFalse();
    assertThat(
            RedisErrors.isRedirection(
                new RedisCommandExecutionException("ERR MOVED is not a command")))
        .isFalse();
    assertThat(RedisErrors.isRedirection(new RedisCommandTimeoutException("MOVED"))).isFalse();
  }
}
