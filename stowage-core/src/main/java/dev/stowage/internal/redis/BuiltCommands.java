package dev.stowage.internal.redis;

import io.lettuce.core.KeyValue;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.output.KeyValueListOutput;
import io.lettuce.core.output.NestedMultiOutput;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import java.util.Arrays;
import java.util.List;

/**
 * The commands of bulk operations as Lettuce command objects, not yet sent: what {@link
 * MasterBatch} writes to a master's connection several at a time. Keys are added as keys, so that a
 * cluster connection could route each of them by its slot too.
 */
final class BuiltCommands {
  private static final ByteArrayCodec CODEC = ByteArrayCodec.INSTANCE;

  private BuiltCommands() {}

  /** {@code MSET k1 v1 k2 v2 ...} over aligned keys and values. */
  static Command<byte[], byte[], String> mset(byte[][] keys, byte[][] values) {
    if (keys.length != values.length) {
      throw new IllegalArgumentException(
          "MSET needs a value per key: " + keys.length + " keys, " + values.length + " values");
    }
    CommandArgs<byte[], byte[]> args = new CommandArgs<>(CODEC);
    for (int i = 0; i < keys.length; i++) {
      args.addKey(keys[i]).addValue(values[i]);
    }
    return new Command<>(CommandType.MSET, new StatusOutput<>(CODEC), args);
  }

  /** {@code MGET k1 k2 ...}: a key and its value (or none) per key, in order. */
  static Command<byte[], byte[], List<KeyValue<byte[], byte[]>>> mget(byte[][] keys) {
    return new Command<>(
        CommandType.MGET,
        new KeyValueListOutput<>(CODEC, Arrays.asList(keys)),
        new CommandArgs<>(CODEC).addKeys(keys));
  }

  /** {@code DEL k1 k2 ...}: the number of keys removed. */
  static Command<byte[], byte[], Long> del(byte[][] keys) {
    return new Command<>(
        CommandType.DEL, new IntegerOutput<>(CODEC), new CommandArgs<>(CODEC).addKeys(keys));
  }

  /** {@code UNLINK k1 k2 ...}: the number of keys removed. */
  static Command<byte[], byte[], Long> unlink(byte[][] keys) {
    return new Command<>(
        CommandType.UNLINK, new IntegerOutput<>(CODEC), new CommandArgs<>(CODEC).addKeys(keys));
  }

  /** {@code EVALSHA sha numkeys k1 ... a1 ...} of a script that answers an integer. */
  static Command<byte[], byte[], Long> evalshaInteger(String sha, byte[][] keys, byte[][] args) {
    CommandArgs<byte[], byte[]> built =
        new CommandArgs<>(CODEC).add(sha).add(keys.length).addKeys(keys).addValues(args);
    return new Command<>(CommandType.EVALSHA, new IntegerOutput<>(CODEC), built);
  }

  /** {@code EVALSHA sha numkeys k1 ... a1 ...} of a script that answers an array. */
  static Command<byte[], byte[], List<Object>> evalshaMulti(
      String sha, byte[][] keys, byte[][] args) {
    CommandArgs<byte[], byte[]> built =
        new CommandArgs<>(CODEC).add(sha).add(keys.length).addKeys(keys).addValues(args);
    return new Command<>(CommandType.EVALSHA, new NestedMultiOutput<>(CODEC), built);
  }
}
