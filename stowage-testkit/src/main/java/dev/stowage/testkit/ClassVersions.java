package dev.stowage.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Constructor;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/**
 * Versions of the same classes side by side, for tests of what a reader makes of values another
 * version wrote: sources compiled at test time with the JDK's compiler, each version into its own
 * directory and loaded by its own class loader, so that a class named {@code evolve.Product} exists
 * once per version, with that version's fields.
 */
public final class ClassVersions {
  private ClassVersions() {}

  /**
   * Compiles {@code sources} (class name to Java source, all in package {@code evolve}) and loads
   * them in a class loader of their own, whose parent sees Jackson's annotations.
   */
  public static ClassLoader compile(Map<String, String> sources) {
    try {
      Path root = Files.createTempDirectory("stowage-class-versions");
      Path src = Files.createDirectories(root.resolve("src/evolve"));
      Path out = Files.createDirectories(root.resolve("classes"));
      List<String> args =
          new ArrayList<>(
              List.of(
                  "-d",
                  out.toString(),
                  "--release",
                  "17",
                  "-classpath",
                  System.getProperty("java.class.path")));
      for (Map.Entry<String, String> source : sources.entrySet()) {
        Path file = src.resolve(source.getKey() + ".java");
        Files.writeString(file, "package evolve;\n" + source.getValue());
        args.add(file.toString());
      }
      JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
      if (compiler == null) {
        throw new IllegalStateException(
            "these tests need a JDK, not a JRE: no system Java compiler");
      }
      int status = compiler.run(null, null, null, args.toArray(String[]::new));
      if (status != 0) {
        throw new IllegalStateException("the test sources did not compile: " + sources);
      }
      return new URLClassLoader(
          new URL[] {out.toUri().toURL()}, ClassVersions.class.getClassLoader());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The class {@code evolve.<name>} of one version. */
  public static Class<?> load(ClassLoader version, String name) {
    try {
      return Class.forName("evolve." + name, true, version);
    } catch (ClassNotFoundException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A new {@code evolve.<name>} of one version, made with its only constructor. */
  public static Object create(ClassLoader version, String name, Object... arguments) {
    try {
      Constructor<?> constructor = load(version, name).getDeclaredConstructors()[0];
      return constructor.newInstance(arguments);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }
}
