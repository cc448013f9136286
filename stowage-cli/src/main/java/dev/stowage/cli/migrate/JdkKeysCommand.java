package dev.stowage.cli.migrate;

import dev.stowage.Codec;
import dev.stowage.StowageException;
import dev.stowage.cli.inspect.KeyNames;
import dev.stowage.cli.inspect.RedisOption;
import dev.stowage.codec.Codecs;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code stowage migrate jdk-keys}: renames the keys a default Spring {@code RedisTemplate} wrote
 * with JDK serialization ({@code ac ed 00 05 …}) to the text keys a Stowage cache reads, {@code
 * <prefix><key text>}. It walks the keys starting with {@code ac ed} with {@code SCAN} and touches
 * only those that decode, behind the JDK codec's class filter (JDK data classes only, so no other
 * class is ever loaded), to the key type and whose text matches {@code --match}. Each is renamed
 * with {@code RENAMENX}, which keeps its value and TTL and never overwrites: where the new key
 * exists already, the old one is left in place and reported as a conflict. With {@code --dry-run}
 * it prints what it would rename and changes nothing.
 *
 * <p>Output: one line per key renamed ({@code --dry-run}: that would be) or in conflict, on
 * standard output, with binary keys escaped as {@code scan} prints them; a progress line on
 * standard error every {@code --progress-every} keys; then a summary. Exit code 0 when the walk
 * completed (conflicts included), 1 when Redis fails, 2 for a usage error.
 */
@Command(
    name = "jdk-keys",
    mixinStandardHelpOptions = true,
    description = {
      "Rename JDK-serialized keys (written by a default RedisTemplate) to <prefix><key text>, with RENAMENX.",
      "Only keys that decode to --key-type (through the JDK codec's class filter) and whose text matches --match."
    })
public final class JdkKeysCommand implements Callable<Integer> {
  /** The SCAN pattern of JDK-serialized keys: they start with the stream magic, ac ed. */
  private static final byte[] JDK_KEYS = {(byte) 0xac, (byte) 0xed, '*'};

  /** The classes a key may decode to. */
  enum KeyType {
    STRING(String.class),
    LONG(Long.class),
    INTEGER(Integer.class),
    UUID(java.util.UUID.class);

    final Class<?> type;

    KeyType(Class<?> type) {
      this.type = type;
    }

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  @Spec CommandSpec spec;
  @Mixin RedisOption redis;

  @Option(
      names = "--prefix",
      paramLabel = "PREFIX",
      required = true,
      description = "What the new keys start with: the cache's key prefix, such as 'books::'.")
  String prefix;

  @Option(
      names = "--match",
      paramLabel = "PATTERN",
      required = true,
      description =
          "Which keys, by their decoded text, as a Redis glob pattern ('*' for every key of the type,"
              + " 'B-*' for the texts starting with B-).")
  String match;

  @Option(
      names = "--key-type",
      paramLabel = "TYPE",
      defaultValue = "string",
      description =
          "What the keys decode to: string, long, integer or uuid (default: ${DEFAULT-VALUE}); the new key"
              + " holds its text (toString()).")
  KeyType keyType;

  @Option(names = "--dry-run", description = "Print what would be renamed, and change nothing.")
  boolean dryRun;

  @Option(
      names = "--count",
      paramLabel = "N",
      defaultValue = "1000",
      description = "The SCAN COUNT hint (default: ${DEFAULT-VALUE}).")
  int count;

  @Option(
      names = "--progress-every",
      paramLabel = "N",
      defaultValue = "10000",
      description =
          "Print a progress line on standard error every N JDK-serialized keys (default: ${DEFAULT-VALUE}).")
  long progressEvery;

  @Override
  public Integer call() {
    if (prefix.isEmpty()) {
      throw new ParameterException(
          spec.commandLine(),
          "--prefix must not be empty: give the cache's key prefix," + " such as 'books::'");
    }
    if (count < 1 || progressEvery < 1) {
      throw new ParameterException(
          spec.commandLine(), "--count and --progress-every must be at least 1");
    }
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    try (RedisOption.RedisSession session = redis.connect(spec)) {
      if (session.connection() instanceof StatefulRedisClusterConnection) {
        throw new ParameterException(
            spec.commandLine(),
            "migrate jdk-keys runs on one server, as RENAMENX needs both"
                + " names in one slot: run it with --redis against each master");
      }
      Tally tally = migrate(session.sync(), out, err);
      out.println(tally.summary());
      out.flush();
      return 0;
    } catch (StowageException | RedisException e) {
      err.println("stowage migrate jdk-keys: " + e.getMessage());
      return 1;
    }
  }

  /** What the walk found. */
  private final class Tally {
    long scanned;
    long renamed;
    long conflicts;
    long otherType;
    long unmatched;
    long gone;

