package dev.toolcall.testing;

import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.helpers.AbstractLogger;
import org.slf4j.helpers.BasicMDCAdapter;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The tests' SLF4J provider: WARN and ERROR records go to {@link Logs} (which prints what a test did not expect),
 * the rest is dropped. Registered in {@code META-INF/services}; the library itself depends only on slf4j-api.
 */
public final class TestLogProvider implements SLF4JServiceProvider {
  private final ILoggerFactory factory = RecordingLogger::new;
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new BasicMDCAdapter();

  @Override
  public ILoggerFactory getLoggerFactory() {
    return factory;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {}

  /** Records WARN and ERROR; ignores the rest. */
  static final class RecordingLogger extends AbstractLogger {
    private static final long serialVersionUID = 1L;

    RecordingLogger(String name) {
      this.name = name;
    }

    @Override
    protected String getFullyQualifiedCallerName() {
      return null;
    }

    @Override
    protected void handleNormalizedLoggingCall(Level level, Marker marker, String messagePattern, Object[] arguments,
        Throwable throwable) {
      Logs.record(level, name, MessageFormatter.basicArrayFormat(messagePattern, arguments), throwable);
    }

    @Override
    public boolean isTraceEnabled() {
      return false;
    }

    @Override
    public boolean isTraceEnabled(Marker marker) {
      return false;
    }

    @Override
    public boolean isDebugEnabled() {
      return false;
    }

    @Override
    public boolean isDebugEnabled(Marker marker) {
      return false;
    }

    @Override
    public boolean isInfoEnabled() {
      return false;
    }

    @Override
    public boolean isInfoEnabled(Marker marker) {
      return false;
    }

    @Override
    public boolean isWarnEnabled() {
      return true;
    }

    @Override
    public boolean isWarnEnabled(Marker marker) {
      return true;
    }

    @Override
    public boolean isErrorEnabled() {
      return true;
    }

    @Override
    public boolean isErrorEnabled(Marker marker) {
      return true;
    }
  }
}
