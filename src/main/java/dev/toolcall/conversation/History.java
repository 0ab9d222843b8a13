package dev.toolcall.conversation;

import java.util.HashSet;
import java.util.List;

/** The rules a seeded history must keep (see {@link Agent.Builder#history}). */
final class History {

  private History() {}

  /** An immutable copy of {@code history}, or an {@link IllegalArgumentException} naming the first bad message. */
  static List<Message> check(List<? extends Message> history) {
    return check(history, false);
  }

  /**
   * {@link #check(List)}; with {@code openEnd} the last assistant message's calls may be unanswered (a turn resumed
   * after a restart, whose results are still owed).
   */
  static List<Message> check(List<? extends Message> history, boolean openEnd) {
    List<Message> copy = List.copyOf(history);
    HashSet<String> ids = new HashSet<>();
    List<ToolCallRequest> open = List.of();
    int answered = 0;
    for (int i = 0; i < copy.size(); i++) {
      Message m = copy.get(i);
      if (m instanceof ToolResultMessage r) {
        if (answered == open.size()) {
          throw bad(i, "a tool result for call '" + r.callId() + "' that no assistant message before it asked for"
              + (open.isEmpty() ? "" : " (its calls are answered already)"));
        }
        ToolCallRequest c = open.get(answered);
        if (!c.id().equals(r.callId()) || !c.name().equals(r.toolName())) {
          throw bad(i, "the result of call '" + r.callId() + "' (" + r.toolName() + ") where the result of call '"
              + c.id() + "' (" + c.name() + ") belongs: results follow their assistant message in its calls' order");
        }
        answered++;
        continue;
      }
      if (answered < open.size()) {
        throw bad(i, "a " + kind(m) + " before tool call '" + open.get(answered).id() + "' was answered");
      }
      if (m instanceof AssistantMessage a) {
        for (ToolCallRequest c : a.toolCalls()) {
          if (!ids.add(c.id())) {
            throw bad(i, "tool call id '" + c.id() + "' appears twice in the history");
          }
        }
        open = a.toolCalls();
        answered = 0;
      } else {
        open = List.of();
        answered = 0;
      }
    }
    if (answered < open.size() && !(openEnd && answered == 0)) {
      throw bad(copy.size() - 1, "the history ends before tool call '" + open.get(answered).id()
          + "' was answered: add its result");
    }
    return copy;
  }

  private static String kind(Message m) {
    return m instanceof UserMessage ? "user message" : "assistant message";
  }

  private static IllegalArgumentException bad(int index, String what) {
    return new IllegalArgumentException("history[" + index + "] is not a well-formed history: " + what);
  }
}
