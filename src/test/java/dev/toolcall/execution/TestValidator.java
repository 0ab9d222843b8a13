package dev.toolcall.execution;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.toolcall.FailureKind;
import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import java.util.LinkedHashMap;
import java.util.Map;

/** A minimal validator for scheduler tests: exact name lookup, JSON parse, a "required" list check. */
final class TestValidator implements Validator {
  private static final ObjectMapper M = new ObjectMapper();
  private final Map<String, Tool> tools = new LinkedHashMap<>();

  TestValidator(Tool... tools) {
    for (Tool t : tools) {
      this.tools.put(t.name(), t);
    }
  }

  @Override
  public Validation validate(String toolName, String raw) {
    Tool tool = tools.get(toolName);
    if (tool == null) {
      return new Invalid(FailureKind.UNKNOWN_TOOL, "Unknown tool '" + toolName + "'.", null,
          ToolArguments.ofText(raw));
    }
    JsonNode node;
    try {
      node = raw.isBlank() ? M.createObjectNode() : M.readTree(raw);
    } catch (Exception e) {
      return new Invalid(FailureKind.MALFORMED_ARGUMENTS, "Malformed JSON.", tool, ToolArguments.ofText(raw));
    }
    return revalidate(tool, new ToolArguments.Json(raw, node));
  }

  @Override
  public Validation revalidate(Tool tool, ToolArguments args) {
    JsonNode required = tool.definition().parameters().get("required");
    if (required != null && args instanceof ToolArguments.Json j) {
      for (JsonNode r : required) {
        if (!j.node().has(r.asText())) {
          return new Invalid(FailureKind.INVALID_ARGUMENTS, "missing " + r.asText(), tool, args);
        }
      }
    }
    return new Valid(tool, args);
  }
}
