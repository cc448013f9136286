package dev.stowage.cli.inspect;

/**
 * Whether to colour output: only when the process talks to a terminal ({@code System.console()}
 * is not null) and {@code NO_COLOR} is unset. Captured or piped output never gets escape codes.
 */
public final class Terminal {
  private final boolean colour;

  private Terminal(boolean colour) {
    this.colour = colour;
  }

  /** The terminal of this process. */
  public static Terminal detect() {
    String noColor = System.getenv("NO_COLOR");
    return new Terminal(System.console() != null && (noColor == null || noColor.isEmpty()));
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
