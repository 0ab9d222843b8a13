package dev.toolcall.springai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/**
 * The jar carries {@code META-INF/spring-configuration-metadata.json} for every {@code toolcall.*} property, as the
 * build's configuration processor wrote it from {@link ToolCallProperties}: each property Boot binds has its entry, a
 * description and (where it has one) its default. Read from the main classes' location, which is what the jar holds.
 */
class ConfigurationMetadataTest {

  static JsonNode metadata() throws Exception {
    Path classes = Path.of(ToolCallProperties.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    URL url = classes.resolve("META-INF/spring-configuration-metadata.json").toUri().toURL();
    try (InputStream in = url.openStream()) {
      return new ObjectMapper().readTree(in);
    }
  }

  /** Every leaf property of the bean, by its kebab-case name under {@code prefix}. */
  static List<String> leaves(Class<?> type, String prefix) throws Exception {
    List<String> out = new ArrayList<>();
    for (PropertyDescriptor p : Introspector.getBeanInfo(type, Object.class).getPropertyDescriptors()) {
      String name = prefix + "." + p.getName().replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase();
      if (p.getPropertyType().getName().startsWith("dev.toolcall.")) {
        out.addAll(leaves(p.getPropertyType(), name));
      } else {
        out.add(name);
      }
    }
    return out;
  }

  @Test
  void everyBoundPropertyIsInTheMetadataWithItsDescription() throws Exception {
    Map<String, JsonNode> byName = new HashMap<>();
    metadata().get("properties").forEach(p -> byName.put(p.get("name").asText(), p));
    List<String> bound = leaves(ToolCallProperties.class, ToolCallProperties.PREFIX);
    assertThat(bound).containsExactlyInAnyOrder("toolcall.tool-timeout", "toolcall.permission-timeout",
        "toolcall.read-only-tools", "toolcall.auto-approved-tools", "toolcall.spring-ai.enabled",
        "toolcall.spring-ai.max-wait", "toolcall.spring-ai.chat-client.enabled");
    assertThat(byName.keySet()).containsExactlyInAnyOrderElementsOf(bound);
    for (String name : bound) {
      assertThat(byName.get(name).path("description").asText()).as(name).hasSizeGreaterThan(20);
    }
    assertThat(byName.get("toolcall.permission-timeout").get("defaultValue").asText()).isEqualTo("5m");
    assertThat(byName.get("toolcall.spring-ai.max-wait").get("defaultValue").asText()).isEqualTo("10m");
    assertThat(byName.get("toolcall.spring-ai.enabled").get("defaultValue").asBoolean()).isFalse();
    assertThat(byName.get("toolcall.spring-ai.chat-client.enabled").get("defaultValue").asBoolean()).isTrue();
  }

  /** The names in the metadata are the names Boot binds: each one set here arrives in the bean. */
  @Test
  void theNamesAreTheOnesBootBinds() {
    Map<String, String> set = Map.of("toolcall.tool-timeout", "30s", "toolcall.permission-timeout", "2m",
        "toolcall.read-only-tools", "stock,price", "toolcall.auto-approved-tools", "search",
        "toolcall.spring-ai.enabled", "true", "toolcall.spring-ai.max-wait", "1m",
        "toolcall.spring-ai.chat-client.enabled", "false");
    ToolCallProperties p = new Binder(new MapConfigurationPropertySource(set))
        .bind(ToolCallProperties.PREFIX, ToolCallProperties.class).get();
    assertThat(p.getToolTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(p.getPermissionTimeout()).isEqualTo(Duration.ofMinutes(2));
    assertThat(p.getReadOnlyTools()).containsExactly("stock", "price");
    assertThat(p.getAutoApprovedTools()).containsExactly("search");
    assertThat(p.getSpringAi().isEnabled()).isTrue();
    assertThat(p.getSpringAi().getMaxWait()).isEqualTo(Duration.ofMinutes(1));
    assertThat(p.getSpringAi().getChatClient().isEnabled()).isFalse();
  }
}
