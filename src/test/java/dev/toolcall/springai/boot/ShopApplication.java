package dev.toolcall.springai.boot;

// README:begin boot-application
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.tool.ToolCallbackProvider;
import org.springframework.ai.tool.annotation.Tool;
import org.springframework.ai.tool.method.MethodToolCallbackProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.stereotype.Component;

@SpringBootApplication
public class ShopApplication {

  public static void main(String[] args) {
    SpringApplication.run(ShopApplication.class, args);
  }

  @Component
  public static class Shop {
    public final List<String> deployed = new CopyOnWriteArrayList<>();

    @Tool(description = "Deploys the shop to an environment")
    public String deploy(String env) {
      deployed.add(env);
      return "deployed to " + env;
    }
  }

  @Bean // the tools, as Spring AI has them
  ToolCallbackProvider shopTools(Shop shop) {
    return MethodToolCallbackProvider.builder().toolObjects(shop).build();
  }

  @Bean // from Boot's builder: it offers the tool beans, and each conversation's calls run in its own session
  ChatClient chatClient(ChatClient.Builder builder) {
    return builder.build();
  }
}
// README:end boot-application
