package dev.stowage.spring;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The values an application kept in Redis through a {@code RedisTemplate} before it moved to
 * Stowage.
 */
final class SerializerValues {
  private SerializerValues() {}

  /** A record with a nested record and a list. */
  public record Article(long id, String title, Author author, List<String> tags) {}

  public record Author(String name, long followers) {}

  /** A POJO whose field is an interface: the class of its value is named in the JSON. */
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
  public record Account(String owner, long balance, Serializable note) implements Serializable {}

  /** A class that runs code when JDK serialization reads it, as a gadget does. */
  public static final class JdkTrap implements Serializable {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger READ = new AtomicInteger();

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      READ.incrementAndGet();
    }
  }

  /** Many similar values, which a zstd dictionary compresses well. */
  public record Ticket(String id, String customer, String street, String status, String note) {
    static Ticket of(int i) {
      return new Ticket(
          "T-" + i,
          "customer-" + (i * 7919 % 1000),
          (i % 97) + " Harbour Street, Portsmouth",
          i % 3 == 0 ? "SHIPPED" : "WAITING_FOR_PAYMENT",
          "Ticket "
              + i
              + " was opened by the web shop; the customer asked for delivery before noon on day "
              + (i % 28 + 1)
              + " and a printed invoice.");
    }
  }
}
