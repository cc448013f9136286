package dev.stowage.internal.redis;

import static java.util.Objects.requireNonNull;

import dev.stowage.internal.connection.RedisSession;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.protocol.Command;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * A Lua script sent by its SHA-1 ({@code EVALSHA}), and in full ({@code EVAL}, which also loads it)
 * only when Redis does not know it yet, as after a restart. Scripts are {@code .lua} resources
 * beside the class that runs them ({@link #load}), read once; every key a script touches arrives in
 * {@code KEYS}. Immutable and thread-safe.
 */
public final class LuaScript {
  private final String body;
  private final String sha;
  private final ScriptOutputType output;

  /**
   * The script made of the {@code .lua} resources {@code names}, in that order, found beside {@code
   * anchor} (in its package's resource folder): a file of shared functions first, then the script
   * that calls them. Read once, where a class keeps it in a constant.
   *
   * @throws IllegalStateException if a resource is missing
   */
  public static LuaScript load(Class<?> anchor, ScriptOutputType output, String... names) {
    StringBuilder body = new StringBuilder();
    for (String name : names) {
      try (InputStream in = anchor.getResourceAsStream(name)) {
        if (in == null) {
          throw new IllegalStateException(
              "the Lua script " + name + " is missing beside " + anchor.getName());
        }
        body.append(new String(in.readAllBytes(), StandardCharsets.UTF_8)).append('\n');
      } catch (IOException e) {
        throw new UncheckedIOException("reading the Lua script " + name, e);
      }
    }
    return new LuaScript(body.toString(), output);
  }

  LuaScript(String body, ScriptOutputType output) {
    this.body = requireNonNull(body, "body");
    this.output = requireNonNull(output, "output");
    try {
      this.sha =
          HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK has no SHA-1", e);
    }
  }

  /**
   * Runs the script on the session's shared connection; failures are untranslated, as for dispatch.
   */
  public <T> CompletableFuture<T> run(RedisSession session, byte[][] keys, byte[]... args) {
    return run(session::dispatch, keys, args);
  }

  /**
   * Sends a command on some connection, as {@link RedisSession#dispatch} does on the shared one.
   */
  @FunctionalInterface
  public interface Dispatcher<T> {
    CompletableFuture<T> dispatch(
        Function<RedisClusterAsyncCommands<byte[], byte[]>, RedisFuture<T>> command);
  }

  /** Runs the script through {@code dispatcher}, loading it there if Redis does not know it. */
  public <T> CompletableFuture<T> run(Dispatcher<T> dispatcher, byte[][] keys, byte[]... args) {
    return dispatcher
        .dispatch(c -> c.<T>evalsha(sha, output, keys, args))
        .exceptionallyCompose(
            error ->
                isNoScript(error)
                    ? dispatcher.dispatch(c -> c.<T>eval(body, output, keys, args))
                    : CompletableFuture.failedFuture(error));
  }

  /**
   * The script's {@code EVALSHA} over {@code keys} and {@code args} as a command not yet sent, for
   * a batch ({@link MasterBatch}); one that Redis answers with {@code NOSCRIPT} is sent again
   * through {@link #run}, which loads the script.
   *
   * @throws IllegalStateException if the script does not answer an integer
   */
  Command<byte[], byte[], Long> builtInteger(byte[][] keys, byte[]... args) {
    if (output != ScriptOutputType.INTEGER) {
      throw new IllegalStateException(this + " answers " + output + ", not an integer");
    }
    return BuiltCommands.evalshaInteger(sha, keys, args);
  }

  /**
   * As {@link #builtInteger}, for a script that answers an array (nested arrays, strings as bytes,
   * integers as {@code Long}, nil as null).
   *
   * @throws IllegalStateException if the script does not answer an array
   */
  Command<byte[], byte[], List<Object>> builtMulti(byte[][] keys, byte[]... args) {
    if (output != ScriptOutputType.MULTI) {
      throw new IllegalStateException(this + " answers " + output + ", not an array");
    }
    return BuiltCommands.evalshaMulti(sha, keys, args);
  }

  private static boolean isNoScript(Throwable error) {
    for (Throwable e = error; e != null; e = e.getCause()) {
      if (e instanceof RedisNoScriptException) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return "LuaScript[" + sha + "]";
  }
}
