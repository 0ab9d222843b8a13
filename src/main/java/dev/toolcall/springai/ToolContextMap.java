package dev.toolcall.springai;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.model.ToolContext;

/**
 * The map of the {@code ToolContext} a {@link SpringAiToolCallingManager} passes each callback: the options' tool
 * context and, under {@link ToolContext#TOOL_CALL_HISTORY}, the history so far, as Spring's own manager builds it,
 * without copying the options' map (a copy Spring's options already made, read-only) into a new one per batch.
 * Reads and iteration see the options' entries, the history replacing any entry under its key; the history's entry
 * comes last. Unmodifiable ({@code ToolContext} wraps it once more). Immutable once made, so thread-safe.
 */
final class ToolContextMap extends AbstractMap<String, Object> {

  private final Map<String, Object> options;
  private final List<Message> history;

  /** The entries of {@code options} (read-only, not copied) and the history. */
  ToolContextMap(Map<String, Object> options, List<Message> history) {
    this.options = options;
    this.history = history;
  }

  @Override
  public Object get(Object key) {
    return ToolContext.TOOL_CALL_HISTORY.equals(key) ? history : options.get(key);
  }

  @Override
  public boolean containsKey(Object key) {
    return ToolContext.TOOL_CALL_HISTORY.equals(key) || options.containsKey(key);
  }

  @Override
  public int size() {
    return options.containsKey(ToolContext.TOOL_CALL_HISTORY) ? options.size() : options.size() + 1;
  }

  @Override
  public boolean isEmpty() {
    return false;
  }

  @Override
  public Set<Entry<String, Object>> entrySet() {
    return new AbstractSet<>() {
      @Override
      public int size() {
        return ToolContextMap.this.size();
      }

      @Override
      public Iterator<Entry<String, Object>> iterator() {
        Iterator<Entry<String, Object>> rest = options.entrySet().iterator();
        return new Iterator<>() {
          private Entry<String, Object> next = advance();
          private boolean historyGiven;

          private Entry<String, Object> advance() {
            while (rest.hasNext()) {
              Entry<String, Object> e = rest.next();
              if (!ToolContext.TOOL_CALL_HISTORY.equals(e.getKey())) {
                return new SimpleImmutableEntry<>(e.getKey(), e.getValue());
              }
            }
            return null;
          }

          @Override
          public boolean hasNext() {
            return next != null || !historyGiven;
          }

          @Override
          public Entry<String, Object> next() {
            if (next != null) {
              Entry<String, Object> e = next;
              next = advance();
              return e;
            }
            if (historyGiven) {
              throw new NoSuchElementException();
            }
            historyGiven = true;
            return new SimpleImmutableEntry<>(ToolContext.TOOL_CALL_HISTORY, history);
          }
        };
      }
    };
  }
}
