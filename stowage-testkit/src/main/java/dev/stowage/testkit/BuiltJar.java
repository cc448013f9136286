package dev.stowage.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The jar that {@code package} built for the module under test, for integration tests that look
 * inside it. Found by the version the jar plugin recorded in {@code
 * target/maven-archiver/pom.properties}, so that a jar of an earlier version left in {@code
 * target/} (after a version change without {@code clean}) is never the one checked.
 */
public final class BuiltJar {
  private BuiltJar() {}

  /** {@code target/<artifactId>-<version>.jar}, failing when the build left no such jar. */
  public static Path of(String artifactId) {
    Path target = Path.of("target");
    Properties recorded = new Properties();
    Path properties = target.resolve("maven-archiver").resolve("pom.properties");
    try (InputStream in = Files.newInputStream(properties)) {
      recorded.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "no " + properties + ": the module's jar is built by 'package', before the ITs run", e);
    }
    String version = recorded.getProperty("version");
    if (version == null || !artifactId.equals(recorded.getProperty("artifactId"))) {
      throw new IllegalStateException(
          properties + " is not " + artifactId + "'s: " + recorded + " (run from its module)");
    }
    Path jar = target.resolve(artifactId + "-" + version + ".jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException("no " + jar + " although " + properties + " names it");
    }
    return jar;
  }
}
