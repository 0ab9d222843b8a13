package dev.toolcall.micrometer;

import io.micrometer.observation.ObservationRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot auto-configuration of {@link ToolCallObservations}: when Micrometer's {@code ObservationRegistry} is on
 * the class path and a bean (Spring Boot Actuator defines one), a {@code ToolCallObservations} bean on it, which the
 * runtime that {@code dev.toolcall.springai.ToolCallAutoConfiguration} builds installs as its instrumentation. Its
 * timers then show in Actuator's metrics and its observations in the application's tracing. Runs after Boot's
 * observation auto-configuration (Boot 3.5 and 4) and before the runtime's. Backs off when the application defines a
 * {@code ToolCallObservations} bean; an application that defines its own {@code ToolCallRuntime} bean installs this
 * one itself ({@code .instrumentation(observations)}), on that one runtime. Switch the observations off with
 * {@code management.observations.enable.gen_ai.execute_tool=false} and
 * {@code management.observations.enable.toolcall=false}. Registered in
 * {@code META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports}.
 */
@AutoConfiguration(
    afterName = {"org.springframework.boot.actuate.autoconfigure.observation.ObservationAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration"},
    beforeName = "dev.toolcall.springai.ToolCallAutoConfiguration")
@ConditionalOnClass(ObservationRegistry.class)
@ConditionalOnBean(ObservationRegistry.class)
public class ToolCallObservationAutoConfiguration {

  /** Created by Spring. */
  public ToolCallObservationAutoConfiguration() {}

  /** The observations on the application's registry, for the one runtime the application's context builds. */
  @Bean
  @ConditionalOnMissingBean
  public ToolCallObservations toolCallObservations(ObservationRegistry observationRegistry) {
    return ToolCallObservations.create(observationRegistry);
  }
}
