package dev.toolcall.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * What a test printed to {@code System.out}, kept instead of printed so that a green build stays quiet (the README's
 * examples print their results). Use {@code @ExtendWith(Printed.Capture.class)} and take a {@code Printed} parameter;
 * {@link #text()} is what was printed so far. {@code System.out} is restored after each test.
 */
public final class Printed {
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  private Printed() {}

  /** Everything printed since the test started. */
  public String text() {
    synchronized (buffer) {
      return buffer.toString(StandardCharsets.UTF_8);
    }
  }

  /** The extension: swaps {@code System.out} for a buffer around each test method. */
  public static final class Capture implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(Printed.class);

    @Override
    public void beforeEach(ExtensionContext context) {
      Printed printed = new Printed();
      context.getStore(NS).put("original", System.out);
      context.getStore(NS).put("printed", printed);
      System.setOut(new PrintStream(printed.buffer, true, StandardCharsets.UTF_8));
    }

    @Override
    public void afterEach(ExtensionContext context) {
      System.setOut(context.getStore(NS).get("original", PrintStream.class));
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
      return p.getParameter().getType() == Printed.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
      return e.getStore(NS).get("printed", Printed.class);
    }
  }
}
