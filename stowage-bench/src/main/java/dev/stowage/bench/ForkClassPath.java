package dev.stowage.bench;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * The class path for JMH's forked JVMs: only the jars this module needs, rather than everything on
 * the class path of the {@code stowage} command (which also carries the board service, Spring and
 * the drivers). A forked JVM that opens a hundred fewer jars starts about twice as fast, and the
 * default (thorough) run of {@code bench codecs} forks one JVM per configuration.
 *
 * <p>The build records this module's runtime dependencies by file name ({@code
 * dev/stowage/bench/fork-class-path.txt}). The forks get the entries of {@code java.class.path}
 * with those file names, plus this module's own jar or classes directory. When any dependency is
 * missing from {@code java.class.path} (under a test runner's manifest-only jar, for example), the
 * forks get the whole class path unchanged, which is always correct.
 *
 * <p>JMH reads {@code java.class.path} when it starts each fork, so {@link #run} sets it for the
 * duration of a run and restores it afterwards. Runs are serialized by a lock.
 */
public final class ForkClassPath {

  static final String RESOURCE = "/dev/stowage/bench/fork-class-path.txt";
  private static final String PROPERTY = "java.class.path";
  private static final Object LOCK = new Object();

  private ForkClassPath() {}

  /**
   * Runs {@code task} (which starts JMH) with {@code java.class.path} narrowed to {@link
   * #forForks()}, and restores the property afterwards.
   *
   * @throws Exception whatever {@code task} throws
   */
  public static <T> T run(Callable<T> task) throws Exception {
    Objects.requireNonNull(task, "task");
    synchronized (LOCK) {
      String original = System.getProperty(PROPERTY);
      System.setProperty(PROPERTY, forForks());
      try {
        return task.call();
      } finally {
        System.setProperty(PROPERTY, original);
      }
    }
  }

  /** The class path forked benchmark JVMs should get, from this JVM's {@code java.class.path}. */
  public static String forForks() {
    String classPath = System.getProperty(PROPERTY, "");
    return select(classPath, dependencyFileNames(), ownLocation()).orElse(classPath);
  }

  /**
   * The entries of {@code classPath} whose file names are in {@code dependencyFileNames}, plus the
   * entry for {@code ownLocation} (added at the front when the class path lacks it), in class path
   * order; empty if a dependency has no entry or the list of dependencies is empty.
   */
  static Optional<String> select(
      String classPath, Set<String> dependencyFileNames, Optional<Path> ownLocation) {
    if (dependencyFileNames.isEmpty() || ownLocation.isEmpty()) {
      return Optional.empty();
    }
    Path own = ownLocation.get().toAbsolutePath().normalize();
    List<String> selected = new ArrayList<>();
    Set<String> found = new LinkedHashSet<>();
    boolean ownFound = false;
    for (String entry : classPath.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path path = Path.of(entry);
      Path fileName = path.getFileName();
      if (path.toAbsolutePath().normalize().equals(own)) {
        selected.add(entry);
        ownFound = true;
      } else if (fileName != null && dependencyFileNames.contains(fileName.toString())) {
        selected.add(entry);
        found.add(fileName.toString());
      }
    }
    if (!found.containsAll(dependencyFileNames)) {
      return Optional.empty();
    }
    if (!ownFound) {
      selected.add(0, own.toString());
    }
    return Optional.of(String.join(File.pathSeparator, selected));
  }

  /** The file names the build recorded, or none when the resource is missing (as in an IDE). */
  static Set<String> dependencyFileNames() {
    try (InputStream in = ForkClassPath.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return Set.of();
      }
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      Set<String> names = new LinkedHashSet<>();
      for (String entry : text.split("[:;\\s]+")) {
        if (!entry.isBlank()) {
          names.add(entry.substring(entry.lastIndexOf('/') + 1));
        }
      }
      return names;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  private static Optional<Path> ownLocation() {
    try {
      var source = ForkClassPath.class.getProtectionDomain().getCodeSource();
      return source == null ? Optional.empty() : Optional.of(Path.of(source.getLocation().toURI()));
    } catch (URISyntaxException | IllegalArgumentException | SecurityException e) {
      return Optional.empty();
    }
  }
}
