package dev.stowage.samples;

import static java.util.Objects.requireNonNull;

import dev.stowage.samples.avro.Player;
import dev.stowage.samples.avro.Size;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts the sample records to and from their Avro form (the classes in {@code
 * dev.stowage.samples.avro}, generated at build time from {@code src/main/avro}).
 *
 * <p>Text fields are unions with null. Dates travel as UTC epoch seconds, so anything finer than a
 * second is dropped; the sample records never have any. Converting there and back gives an equal
 * record.
 */
public final class AvroForms {
  private AvroForms() {}

  /** The Avro form of a board record. */
  public static dev.stowage.samples.avro.BoardRecord toAvro(BoardRecord r) {
    return new dev.stowage.samples.avro.BoardRecord(
        r.id(),
        r.score(),
        r.memberId(),
        r.title(),
        r.body(),
        r.address(),
        r.country(),
        r.job(),
        r.credit(),
        r.ssn(),
        r.company(),
        r.phoneNumber(),
        FormDates.toEpochSecond(r.modifiedAt()),
        FormDates.toEpochSecond(r.createdAt()),
        r.createdTs());
  }

  /** The board record an Avro record holds. */
  public static BoardRecord fromAvro(dev.stowage.samples.avro.BoardRecord a) {
    return new BoardRecord(
        a.getId(),
        a.getScore(),
        a.getMemberId(),
        a.getTitle(),
        a.getBody(),
        a.getAddress(),
        a.getCountry(),
        a.getJob(),
        a.getCredit(),
        a.getSsn(),
        a.getCompany(),
        a.getPhoneNumber(),
        FormDates.fromEpochSecond(a.getModifiedAt()),
        FormDates.fromEpochSecond(a.getCreatedAt()),
        a.getCreatedTs());
  }

  /**
   * The Avro form of a media content.
   *
   * @throws NullPointerException if the media, its persons or the images are null: the Avro schema
   *     has no null for them
   */
  public static dev.stowage.samples.avro.MediaContent toAvro(MediaContent content) {
    Media m = requireNonNull(content.media(), "media");
    dev.stowage.samples.avro.Media media =
        new dev.stowage.samples.avro.Media(
            m.uri(),
            m.title(),
            m.width(),
            m.height(),
            m.format(),
            m.duration(),
            m.size(),
            m.bitrate(),
            m.hasBitrate(),
            new ArrayList<>(requireNonNull(m.persons(), "persons")),
            m.player() == Media.Player.FLASH ? Player.FLASH : Player.JAVA,
            m.copyright());
    List<Image> contentImages = requireNonNull(content.images(), "images");
    List<dev.stowage.samples.avro.Image> images = new ArrayList<>(contentImages.size());
    for (Image i : contentImages) {
      images.add(
          new dev.stowage.samples.avro.Image(
              i.uri(),
              i.title(),
              i.width(),
              i.height(),
              i.size() == Image.Size.LARGE ? Size.LARGE : Size.SMALL));
    }
    return new dev.stowage.samples.avro.MediaContent(media, images);
  }

  /** The media content an Avro record holds. */
  public static MediaContent fromAvro(dev.stowage.samples.avro.MediaContent a) {
    dev.stowage.samples.avro.Media m = a.getMedia();
    Media media =
        new Media(
            m.getUri(),
            m.getTitle(),
            m.getWidth(),
            m.getHeight(),
            m.getFormat(),
            m.getDuration(),
            m.getSize(),
            m.getBitrate(),
            m.getHasBitrate(),
            new ArrayList<>(m.getPersons()),
            m.getPlayer() == Player.FLASH ? Media.Player.FLASH : Media.Player.JAVA,
            m.getCopyright());
    List<Image> images = new ArrayList<>(a.getImages().size());
    for (dev.stowage.samples.avro.Image i : a.getImages()) {
      images.add(
          new Image(
              i.getUri(),
              i.getTitle(),
              i.getWidth(),
              i.getHeight(),
              i.getSize() == Size.LARGE ? Image.Size.LARGE : Image.Size.SMALL));
    }
    return new MediaContent(media, images);
  }
}
