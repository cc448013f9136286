package dev.stowage.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GlobUnitTests {
  @Test
  void redisGlobPatternsMatchTheKeysText() {
    assertThat(JdkKeysCommand.Glob.matches("B-*", "B-12")).isTrue();
    assertThat(JdkKeysCommand.Glob.matches("B-*", "U-1")).isFalse();
    assertThat(JdkKeysCommand.Glob.matches("*", "")).isTrue();
    assertThat(JdkKeysCommand.Glob.matches("?-[0-9]", "B-7")).isTrue();
    assertThat(JdkKeysCommand.Glob.matches("?-[^0-9]", "B-7")).isFalse();
    assertThat(JdkKeysCommand.Glob.matches("a\\*", "a*")).isTrue();
    assertThat(JdkKeysCommand.Glob.matches("a\\*", "ab")).isFalse();
    assertThat(JdkKeysCommand.Glob.matches("*:x", "a:b:x")).isTrue();
    assertThat(JdkKeysCommand.Glob.matches("[ab]c", "bc")).isTrue();
  }
}
