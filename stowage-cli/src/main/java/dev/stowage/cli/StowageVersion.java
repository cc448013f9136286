package dev.stowage.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * The version for {@code stowage --version}: the artifact version Maven recorded in the jar, and
 * the JVM. Public so that subcommands from other modules ({@link SubcommandProvider}) can name it
 * too.
 */
public final class StowageVersion implements IVersionProvider {

  /** Made by picocli for {@code versionProvider}, here and in the modules that add subcommands. */
  public StowageVersion() {}

  private static final String POM_PROPERTIES =
      "/META-INF/maven/dev.stowage/stowage-cli/pom.properties";

  @Override
  public String[] getVersion() {
    return new String[] {
      "stowage " + artifactVersion(),
      "java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")"
    };
  }

  /** The version from the jar's Maven metadata, or {@code "(development build)"} outside a jar. */
  static String artifactVersion() {
    try (InputStream in = StowageVersion.class.getResourceAsStream(POM_PROPERTIES)) {
      if (in == null) {
        return "(development build)";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "(development build)");
    } catch (IOException e) {
      return "(development build)";
    }
  }
}
