package dev.stowage.migration;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/** The values an application cached through Spring Data Redis before it moved to Stowage. */
final class SpringValues {
  private SpringValues() {}

  /**
   * A record with a nested record, a list, a map of anything, a {@code Date} and an {@code
   * Instant}.
   */
  public record Article(
      long id,
      String title,
      Author author,
      List<String> tags,
      Map<String, Object> extras,
      Date published,
      Instant updated) {}

  public record Author(String name, long followers) {}

  /** A POJO whose field is an interface: the class of its value is named in the bytes. */
  public static final class Shelf {
    public String label;
    public Shape shape;
  }

  public interface Shape {}

  /** An implementation that counts its instances: creating one is what an allowlist prevents. */
  public static final class Trap implements Shape {
    static final AtomicInteger CREATED = new AtomicInteger();
    public int size;

    public Trap() {
      CREATED.incrementAndGet();
    }
  }

  /** A value for JDK serialization, whose note may hold anything serializable. */
  public record Account(String owner, long balance, List<String> history, Serializable note)
      implements Serializable {}

  /** A class that runs code when JDK serialization reads it, as a gadget does. */
  public static final class JdkTrap implements Serializable {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger READ = new AtomicInteger();

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      READ.incrementAndGet();
    }
  }
}
