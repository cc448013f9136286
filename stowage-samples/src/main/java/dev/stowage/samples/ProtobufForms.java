package dev.stowage.samples;

import dev.stowage.samples.protobuf.Image.Size;
import dev.stowage.samples.protobuf.Media.Player;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts the sample records to and from their Protocol Buffers form (the generated classes in
 * {@code dev.stowage.samples.protobuf}, from {@code src/main/proto/samples.proto}).
 *
 * <p>{@code null} text is an unset field and comes back {@code null}. Dates travel as UTC epoch
 * seconds, so anything finer than a second is dropped; the sample records never have any.
 * Converting there and back gives an equal record.
 */
public final class ProtobufForms {
  private ProtobufForms() {}

  /** The Protobuf form of a board record. */
  public static dev.stowage.samples.protobuf.BoardRecord toProtobuf(BoardRecord record) {
    dev.stowage.samples.protobuf.BoardRecord.Builder b =
        dev.stowage.samples.protobuf.BoardRecord.newBuilder()
            .setScore(record.score())
            .setMemberId(record.memberId())
            .setCreatedTs(record.createdTs());
    if (record.id() != null) b.setId(record.id());
    if (record.title() != null) b.setTitle(record.title());
    if (record.body() != null) b.setBody(record.body());
    if (record.address() != null) b.setAddress(record.address());
    if (record.country() != null) b.setCountry(record.country());
    if (record.job() != null) b.setJob(record.job());
    if (record.credit() != null) b.setCredit(record.credit());
    if (record.ssn() != null) b.setSsn(record.ssn());
    if (record.company() != null) b.setCompany(record.company());
    if (record.phoneNumber() != null) b.setPhoneNumber(record.phoneNumber());
    if (record.modifiedAt() != null) b.setModifiedAt(FormDates.epochSecond(record.modifiedAt()));
    if (record.createdAt() != null) b.setCreatedAt(FormDates.epochSecond(record.createdAt()));
    return b.build();
  }

  /** The board record a Protobuf message holds. */
  public static BoardRecord fromProtobuf(dev.stowage.samples.protobuf.BoardRecord m) {
    return new BoardRecord(
        m.hasId() ? m.getId() : null,
        m.getScore(),
        m.getMemberId(),
        m.hasTitle() ? m.getTitle() : null,
        m.hasBody() ? m.getBody() : null,
        m.hasAddress() ? m.getAddress() : null,
        m.hasCountry() ? m.getCountry() : null,
        m.hasJob() ? m.getJob() : null,
        m.hasCredit() ? m.getCredit() : null,
        m.hasSsn() ? m.getSsn() : null,
        m.hasCompany() ? m.getCompany() : null,
        m.hasPhoneNumber() ? m.getPhoneNumber() : null,
        m.hasModifiedAt() ? FormDates.fromEpochSecond(m.getModifiedAt()) : null,
        m.hasCreatedAt() ? FormDates.fromEpochSecond(m.getCreatedAt()) : null,
        m.getCreatedTs());
  }

  /** The Protobuf form of a media content. */
  public static dev.stowage.samples.protobuf.MediaContent toProtobuf(MediaContent content) {
    dev.stowage.samples.protobuf.MediaContent.Builder b =
        dev.stowage.samples.protobuf.MediaContent.newBuilder();
    if (content.media() != null) {
      b.setMedia(toProtobuf(content.media()));
    }
    if (content.images() != null) {
      for (Image image : content.images()) {
        b.addImages(toProtobuf(image));
      }
    }
    return b.build();
  }

  /**
   * The media content a Protobuf message holds. An empty image list comes back empty, never null.
   */
  public static MediaContent fromProtobuf(dev.stowage.samples.protobuf.MediaContent m) {
    List<Image> images = new ArrayList<>(m.getImagesCount());
    for (dev.stowage.samples.protobuf.Image image : m.getImagesList()) {
      images.add(fromProtobuf(image));
    }
    return new MediaContent(m.hasMedia() ? fromProtobuf(m.getMedia()) : null, images);
  }

  private static dev.stowage.samples.protobuf.Media toProtobuf(Media media) {
    dev.stowage.samples.protobuf.Media.Builder b =
        dev.stowage.samples.protobuf.Media.newBuilder()
            .setWidth(media.width())
            .setHeight(media.height())
            .setDuration(media.duration())
            .setSize(media.size())
            .setBitrate(media.bitrate())
            .setHasBitrate(media.hasBitrate())
            .setPlayer(media.player() == Media.Player.FLASH ? Player.FLASH : Player.JAVA);
    if (media.uri() != null) b.setUri(media.uri());
    if (media.title() != null) b.setTitle(media.title());
    if (media.format() != null) b.setFormat(media.format());
    if (media.persons() != null) b.addAllPersons(media.persons());
    if (media.copyright() != null) b.setCopyright(media.copyright());
    return b.build();
  }

  private static Media fromProtobuf(dev.stowage.samples.protobuf.Media m) {
    return new Media(
        m.hasUri() ? m.getUri() : null,
        m.hasTitle() ? m.getTitle() : null,
        m.getWidth(),
        m.getHeight(),
        m.hasFormat() ? m.getFormat() : null,
        m.getDuration(),
        m.getSize(),
        m.getBitrate(),
        m.getHasBitrate(),
        new ArrayList<>(m.getPersonsList()),
        m.getPlayer() == Player.FLASH ? Media.Player.FLASH : Media.Player.JAVA,
        m.hasCopyright() ? m.getCopyright() : null);
  }

  private static dev.stowage.samples.protobuf.Image toProtobuf(Image image) {
    dev.stowage.samples.protobuf.Image.Builder b =
        dev.stowage.samples.protobuf.Image.newBuilder()
            .setWidth(image.width())
            .setHeight(image.height())
            .setSize(image.size() == Image.Size.LARGE ? Size.LARGE : Size.SMALL);
    if (image.uri() != null) b.setUri(image.uri());
    if (image.title() != null) b.setTitle(image.title());
    return b.build();
  }

  private static Image fromProtobuf(dev.stowage.samples.protobuf.Image m) {
    return new Image(
        m.hasUri() ? m.getUri() : null,
        m.hasTitle() ? m.getTitle() : null,
        m.getWidth(),
        m.getHeight(),
        m.getSize() == Size.LARGE ? Image.Size.LARGE : Image.Size.SMALL);
  }
}
