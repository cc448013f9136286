package dev.stowage;

/**
 * An optional library that a codec or a compression needs is not on the classpath. The message
 * names the Maven coordinates to add.
 */
public class MissingLibraryException extends StowageException {
  private static final long serialVersionUID = 1L;

  public MissingLibraryException(String feature, String coordinates) {
    super(feature + " needs " + coordinates + " on the classpath; add it as a dependency");
  }
}
