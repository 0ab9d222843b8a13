package dev.toolcall.conversation;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalInt;

/**
 * The options of one model request beside its messages and tools: the tool choice, the sampling temperature, the
 * output token limit, and options only one provider understands. Immutable; an unset option is left to the model
 * client's (or the provider's) default. A {@link ModelClient} maps what its provider supports and documents what it
 * ignores.
 *
 * @param toolChoice which tools the model may or must call
 * @param temperature the sampling temperature, when set: finite and in [0, 2]
 * @param maxTokens the most tokens the response may have, when set: positive
 * @param provider options for one provider, by the provider's own name (say {@code "top_k"} or
 *     {@code "reasoning_effort"}); an immutable copy in insertion order; the values should be immutable (strings,
 *     numbers, booleans, immutable lists and maps)
 */
public record ModelOptions(ToolChoice toolChoice, OptionalDouble temperature, OptionalInt maxTokens,
    Map<String, Object> provider) {

  /** No option set: the tool choice is {@link ToolChoice#auto()}, everything else the client's default. */
  public static final ModelOptions DEFAULTS = new ModelOptions(ToolChoice.auto(), OptionalDouble.empty(),
      OptionalInt.empty(), Map.of());

  /** Checks every option, naming the one that is wrong. */
  public ModelOptions {
    Objects.requireNonNull(toolChoice, "toolChoice");
    Objects.requireNonNull(temperature, "temperature");
    Objects.requireNonNull(maxTokens, "maxTokens");
    if (temperature.isPresent()) {
      double t = temperature.getAsDouble();
      if (!(t >= 0 && t <= 2)) {
        throw new IllegalArgumentException("temperature must be finite and in [0, 2]; got " + t);
      }
    }
    if (maxTokens.isPresent() && maxTokens.getAsInt() <= 0) {
      throw new IllegalArgumentException("maxTokens must be positive; got " + maxTokens.getAsInt());
    }
    Objects.requireNonNull(provider, "provider");
    LinkedHashMap<String, Object> copy = new LinkedHashMap<>();
    provider.forEach((k, v) -> {
      Checks.requireNonBlank(k, "provider option name");
      copy.put(k, Objects.requireNonNull(v, () -> "provider option '" + k + "' must not be null"));
    });
    provider = java.util.Collections.unmodifiableMap(copy);
  }

  /** A builder starting from {@link #DEFAULTS}. */
  public static Builder builder() {
    return new Builder(DEFAULTS);
  }

  /** A builder starting from these options. */
  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Builds {@link ModelOptions}; not thread-safe; each setter checks its value when {@link #build()} runs. */
  public static final class Builder {
    private ToolChoice toolChoice;
    private OptionalDouble temperature;
    private OptionalInt maxTokens;
    private final LinkedHashMap<String, Object> provider;

    private Builder(ModelOptions from) {
      this.toolChoice = from.toolChoice;
      this.temperature = from.temperature;
      this.maxTokens = from.maxTokens;
      this.provider = new LinkedHashMap<>(from.provider);
    }

    /** Which tools the model may or must call. */
    public Builder toolChoice(ToolChoice toolChoice) {
      this.toolChoice = Objects.requireNonNull(toolChoice, "toolChoice");
      return this;
    }

    /** The sampling temperature, in [0, 2]. */
    public Builder temperature(double temperature) {
      this.temperature = OptionalDouble.of(temperature);
      return this;
    }

    /** The most tokens the response may have; positive. */
    public Builder maxTokens(int maxTokens) {
      this.maxTokens = OptionalInt.of(maxTokens);
      return this;
    }

    /** One provider-specific option; a later value for the same name replaces the earlier. */
    public Builder provider(String name, Object value) {
      provider.put(Checks.requireNonBlank(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /** The options; throws {@link IllegalArgumentException} naming the first option out of range. */
    public ModelOptions build() {
      return new ModelOptions(toolChoice, temperature, maxTokens, provider);
    }
  }
}
