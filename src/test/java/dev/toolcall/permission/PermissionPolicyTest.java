package dev.toolcall.permission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.toolcall.ToolArguments;
import java.util.List;
import org.junit.jupiter.api.Test;

class PermissionPolicyTest {

  private static ToolArguments text(String s) {
    return ToolArguments.ofText(s);
  }

  @Test
  void ruleStringFormsParseAndPrintBack() {
    for (String form : List.of("shell", "shell(npm test:*)", "shell(git status)", "mcp__github__*")) {
      assertThat(PermissionRule.allow(form).form()).isEqualTo(form);
    }
    assertThat(PermissionRule.deny("shell(*)").arguments()).isEqualTo(ArgumentPattern.ANY);
    assertThat(PermissionRule.ask("shell(npm test:*)").arguments())
        .isEqualTo(new ArgumentPattern(ArgumentPattern.Kind.PREFIX, "npm test"));
    assertThatThrownBy(() -> PermissionRule.allow("shell(ls")).hasMessageContaining("tool(arguments)");
    assertThatThrownBy(() -> PermissionRule.allow("(ls)")).hasMessageContaining("blank");
    assertThatThrownBy(() -> PermissionRule.allow(" ")).hasMessageContaining("blank");
  }

  @Test
  void prefixMatchesAtAWordBoundaryAndNeverAcrossShellOperators() {
    ArgumentPattern p = ArgumentPattern.parse("npm test:*");
    assertThat(p.matches(text("npm test"))).isTrue();
    assertThat(p.matches(text("npm test --watch"))).isTrue();
    assertThat(p.matches(text("npm tests"))).isFalse();
    assertThat(p.matches(text("npm"))).isFalse();
    for (String evil : List.of("npm test; rm -rf /", "npm test && rm x", "npm test | sh", "npm test `rm`",
        "npm test $(rm)", "npm test > /etc/passwd", "npm test\nrm -rf /", "npm test & rm")) {
      assertThat(p.matches(text(evil))).as(evil).isFalse();
    }
    assertThat(p.matches(ToolArguments.ofList(List.of("npm", "test", "-x")))).isTrue();
    assertThat(p.matches(ToolArguments.ofJson(JsonNodeFactory.instance.objectNode().put("command", "npm test"))))
        .isTrue();
    assertThat(ArgumentPattern.exact("ls").matches(text("ls -la"))).isFalse();
    assertThat(ArgumentPattern.exact("ls").matches(text("ls"))).isTrue();
  }

  @Test
  void globsMatchOnlyToolNameCharacters() {
    PermissionRule r = PermissionRule.allow("mcp__*");
    assertThat(r.matches("mcp__github__create", text(""))).isTrue();
    assertThat(r.matches("mcp__git\u200bhub", text(""))).isFalse();
    assertThat(r.matches("MCP__github", text(""))).isFalse();
    assertThat(PermissionRule.allow("*_file").matches("write_file", text(""))).isTrue();
    assertThat(PermissionRule.allow("*_file").matches("write_fil", text(""))).isFalse();
    assertThat(PermissionRule.allow("a*b*c").matches("a-x-b_y_c", text(""))).isTrue();
  }

  @Test
  void noRuleMeansAsk() {
    PermissionPolicy.Verdict v = PermissionPolicy.empty().evaluate("shell", text("ls"));
    assertThat(v.effect()).isEqualTo(PermissionRule.Effect.ASK);
    assertThat(v.rule()).isEmpty();
  }

  @Test
  void askBeatsAllowAndFirstAddedIsReportedAtEqualRank() {
    PermissionPolicy p = PermissionPolicy.builder().allow("shell").ask("shell(git push:*)").allow("shell(git:*)")
        .build();
    assertThat(p.evaluate("shell", text("git push")).effect()).isEqualTo(PermissionRule.Effect.ASK);
    assertThat(p.evaluate("shell", text("git status")).rule().orElseThrow().form()).isEqualTo("shell");
  }
}
