package dev.stowage.cli.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TerminalUnitTests {

  @Test
  void theStreamsDeviceDecidesWhenItIsKnown() {
    // Linux: /proc/self/fd/N names the device, whatever the JVM's console says
    assertThat(Terminal.decide(true, false, null)).isTrue();
    assertThat(Terminal.decide(false, true, true)).isFalse();
    assertThat(Terminal.decide(false, true, null)).isFalse();
  }

  @Test
  void withoutADeviceTheConsoleDecides() {
    // JDK 17 to 21: a console exists only on a terminal, and has no isTerminal()
    assertThat(Terminal.decide(null, false, null)).isFalse();
    assertThat(Terminal.decide(null, true, null)).isTrue();
    // JDK 22 to 24: the console exists even when output is redirected; isTerminal() tells
    assertThat(Terminal.decide(null, true, false)).isFalse();
    assertThat(Terminal.decide(null, true, true)).isTrue();
  }

  @Test
  void noColorTurnsColourOffOnlyWhenSetAndNotEmpty() {
    assertThat(Terminal.colour(true, null)).isTrue();
    assertThat(Terminal.colour(true, "")).isTrue();
    assertThat(Terminal.colour(true, "1")).isFalse();
    assertThat(Terminal.colour(true, "0")).isFalse();
    assertThat(Terminal.colour(false, null)).isFalse();
  }

  @Test
  void terminalDevicesAreTerminalsAndFilesAndPipesAreNot() {
    assertThat(Terminal.isTerminalDevice("/dev/pts/3")).isTrue();
    assertThat(Terminal.isTerminalDevice("/dev/tty1")).isTrue();
    assertThat(Terminal.isTerminalDevice("/dev/ttyS0")).isTrue();
    assertThat(Terminal.isTerminalDevice("/dev/console")).isTrue();
    assertThat(Terminal.isTerminalDevice("pipe:[123456]")).isFalse();
    assertThat(Terminal.isTerminalDevice("/tmp/out.msgpack")).isFalse();
    assertThat(Terminal.isTerminalDevice("/dev/null")).isFalse();
    assertThat(Terminal.isTerminalDevice("socket:[98765]")).isFalse();
  }
}
