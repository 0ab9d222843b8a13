package dev.toolcall;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public API, written out as sorted signatures and compared with the committed {@code docs/api.txt}, so that
 * every change of a public or protected type, constructor, method or constant is a reviewed diff. Regenerate with
 * {@code mvn test -Dtest=ApiSignatureTest -Dtoolcall.docs.write=true} and commit the file with the change.
 */
class ApiSignatureTest {

  private static final Path FILE = Path.of("docs/api.txt");

  @Test
  void publicApiMatchesTheCommittedSignatures() throws Exception {
    String onDisk = Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "";
    String notes = notes(onDisk);
    String current = notes + String.join("\n", signatures()) + "\n";
    if (Boolean.getBoolean("toolcall.docs.write")) {
      Files.writeString(FILE, current, StandardCharsets.UTF_8);
    }
    String committed = Files.exists(FILE) ? Files.readString(FILE, StandardCharsets.UTF_8) : "";
    assertThat(current)
        .as("the public API changed; review the diff and rerun with -Dtoolcall.docs.write=true to accept it")
        .isEqualTo(committed);
  }

  /**
   * The lines starting with {@code #} at the top of the file: written by hand (what moved between packages and why),
   * kept as they are when the file is regenerated.
   */
  static String notes(String file) {
    StringBuilder out = new StringBuilder();
    for (String line : file.split("\n", -1)) {
      if (!line.startsWith("#")) {
        break;
      }
      out.append(line).append('\n');
    }
    return out.toString();
  }

  /** Every exported type of the main classes, then its public and protected members, one line each, sorted. */
  static List<String> signatures() throws IOException, URISyntaxException, ClassNotFoundException {
    Path root = Path.of(ToolCall.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    List<String> names;
    try (Stream<Path> files = Files.walk(root)) {
      names = files.map(p -> root.relativize(p).toString())
          .filter(n -> n.endsWith(".class") && !n.endsWith("package-info.class") && !n.endsWith("module-info.class"))
          .map(n -> n.substring(0, n.length() - ".class".length()).replace('/', '.').replace('\\', '.'))
          .sorted()
          .collect(Collectors.toList());
    }
    List<String> out = new ArrayList<>();
    for (String name : names) {
      Class<?> type = Class.forName(name, false, ApiSignatureTest.class.getClassLoader());
      if (!exported(type)) {
        continue;
      }
      out.add(header(type));
      TreeSet<String> members = new TreeSet<>();
      for (Constructor<?> c : type.getDeclaredConstructors()) {
        if (visible(c) && !type.isEnum()) {
          members.add("  " + c.toGenericString().replace(type.getName() + "(", type.getSimpleName() + "("));
        }
      }
      for (Method m : type.getDeclaredMethods()) {
        if (visible(m) && !m.isSynthetic() && !m.isBridge()) {
          members.add("  " + m.toGenericString().replace(type.getName() + ".", ""));
        }
      }
      for (Field f : type.getDeclaredFields()) {
        if (visible(f) && !f.isSynthetic()) {
          members.add("  " + (f.isEnumConstant() ? "constant " + f.getName() : f.toGenericString()
              .replace(type.getName() + ".", "")));
        }
      }
      out.addAll(members);
    }
    return out;
  }

  private static boolean exported(Class<?> type) {
    if (type.getPackageName().equals("dev.toolcall.internal")
        || type.getPackageName().startsWith("dev.toolcall.internal.")) {
      return false; // shared helpers, not API (left out of the javadoc too)
    }
    for (Class<?> t = type; t != null; t = t.getEnclosingClass()) {
      if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isSynthetic()) {
        return false;
      }
    }
    return true;
  }

  private static boolean visible(Member m) {
    int mod = m.getModifiers();
    boolean subclassable = !Modifier.isFinal(m.getDeclaringClass().getModifiers())
        && !m.getDeclaringClass().isEnum() && !m.getDeclaringClass().isRecord();
    return Modifier.isPublic(mod) || (Modifier.isProtected(mod) && subclassable);
  }

  private static String header(Class<?> type) {
    StringBuilder sb = new StringBuilder(type.getName().replace('$', '.')).append(": ");
    int mod = type.getModifiers() & ~Modifier.STATIC;
    if (type.isInterface()) {
      mod &= ~(Modifier.ABSTRACT | Modifier.INTERFACE);
    }
    String kind = type.isRecord() ? "record" : type.isEnum() ? "enum" : type.isAnnotation() ? "@interface"
        : type.isInterface() ? "interface" : "class";
    if (type.isEnum() || type.isRecord()) {
      mod &= ~Modifier.FINAL;
    }
    String mods = Modifier.toString(mod);
    sb.append(mods.isEmpty() ? "" : mods + " ").append(type.isSealed() ? "sealed " : "").append(kind);
    if (type.getGenericSuperclass() != null && type.getSuperclass() != Object.class && !type.isEnum()
        && !type.isRecord()) {
      sb.append(" extends ").append(type.getGenericSuperclass().getTypeName());
    }
    if (type.getGenericInterfaces().length > 0) {
      sb.append(type.isInterface() ? " extends " : " implements ").append(Arrays.stream(type.getGenericInterfaces())
          .map(t -> t.getTypeName()).collect(Collectors.joining(", ")));
    }
    if (type.isSealed()) {
      sb.append(" permits ").append(Arrays.stream(type.getPermittedSubclasses())
          .map(c -> c.getName().replace('$', '.')).collect(Collectors.joining(", ")));
    }
    return sb.toString();
  }
}
