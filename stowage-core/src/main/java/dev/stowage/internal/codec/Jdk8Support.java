package dev.stowage.internal.codec;

import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.datatype.jdk8.Jdk8Module;

/**
 * Jackson's {@code Optional} support, from the optional {@code jackson-datatype-jdk8}. Only this
 * class names {@code Jdk8Module}, and it is loaded only when the library is present: a class whose
 * method creates one cannot even be linked without the jar (the JVM's verifier loads it to check
 * the call), whether or not the method runs.
 */
final class Jdk8Support {
  private Jdk8Support() {}

  /** The module; call only when {@link CodecLibraries#JACKSON_JDK8} is present. */
  static Module module() {
    return new Jdk8Module();
  }
}
