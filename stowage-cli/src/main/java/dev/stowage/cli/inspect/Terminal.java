package dev.stowage.cli.inspect;

import java.io.Console;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Whether standard output and standard error are a terminal, and so whether to colour output and
 * draw progress with {@code \r}. Captured, piped or redirected output never gets escape codes, and
 * {@code NO_COLOR} (set and not empty) turns colour off even on a terminal.
 *
 * <p>How a stream is judged, first answer wins:
 *
 * <ol>
 *   <li>on Linux, the device behind {@code /proc/self/fd/N}: a terminal is {@code /dev/pts/*},
 *       {@code /dev/tty*} or {@code /dev/console}; a file, a pipe or {@code /dev/null} is not. This
 *       is the only check that tells standard error apart from standard output;
 *   <li>otherwise the JVM's console: {@code System.console().isTerminal()} on JDK 22 and later,
 *       where {@code System.console()} is not null even when output is redirected (the method is
 *       called reflectively, as this program is compiled for JDK 17), and {@code System.console()
 *       != null} on JDK 17 to 21.
 * </ol>
 */
public final class Terminal {
  private static final int STDOUT = 1;
  private static final int STDERR = 2;
  private final boolean colour;

  private Terminal(boolean colour) {
    this.colour = colour;
  }

  /**
   * The terminal of this process's standard output: colour when it is a terminal and {@code
   * NO_COLOR} is unset.
   */
  public static Terminal detect() {
    return new Terminal(colour(stdoutIsTerminal(), System.getenv("NO_COLOR")));
  }

  /** Whether this process's standard output is a terminal. */
  public static boolean stdoutIsTerminal() {
    return isTerminal(STDOUT);
  }

  /**
   * Whether this process's standard error is a terminal: where progress may be redrawn with {@code
   * \r}.
   */
  public static boolean stderrIsTerminal() {
    return isTerminal(STDERR);
  }

  @SuppressWarnings(
      "SystemConsoleNull") // JDK 17 to 21 return null without a terminal; on 22+, consoleIsTerminal
  // decides
  private static boolean isTerminal(int fd) {
    Console console = System.console();
    return decide(device(fd), console != null, console == null ? null : consoleIsTerminal(console));
  }

  /**
   * The decision, given what could be found out.
   *
   * @param device whether the stream's device is a terminal, or null when that cannot be told (no
   *     {@code /proc})
   * @param consolePresent whether {@code System.console()} is not null
   * @param consoleIsTerminal what {@code Console.isTerminal()} answered, or null on a JDK without
   *     the method (17 to 21)
   */
  static boolean decide(
      @Nullable Boolean device, boolean consolePresent, @Nullable Boolean consoleIsTerminal) {
    if (device != null) {
      return device;
    }
    return consolePresent && (consoleIsTerminal == null || consoleIsTerminal);
  }

  /** Whether to colour: on a terminal, unless {@code NO_COLOR} is set to a non-empty value. */
  static boolean colour(boolean terminal, String noColor) {
    return terminal && (noColor == null || noColor.isEmpty());
  }

  /**
   * Whether the target of a {@code /proc/self/fd/N} link is a terminal device, or null when there
   * is no such link to read.
   */
  static @Nullable Boolean device(int fd) {
    Path link = Path.of("/proc/self/fd/" + fd);
    try {
      return isTerminalDevice(Files.readSymbolicLink(link).toString());
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return null;
    }
  }

  /**
   * Whether a device path names a terminal: {@code /dev/pts/*}, {@code /dev/tty*} or {@code
   * /dev/console}.
   */
  static boolean isTerminalDevice(String target) {
    return target.startsWith("/dev/pts/")
        || target.startsWith("/dev/tty")
        || target.equals("/dev/console");
  }

  /** {@code console.isTerminal()} on JDK 22 and later; null where the method does not exist. */
  private static @Nullable Boolean consoleIsTerminal(Console console) {
    Method method;
    try {
      method = Console.class.getMethod("isTerminal");
    } catch (NoSuchMethodException e) {
      return null;
    }
    try {
      return (Boolean) method.invoke(console);
    } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
      return null;
    }
  }

  /** Whether escape codes are written. */
  public boolean colour() {
    return colour;
  }

  String bold(String text) {
    return wrap("1", text);
  }

  String dim(String text) {
    return wrap("2", text);
  }

  String warn(String text) {
    return wrap("33", text);
  }

  String error(String text) {
    return wrap("31", text);
  }

  private String wrap(String code, String text) {
    return colour ? "\u001b[" + code + "m" + text + "\u001b[0m" : text;
  }
}
