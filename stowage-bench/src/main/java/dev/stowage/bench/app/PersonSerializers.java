package dev.stowage.bench.app;

import com.alibaba.fastjson2.JSON;
import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.stowage.samples.Person;
import java.nio.charset.StandardCharsets;

/**
 * The fifth seed's two ways of turning a {@link Person} into a Redis value: fastjson text (the
 * seed's string app, through {@code StringRedisTemplate}) and Kryo bytes (its Kryo app: one Kryo
 * per thread, the class registered, {@code writeClassAndObject}). The seed used fastjson 1.x; this
 * uses fastjson2, its maintained successor, with the same default settings.
 */
public final class PersonSerializers {

  private static final ThreadLocal<Kryo> KRYO =
      ThreadLocal.withInitial(
          () -> {
            Kryo kryo = new Kryo();
            kryo.register(Person.class);
            return kryo;
          });

  private PersonSerializers() {}

  /** fastjson text of the person. */
  public static String toFastjson(Person person) {
    return JSON.toJSONString(person);
  }

  /** The person that fastjson text describes. */
  public static Person fromFastjson(String text) {
    return JSON.parseObject(text, Person.class);
  }

  /** fastjson text as UTF-8 bytes, as {@code StringRedisTemplate} stores it. */
  public static byte[] fastjsonBytes(Person person) {
    return toFastjson(person).getBytes(StandardCharsets.UTF_8);
  }

  /** The person stored as fastjson UTF-8 bytes. */
  public static Person fromFastjsonBytes(byte[] bytes) {
    return fromFastjson(new String(bytes, StandardCharsets.UTF_8));
  }

  /** Kryo bytes, written with the class, as the seed's Kryo app writes them. */
  public static byte[] toKryo(Object value) {
    Output output = new Output(256, -1);
    KRYO.get().writeClassAndObject(output, value);
    return output.toBytes();
  }

  /** The object that Kryo bytes written with {@link #toKryo} hold. */
  public static Object fromKryo(byte[] bytes) {
    return KRYO.get().readClassAndObject(new Input(bytes));
  }
}
