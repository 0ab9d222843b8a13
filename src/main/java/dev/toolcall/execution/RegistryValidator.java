package dev.toolcall.execution;

import dev.toolcall.tool.Tool;
import dev.toolcall.tool.ToolArguments;
import dev.toolcall.tool.ToolCallValidation;
import dev.toolcall.tool.ToolCallValidator;

/** The scheduler's validation through the tool package's {@link ToolCallValidator}. */
final class RegistryValidator implements Validator {
  private final ToolCallValidator validator;

  RegistryValidator(ToolCallValidator validator) {
    this.validator = validator;
  }

  @Override
  public Validation validate(String toolName, String rawArguments) {
    return adapt(validator.validate(toolName, rawArguments), rawArguments);
  }

  @Override
  public Validation revalidate(Tool tool, ToolArguments arguments) {
    return adapt(validator.validate(tool.name(), arguments), arguments.raw());
  }

  private static Validation adapt(ToolCallValidation v, String raw) {
    if (v instanceof ToolCallValidation.Valid ok) {
      return new Valid(ok.tool(), ok.arguments());
    }
    ToolCallValidation.Invalid bad = (ToolCallValidation.Invalid) v;
    return new Invalid(bad.kind(), bad.message(), null, ToolArguments.ofText(raw == null ? "" : raw));
  }
}
