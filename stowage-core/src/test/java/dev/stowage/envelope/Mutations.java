package dev.stowage.envelope;

import java.util.Arrays;
import java.util.Random;

/**
 * The fuzz tests' mutations of valid envelopes: bit flips, edge header bytes, cuts, runs, huge
 * sizes.
 */
public final class Mutations {
  private Mutations() {}

  /** One to three random mutations of a copy of {@code base}. */
  public static byte[] mutate(byte[] base, Random random) {
    byte[] bytes = base.clone();
    int rounds = 1 + random.nextInt(3);
    for (int r = 0; r < rounds; r++) {
      switch (random.nextInt(9)) {
        case 0 -> { // flip a bit
          if (bytes.length > 0) {
            int at = random.nextInt(bytes.length);
            bytes[at] ^= (byte) (1 << random.nextInt(8));
          }
        }
        case 1 -> { // set a random byte
          if (bytes.length > 0) {
            bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
          }
        }
        case 2 -> { // change one of the header bytes to an edge value
          if (bytes.length > 3) {
            int[] edges = {
              0x00, 0x01, 0x02, 0x03, 0x04, 0x0F, 0x10, 0x11, 0x12, 0x7F, 0x80, 0xC1, 0xFF
            };
            bytes[1 + random.nextInt(3)] = (byte) edges[random.nextInt(edges.length)];
          }
        }
        case 3 -> bytes = Arrays.copyOf(bytes, random.nextInt(bytes.length + 1)); // truncate
        case 4 -> { // append random bytes
          byte[] tail = new byte[1 + random.nextInt(16)];
          random.nextBytes(tail);
          byte[] longer = Arrays.copyOf(bytes, bytes.length + tail.length);
          System.arraycopy(tail, 0, longer, bytes.length, tail.length);
          bytes = longer;
        }
        case 5 -> { // delete a range
          if (bytes.length > 1) {
            int from = random.nextInt(bytes.length);
            int to = Math.min(bytes.length, from + 1 + random.nextInt(8));
            byte[] shorter = new byte[bytes.length - (to - from)];
            System.arraycopy(bytes, 0, shorter, 0, from);
            System.arraycopy(bytes, to, shorter, from, bytes.length - to);
            bytes = shorter;
          }
        }
        case 6 -> { // insert a run of 0x80 or 0xFF, as in an endless varint
          int at = Math.min(bytes.length, 4 + random.nextInt(3));
          byte[] run = new byte[1 + random.nextInt(7)];
          Arrays.fill(run, (byte) (random.nextBoolean() ? 0x80 : 0xFF));
          byte[] longer = new byte[bytes.length + run.length];
          System.arraycopy(bytes, 0, longer, 0, at);
          System.arraycopy(run, 0, longer, at, run.length);
          System.arraycopy(bytes, at, longer, at + run.length, bytes.length - at);
          bytes = longer;
        }
        case 7 -> { // overwrite a 4-byte little-endian field with a huge size
          if (bytes.length >= 8) {
            int at = 4 + random.nextInt(bytes.length - 7);
            int huge =
                random.nextBoolean() ? Integer.MAX_VALUE : 0x4000_0000 + random.nextInt(1 << 20);
            for (int k = 0; k < 4; k++) {
              bytes[at + k] = (byte) (huge >>> (8 * k));
            }
          }
        }
        default -> { // random bytes without or with the magic byte
          byte[] foreign = new byte[random.nextInt(24)];
          random.nextBytes(foreign);
          if (foreign.length > 0 && random.nextBoolean()) {
            foreign[0] = (byte) 0xC1;
          }
          bytes = foreign;
        }
      }
    }
    return bytes;
  }
}
