package dev.stowage;

import dev.stowage.internal.format.Schemas;

/**
 * A value names, in its envelope's schema field, a writer schema that is neither known in this
 * process nor stored in Redis, so it cannot be read safely.
 */
public class SchemaNotFoundException extends StowageException {
  private static final long serialVersionUID = 1L;
  private final int fingerprint;

  public SchemaNotFoundException(int fingerprint) {
    super("schema " + Schemas.hex(fingerprint) + " was not found");
    this.fingerprint = fingerprint;
  }

  /** The fingerprint the value's envelope names. */
  public int fingerprint() {
    return fingerprint;
  }
}
