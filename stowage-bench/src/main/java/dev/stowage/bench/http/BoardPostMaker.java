package dev.stowage.bench.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Random;
import net.datafaker.Faker;

/**
 * Makes request bodies for {@code POST /boards} and {@code POST /boards/bulk}: posts with the
 * seed's writable fields ({@code member_id}, {@code title}, {@code body}, {@code address}, {@code
 * country}, {@code job}, {@code credit}, {@code ssn}, {@code company}, {@code phone_number}) filled
 * by datafaker from a fixed seed, so every run sends the same posts.
 *
 * <p>Not thread-safe: one maker per thread.
 */
public final class BoardPostMaker {

  /** The seed every run starts from unless told otherwise. */
  public static final long DEFAULT_SEED = 20231128L;

  private final Faker faker;
  private final JsonFactory json = new JsonFactory();

  /** A maker whose sequence of posts is fixed by {@code seed}. */
  public BoardPostMaker(long seed) {
    this.faker = new Faker(Locale.US, new Random(seed));
  }

  /** The next post as a JSON object. */
  public byte[] post() {
    ByteArrayOutputStream out = new ByteArrayOutputStream(640);
    try (JsonGenerator generator = json.createGenerator(out)) {
      write(generator);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a post as JSON", e);
    }
    return out.toByteArray();
  }

  /**
   * The next {@code count} posts as one JSON array, the body of {@code POST /boards/bulk}.
   *
   * @throws IllegalArgumentException if {@code count} is below 1
   */
  public byte[] posts(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("a bulk request needs at least 1 post, not " + count);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(count * 640);
    try (JsonGenerator generator = json.createGenerator(out)) {
      generator.writeStartArray();
      for (int i = 0; i < count; i++) {
        write(generator);
      }
      generator.writeEndArray();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write posts as JSON", e);
    }
    return out.toByteArray();
  }

  private void write(JsonGenerator out) throws IOException {
    out.writeStartObject();
    out.writeNumberField("member_id", faker.number().numberBetween(1, 100_000));
    out.writeStringField("title", faker.name().fullName());
    // The seed's bodies are a few sentences in two paragraphs.
    out.writeStringField("body", faker.lorem().paragraph(2) + "\n" + faker.lorem().paragraph(2));
    out.writeStringField(
        "address",
        faker.address().streetAddress(true)
            + "\n"
            + faker.address().city()
            + ", "
            + faker.address().stateAbbr()
            + " "
            + faker.address().zipCode());
    out.writeStringField("country", faker.address().country());
    out.writeStringField("job", faker.job().title());
    out.writeStringField("credit", faker.finance().creditCard().replace("-", ""));
    out.writeStringField("ssn", faker.idNumber().ssnValid());
    out.writeStringField("company", faker.company().name());
    out.writeStringField("phone_number", faker.phoneNumber().phoneNumber());
    out.writeEndObject();
  }
}
