package dev.stowage.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisOptionUnitTests {

  @Test
  void aFailureToConnectNamesEveryMessageOfItsCauseChainOnce() {
    RuntimeException reply = new RuntimeException("ERR DB index is out of range");
    RuntimeException failure =
        new RuntimeException(
            "Unable to connect to 127.0.0.1:40123",
            new IllegalStateException("Unable to connect to 127.0.0.1:40123", reply));

    assertThat(RedisOption.causeChain(failure))
        .isEqualTo("Unable to connect to 127.0.0.1:40123: ERR DB index is out of range");
    assertThat(RedisOption.causeChain(new IllegalStateException()))
        .isEqualTo("java.lang.IllegalStateException");
  }
}
