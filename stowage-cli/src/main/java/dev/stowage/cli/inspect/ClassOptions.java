package dev.stowage.cli.inspect;

import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * {@code --type}, {@code --classpath} and {@code --register}: the classes a value needs when its
 * codec does not describe itself (Kryo, Fory, Protobuf, Avro, Thrift, JDK serialization).
 */
public final class ClassOptions {
  @Option(
      names = "--type",
      paramLabel = "CLASS",
      description =
          "The class the values were written as; needed for kryo, fory, protobuf, avro, thrift and jdk values.")
  String type;

  @Option(
      names = "--classpath",
      paramLabel = "PATH",
      splitSynopsisLabel = "${sys:path.separator}",
      split = "${sys:path.separator}",
      description =
          "Jars and directories holding the cache's classes, separated by '${sys:path.separator}'.")
  List<Path> classpath = new ArrayList<>();

  @Option(
      names = "--register",
      paramLabel = "CLASS",
      split = ",",
      description =
          "Kryo/Fory: the classes the cache registers besides --type, in its order; jdk: more classes to allow.")
  List<String> register = new ArrayList<>();

  private @Nullable ClassLoader loader;

  /** Whether {@code --type} was given. */
  boolean hasType() {
    return type != null;
  }

  /**
   * Loads the {@code --type} class and the {@code --register} classes now (all but the JDK codec's
   * patterns, such as {@code com.example.*}), so that a name that cannot be found stops the command
   * before it reads anything rather than failing every value.
   *
   * @throws InspectException naming the class and where it was looked for
   */
  void check() {
    if (hasType()) {
      type();
    }
    for (String name : register) {
      if (!name.contains("*")) {
        load(name.strip(), "--register");
      }
    }
  }

  /** The {@code --type} class, loaded from {@code --classpath} first and then from this program. */
  Class<?> type() {
    return load(type, "--type");
  }

  /** The {@code --register} classes, in order. */
  Class<?>[] registered() {
    Class<?>[] classes = new Class<?>[register.size()];
    for (int i = 0; i < classes.length; i++) {
      classes[i] = load(register.get(i).strip(), "--register");
    }
    return classes;
  }

  private Class<?> load(String name, String option) {
    try {
      return Class.forName(name, false, loader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new InspectException(
          option
              + ": class "
              + name
              + " was not found on "
              + (classpath.isEmpty()
                  ? "this program's class path; pass --classpath with the cache's jars"
                  : "--classpath " + classpath + " nor on this program's class path")
              + (e instanceof LinkageError ? " (" + e + ")" : ""),
          e);
    }
  }

  private ClassLoader loader() {
    if (loader == null) {
      List<URL> urls = new ArrayList<>();
      for (Path path : classpath) {
        if (!Files.exists(path)) {
          throw new InspectException("--classpath: " + path + " does not exist");
        }
        try {
          urls.add(path.toUri().toURL());
        } catch (MalformedURLException e) {
          throw new InspectException(
              "--classpath: " + path + " is not a usable path: " + e.getMessage(), e);
        }
      }
      ClassLoader parent = ClassOptions.class.getClassLoader();
      loader = urls.isEmpty() ? parent : new URLClassLoader(urls.toArray(URL[]::new), parent);
    }
    return loader;
  }
}
