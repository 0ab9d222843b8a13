package dev.toolcall;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.InvalidDefinitionException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.util.Objects;

/** {@link ToolArguments#as}: data binding with errors written for the model. */
final class TypedArguments {

  /** Strict about unknown properties and about floats for integers; never mutated after this, so shared. */
  static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);

  private TypedArguments() {}

  static <T> T read(JsonNode node, Class<T> type, ObjectMapper mapper) throws ToolException {
    Objects.requireNonNull(type, "type");
    try {
      return mapper.treeToValue(node, type);
    } catch (UnrecognizedPropertyException e) {
      throw ToolException.invalidArguments("The arguments have a property this tool does not take: '"
          + e.getPropertyName() + "'" + where(e) + ". Known properties: " + e.getKnownPropertyIds() + ".", e);
    } catch (MismatchedInputException e) {
      throw ToolException.invalidArguments("The arguments do not fit this tool's parameters" + where(e) + ": expected "
          + describe(e.getTargetType()) + ".", e);
    } catch (InvalidDefinitionException e) {
      throw new IllegalArgumentException("type " + type.getName() + " cannot be read from JSON by the mapper: "
          + e.getOriginalMessage(), e);
    } catch (JsonProcessingException e) {
      throw ToolException.invalidArguments("The arguments do not fit this tool's parameters" + where(e) + ": "
          + e.getOriginalMessage() + ".", e);
    }
  }

  private static String where(Exception e) {
    if (!(e instanceof JsonMappingException m) || m.getPath().isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder(" at ");
    for (JsonMappingException.Reference r : m.getPath()) {
      if (r.getFieldName() != null) {
        if (b.length() > 4) {
          b.append('.');
        }
        b.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        b.append('[').append(r.getIndex()).append(']');
      }
    }
    return b.length() > 4 ? b.toString() : "";
  }

  private static String describe(Class<?> t) {
    if (t == null) {
      return "another type";
    }
    if (t == String.class || t == Character.class || t == char.class) {
      return "a string";
    }
    if (t == boolean.class || t == Boolean.class) {
      return "true or false";
    }
    if (t == int.class || t == Integer.class || t == long.class || t == Long.class || t == short.class
        || t == Short.class || t == java.math.BigInteger.class) {
      return "an integer";
    }
    if (Number.class.isAssignableFrom(t) || t == double.class || t == float.class) {
      return "a number";
    }
    if (t.isArray() || java.util.Collection.class.isAssignableFrom(t)) {
      return "an array";
    }
    return "an object";
  }
}
