package dev.stowage.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.OffsetDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Describes the machine and JVM a benchmark ran on, for the {@code env} object of a {@link
 * ResultsDocument}. Absolute figures only mean something next to this description.
 *
 * <p>Keys: {@code java_version}, {@code java_vendor}, {@code java_vm}, {@code os}, {@code cores},
 * {@code max_heap_bytes}, {@code date} (ISO-8601 with offset), {@code git_commit} (when the working
 * directory is a git checkout), and {@code redis_version} (when the bench used Redis).
 */
public final class RunEnvironment {

  private RunEnvironment() {}

  /** The environment of this JVM, without Redis. */
  public static Map<String, Object> capture() {
    return capture(null, Clock.system(ZoneId.systemDefault()));
  }

  /**
   * The environment of this JVM.
   *
   * @param redisVersion the version of the Redis server the bench used, or {@code null} if none
   * @param clock the clock to date the run by
   */
  public static Map<String, Object> capture(@Nullable String redisVersion, Clock clock) {
    Objects.requireNonNull(clock, "clock");
    Map<String, Object> env = new LinkedHashMap<>();
    env.put("java_version", System.getProperty("java.version"));
    env.put("java_vendor", System.getProperty("java.vendor"));
    env.put(
        "java_vm",
        System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"));
    env.put(
        "os",
        System.getProperty("os.name")
            + " "
            + System.getProperty("os.version")
            + " "
            + System.getProperty("os.arch"));
    env.put("cores", Runtime.getRuntime().availableProcessors());
    env.put("max_heap_bytes", Runtime.getRuntime().maxMemory());
    env.put("date", OffsetDateTime.now(clock).format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
    gitCommit().ifPresent(commit -> env.put("git_commit", commit));
    if (redisVersion != null) {
      env.put("redis_version", redisVersion);
    }
    return env;
  }

  /**
   * The commit checked out in the working directory, with {@code "-dirty"} appended when files
   * differ from it; empty when git is missing or the directory is not a checkout.
   */
  static Optional<String> gitCommit() {
    Optional<String> head = runGit("rev-parse", "HEAD");
    if (head.isEmpty()) {
      return head;
    }
    Optional<String> status = runGit("status", "--porcelain", "--untracked-files=no");
    return Optional.of(head.get() + (status.map(String::isEmpty).orElse(true) ? "" : "-dirty"));
  }

  private static Optional<String> runGit(String... args) {
    String[] command = new String[args.length + 1];
    command[0] = "git";
    System.arraycopy(args, 0, command, 1, args.length);
    try {
      Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
      process.getOutputStream().close();
      byte[] out = process.getInputStream().readAllBytes();
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return Optional.empty();
      }
      return process.exitValue() == 0
          ? Optional.of(new String(out, StandardCharsets.UTF_8).trim())
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
