package dev.stowage.internal.feed;

import dev.stowage.internal.redis.LuaScript;
import io.lettuce.core.ScriptOutputType;

/**
 * The feed's Lua scripts, read once from the {@code .lua} resources beside this package; each file
 * says what its {@code KEYS} and {@code ARGV} hold and what it returns. The scripts that touch
 * buckets take each bucket's keys in {@code KEYS} ({@link BucketKeys}) and share the functions of
 * {@code functions.lua}, which comes first.
 */
final class FeedScripts {
  private static final String FUNCTIONS = "functions.lua";

  /** Appends members with new scores from the counter ({@code append.lua}). */
  static final LuaScript APPEND = withFunctions("append.lua", ScriptOutputType.MULTI);

  /** Stores members at given scores, opening sealed buckets ({@code put.lua}). */
  static final LuaScript PUT = withFunctions("put.lua", ScriptOutputType.MULTI);

  /** Members from the newest ({@code page.lua}). */
  static final LuaScript PAGE = withFunctions("page.lua", ScriptOutputType.MULTI);

  /** Removes the entry at a score ({@code remove.lua}). */
  static final LuaScript REMOVE = withFunctions("remove.lua", ScriptOutputType.MULTI);

  /** The number of entries ({@code size.lua}). */
  static final LuaScript SIZE = withFunctions("size.lua", ScriptOutputType.MULTI);

  /** Removes every bucket and the index ({@code clear.lua}). */
  static final LuaScript CLEAR = withFunctions("clear.lua", ScriptOutputType.MULTI);

  /** Seals a full bucket ({@code seal.lua}). */
  static final LuaScript SEAL =
      LuaScript.load(FeedScripts.class, ScriptOutputType.INTEGER, "seal.lua");

  /** Reserves scores above a floor ({@code reserve.lua}). */
  static final LuaScript RESERVE =
      LuaScript.load(FeedScripts.class, ScriptOutputType.INTEGER, "reserve.lua");

  /** Raises the counter, never lowering it ({@code raise.lua}). */
  static final LuaScript RAISE =
      LuaScript.load(FeedScripts.class, ScriptOutputType.INTEGER, "raise.lua");

  private FeedScripts() {}

  private static LuaScript withFunctions(String name, ScriptOutputType output) {
    return LuaScript.load(FeedScripts.class, output, FUNCTIONS, name);
  }
}
