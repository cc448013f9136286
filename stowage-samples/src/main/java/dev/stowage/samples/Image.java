package dev.stowage.samples;

import java.io.Serializable;
import org.jspecify.annotations.Nullable;

/**
 * A picture of a {@link MediaContent}.
 *
 * @param uri where it is
 * @param title its title, or {@code null}
 * @param width width in pixels
 * @param height height in pixels
 * @param size the size class
 */
public record Image(
    @Nullable String uri, @Nullable String title, int width, int height, @Nullable Size size)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A picture's size class. */
  public enum Size {
    SMALL,
    LARGE
  }
}
