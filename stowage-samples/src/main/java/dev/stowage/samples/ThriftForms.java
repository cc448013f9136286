package dev.stowage.samples;

import dev.stowage.samples.thrift.TBoardRecord;
import dev.stowage.samples.thrift.TImage;
import dev.stowage.samples.thrift.TMedia;
import dev.stowage.samples.thrift.TMediaContent;
import dev.stowage.samples.thrift.TPlayer;
import dev.stowage.samples.thrift.TSize;
import java.util.ArrayList;
import java.util.List;

/**
 * Converts the sample records to and from their Thrift form (the classes in {@code
 * dev.stowage.samples.thrift}, generated from {@code src/main/thrift/samples.thrift}).
 *
 * <p>{@code null} is an unset optional field. A media's bitrate is set only when {@link
 * Media#hasBitrate()}, and reads back as 0 otherwise. Dates travel as UTC epoch seconds, so
 * anything finer than a second is dropped; the sample records never have any. Converting there and
 * back gives an equal record, for every record {@link Samples} makes.
 */
public final class ThriftForms {
  private ThriftForms() {}

  /** The Thrift form of a board record. */
  public static TBoardRecord toThrift(BoardRecord r) {
    TBoardRecord t =
        new TBoardRecord()
            .setId(r.id())
            .setScore(r.score())
            .setMemberId(r.memberId())
            .setTitle(r.title())
            .setBody(r.body())
            .setAddress(r.address())
            .setCountry(r.country())
            .setJob(r.job())
            .setCredit(r.credit())
            .setSsn(r.ssn())
            .setCompany(r.company())
            .setPhoneNumber(r.phoneNumber())
            .setCreatedTs(r.createdTs());
    if (r.modifiedAt() != null) t.setModifiedAt(FormDates.epochSecond(r.modifiedAt()));
    if (r.createdAt() != null) t.setCreatedAt(FormDates.epochSecond(r.createdAt()));
    return t;
  }

  /** The board record a Thrift struct holds. */
  public static BoardRecord fromThrift(TBoardRecord t) {
    return new BoardRecord(
        t.getId(),
        t.getScore(),
        t.getMemberId(),
        t.getTitle(),
        t.getBody(),
        t.getAddress(),
        t.getCountry(),
        t.getJob(),
        t.getCredit(),
        t.getSsn(),
        t.getCompany(),
        t.getPhoneNumber(),
        t.isSetModifiedAt() ? FormDates.fromEpochSecond(t.getModifiedAt()) : null,
        t.isSetCreatedAt() ? FormDates.fromEpochSecond(t.getCreatedAt()) : null,
        t.getCreatedTs());
  }

  /** The Thrift form of a media content. */
  public static TMediaContent toThrift(MediaContent content) {
    TMediaContent t = new TMediaContent();
    Media m = content.media();
    if (m != null) {
      TMedia media =
          new TMedia()
              .setUri(m.uri())
              .setTitle(m.title())
              .setWidth(m.width())
              .setHeight(m.height())
              .setFormat(m.format())
              .setDuration(m.duration())
              .setSize(m.size())
              .setPersons(m.persons() == null ? null : new ArrayList<>(m.persons()))
              .setPlayer(
                  m.player() == null
                      ? null
                      : m.player() == Media.Player.FLASH ? TPlayer.FLASH : TPlayer.JAVA)
              .setCopyright(m.copyright());
      if (m.hasBitrate()) {
        media.setBitrate(m.bitrate());
      }
      t.setMedia(media);
    }
    if (content.images() != null) {
      List<TImage> images = new ArrayList<>(content.images().size());
      for (Image i : content.images()) {
        images.add(
            new TImage()
                .setUri(i.uri())
                .setTitle(i.title())
                .setWidth(i.width())
                .setHeight(i.height())
                .setSize(
                    i.size() == null
                        ? null
                        : i.size() == Image.Size.LARGE ? TSize.LARGE : TSize.SMALL));
      }
      t.setImages(images);
    }
    return t;
  }

  /** The media content a Thrift struct holds. */
  public static MediaContent fromThrift(TMediaContent t) {
    Media media = null;
    if (t.isSetMedia()) {
      TMedia m = t.getMedia();
      media =
          new Media(
              m.getUri(),
              m.getTitle(),
              m.getWidth(),
              m.getHeight(),
              m.getFormat(),
              m.getDuration(),
              m.getSize(),
              m.isSetBitrate() ? m.getBitrate() : 0,
              m.isSetBitrate(),
              m.isSetPersons() ? new ArrayList<>(m.getPersons()) : null,
              m.getPlayer() == null
                  ? null
                  : m.getPlayer() == TPlayer.FLASH ? Media.Player.FLASH : Media.Player.JAVA,
              m.getCopyright());
    }
    List<Image> images = null;
    if (t.isSetImages()) {
      images = new ArrayList<>(t.getImages().size());
      for (TImage i : t.getImages()) {
        images.add(
            new Image(
                i.getUri(),
                i.getTitle(),
                i.getWidth(),
                i.getHeight(),
                i.getSize() == null
                    ? null
                    : i.getSize() == TSize.LARGE ? Image.Size.LARGE : Image.Size.SMALL));
      }
    }
    return new MediaContent(media, images);
  }
}
