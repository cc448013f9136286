package dev.stowage.codec;

import java.io.Serializable;

/** Test types with an interface-typed field, whose implementations a codec must be told about. */
final class Shapes {
  private Shapes() {}

  interface Shape extends Serializable {}

  /** Registered with the codecs under test. */
  record Circle(double radius) implements Shape {}

  /** Never registered with the codecs under test. */
  record Square(double side) implements Shape {}

  record Drawing(String name, Shape shape) implements Serializable {}
}