    String summary() {
      return String.format(
          Locale.ROOT,
          "%s %d of %d JDK-serialized keys to %s<key text>: %d conflicts left in place"
              + " (the new key exists), %d not a %s, %d not matching '%s'%s%s",
          dryRun ? "would rename" : "renamed",
          renamed,
          scanned,
          prefix,
          conflicts,
          otherType,
          keyType,
          unmatched,
          match,
          gone == 0 ? "" : ", " + gone + " gone before their turn",
          dryRun ? "; nothing was changed (--dry-run)" : "");
    }
  }

  private Tally migrate(
      RedisClusterCommands<byte[], byte[]> commands, PrintWriter out, PrintWriter err) {
    @SuppressWarnings("unchecked")
    Codec<Object> keys = (Codec<Object>) Codecs.jdk(keyType.type); // JDK data classes only
    Tally tally = new Tally();
    ScanArgs args = ScanArgs.Builder.matches(JDK_KEYS).limit(count);
    ScanCursor cursor = ScanCursor.INITIAL;
    long nextProgress = progressEvery;
    do {
      KeyScanCursor<byte[]> page = commands.scan(cursor, args);
      cursor = page;
      for (byte[] key : page.getKeys()) {
        tally.scanned++;
        Object decoded;
        try {
          decoded = keys.decode(key);
        } catch (StowageException | IllegalArgumentException e) {
          tally.otherType++;
          continue;
        }
        String text = decoded.toString();
        if (!Glob.matches(match, text)) {
          tally.unmatched++;
          continue;
        }
        byte[] target = (prefix + text).getBytes(StandardCharsets.UTF_8);
        String from = KeyNames.show(key);
        String to = KeyNames.show(target);
        if (dryRun) {
          if (commands.exists(target) > 0) {
            tally.conflicts++;
            out.println(
                "conflict: "
                    + from
                    + " -> "
                    + to
                    + " exists already; the old key would be left in place");
          } else {
            tally.renamed++;
            out.println("would rename " + from + " -> " + to);
          }
        } else {
          try {
            if (Boolean.TRUE.equals(commands.renamenx(key, target))) {
              tally.renamed++;
              out.println("renamed " + from + " -> " + to);
            } else {
              tally.conflicts++;
              out.println(
                  "conflict: "
                      + from
                      + " -> "
                      + to
                      + " exists already; the old key is left in place");
            }
          } catch (RedisCommandExecutionException e) {
            tally.gone++; // ERR no such key: expired or deleted since SCAN returned it
          }
        }
      }
      if (tally.scanned >= nextProgress) {
        err.println(
            String.format(
                Locale.ROOT,
                "%,d JDK-serialized keys scanned: %,d %s, %,d conflicts",
                tally.scanned,
                tally.renamed,
                dryRun ? "to rename" : "renamed",
                tally.conflicts));
        err.flush();
        nextProgress = (tally.scanned / progressEvery + 1) * progressEvery;
      }
    } while (!cursor.isFinished());
    return tally;
  }

  /**
   * Redis's glob patterns ({@code *}, {@code ?}, {@code [a-z]}, {@code [^a]}, {@code \} escapes),
   * on text.
   */
  static final class Glob {
    private Glob() {}

    static boolean matches(String pattern, String text) {
      return matches(pattern, 0, text, 0);
    }

    private static boolean matches(String p, int pi, String s, int si) {
      while (pi < p.length()) {
        char c = p.charAt(pi);
        switch (c) {
          case '*' -> {
            while (pi + 1 < p.length() && p.charAt(pi + 1) == '*') {
              pi++;
            }
            if (pi + 1 == p.length()) {
              return true;
            }
            for (int from = si; from <= s.length(); from++) {
              if (matches(p, pi + 1, s, from)) {
                return true;
              }
            }
            return false;
          }
          case '?' -> {
            if (si >= s.length()) {
              return false;
            }
            pi++;
            si++;
          }
          case '[' -> {
            if (si >= s.length()) {
              return false;
            }
            int end = pi + 1;
            boolean negate = end < p.length() && p.charAt(end) == '^';
            if (negate) {
              end++;
            }
            boolean found = false;
            char ch = s.charAt(si);
            while (end < p.length() && p.charAt(end) != ']') {
              if (p.charAt(end) == '\\' && end + 1 < p.length()) {
                end++;
                found |= p.charAt(end) == ch;
              } else if (end + 2 < p.length()
                  && p.charAt(end + 1) == '-'
                  && p.charAt(end + 2) != ']') {
                char low = p.charAt(end);
                char high = p.charAt(end + 2);
                found |= low <= high ? ch >= low && ch <= high : ch >= high && ch <= low;
                end += 2;
              } else {
                found |= p.charAt(end) == ch;
              }
              end++;
            }
            if (found == negate) {
              return false;
            }
            pi = Math.min(end + 1, p.length());
            si++;
          }
          default -> {
            if (c == '\\' && pi + 1 < p.length()) {
              pi++;
              c = p.charAt(pi);
            }
            if (si >= s.length() || s.charAt(si) != c) {
              return false;
            }
            pi++;
            si++;
          }
        }
      }
      return si == s.length();
    }
  }
}
