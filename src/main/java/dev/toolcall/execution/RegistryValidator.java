package dev.toolcall.execution;

import dev.toolcall.tool.Tool;
import dev.toolcall.ToolArguments;
import dev.toolcall.tool.ToolCallValidation;
import dev.toolcall.tool.ToolCallValidator;
import dev.toolcall.tool.ToolRegistry;
import dev.toolcall.ToolResult;

/** The scheduler's validation through the tool package's {@link ToolCallValidator}. */
final class RegistryValidator implements Validator {
  private volatile ToolCallValidator validator;

  RegistryValidator(ToolCallValidator validator) {
    this.validator = validator;
  }

  /** The current tool set. */
  ToolRegistry registry() {
    return validator.registry();
  }

  /** Validates later calls against {@code registry}; calls validated before keep their tools. */
  void use(ToolRegistry registry) {
    validator = validator.withRegistry(registry);
  }

  @Override
  public Validation validate(String toolName, String rawArguments) {
    return adapt(validator.validate(toolName, rawArguments), rawArguments);
  }

  @Override
  public Validation revalidate(Tool tool, ToolArguments arguments) {
    ToolCallValidator v = validator;
    if (v.registry().find(tool.name()).orElse(null) != tool) { // replaced or removed since: the call keeps its tool
      v = ToolCallValidator.of(ToolRegistry.of(tool), v.limits());
    }
    return adapt(v.validate(tool.name(), arguments), arguments.raw());
  }

  @Override
  public Invalid checkResult(Tool tool, ToolResult result) {
    return validator.validateResult(tool, result)
        .map(bad -> new Invalid(bad.kind(), bad.message(), tool, ToolArguments.empty())).orElse(null);
  }

  @Override
  public String canonicalName(String toolName) {
    return validator.registry().canonicalName(toolName);
  }

  private static Validation adapt(ToolCallValidation v, String raw) {
    if (v instanceof ToolCallValidation.Valid ok) {
      return new Valid(ok.tool(), ok.arguments());
    }
    ToolCallValidation.Invalid bad = (ToolCallValidation.Invalid) v;
    return new Invalid(bad.kind(), bad.message(), null, ToolArguments.ofText(raw == null ? "" : raw));
  }
}
