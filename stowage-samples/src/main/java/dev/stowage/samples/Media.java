package dev.stowage.samples;

import java.io.Serializable;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The video of a {@link MediaContent}.
 *
 * @param uri where it is
 * @param title its title, or {@code null}
 * @param width width in pixels
 * @param height height in pixels
 * @param format a MIME type
 * @param duration length in milliseconds
 * @param size size in bytes
 * @param bitrate bits per second, meaningful only when {@code hasBitrate}
 * @param hasBitrate whether the bitrate is known
 * @param persons the people in it
 * @param player the player it needs
 * @param copyright the copyright notice, or {@code null}
 */
public record Media(
    @Nullable String uri,
    @Nullable String title,
    int width,
    int height,
    @Nullable String format,
    long duration,
    long size,
    int bitrate,
    boolean hasBitrate,
    @Nullable List<String> persons,
    @Nullable Player player,
    @Nullable String copyright)
    implements Serializable {

  private static final long serialVersionUID = 1L;

  /** The player a video needs. */
  public enum Player {
    JAVA,
    FLASH
  }
}
