package dev.stowage.samples;

import java.io.Serializable;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The media-content object of the jvm-serializers benchmark: one {@link Media} with the {@link
 * Image}s that go with it. Every codec comparison since 2009 has used this shape, so T3 measures it
 * beside the board record.
 *
 * @param media the video
 * @param images its pictures, usually two
 */
public record MediaContent(@Nullable Media media, @Nullable List<Image> images)
    implements Serializable {
  private static final long serialVersionUID = 1L;

  /**
   * The classes a media content holds besides itself, in a fixed order: what a codec that needs
   * registration (Kryo, Fory) or an allowlist (JDK) must be given.
   */
  public static List<Class<?>> nestedTypes() {
    return List.of(Media.class, Media.Player.class, Image.class, Image.Size.class);
  }
}
