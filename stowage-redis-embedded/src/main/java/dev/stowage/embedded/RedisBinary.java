package dev.stowage.embedded;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Finds a {@code redis-server} executable: the system property {@value #PROPERTY} if set, else the
 * first one on the {@code PATH}, else the binary shipped inside the {@code
 * com.github.codemonstur:embedded-redis} artifact, extracted once per JVM. Public for its {@link
 * #PROPERTY}; {@link RedisServer#binary()} names the executable a server runs.
 */
public final class RedisBinary {
  /** Overrides the binary: a path, or {@code embedded} to force the artifact's binary. */
  public static final String PROPERTY = "stowage.redis.binary";

  private static volatile @Nullable Path extracted;

  private RedisBinary() {}

  static Path locate() {
    String override = System.getProperty(PROPERTY);
    if (override != null && !override.isBlank()) {
      if (override.equals("embedded")) {
        return embedded();
      }
      Path path = Path.of(override);
      if (!Files.isExecutable(path)) {
        throw new IllegalStateException(
            "-D" + PROPERTY + "=" + override + " does not name an executable redis-server");
      }
      return path;
    }
    Path onPath = onPath("redis-server");
    return onPath != null ? onPath : embedded();
  }

  /**
   * The first regular, executable file named {@code name} in a directory of the {@code PATH}, or
   * null when there is none (or no {@code PATH}). The testkit finds PostgreSQL's programs with it.
   */
  public static @Nullable Path onPath(String name) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate;
      }
    }
    return null;
  }

  private static synchronized Path embedded() {
    if (extracted != null && Files.isExecutable(extracted)) {
      return extracted;
    }
    String resource = resourceName();
    try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "no redis-server on the PATH, and "
                + resource
                + " is not on the classpath: add"
                + " com.github.codemonstur:embedded-redis or install redis-server");
      }
      Path dir = Files.createTempDirectory("stowage-redis-bin");
      Path binary = dir.resolve("redis-server");
      Files.copy(in, binary, StandardCopyOption.REPLACE_EXISTING);
      if (!binary.toFile().setExecutable(true, true)) {
        throw new IllegalStateException("cannot make " + binary + " executable");
      }
      binary.toFile().deleteOnExit();
      dir.toFile().deleteOnExit();
      extracted = binary;
      return binary;
    } catch (IOException e) {
      throw new IllegalStateException("cannot extract the embedded redis-server: " + e, e);
    }
  }

  private static String resourceName() {
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    boolean arm = arch.contains("aarch64") || arch.contains("arm64");
    if (os.contains("linux")) {
      return arm ? "redis-server-6.2.7-linux-arm64" : "redis-server-6.2.6-v5-linux-amd64";
    }
    if (os.contains("mac")) {
      return arm ? "redis-server-6.2.6-v5-darwin-arm64" : "redis-server-6.2.6-v5-darwin-amd64";
    }
    throw new IllegalStateException(
        "no embedded redis-server for " + os + "/" + arch + "; install redis-server on the PATH");
  }
}
