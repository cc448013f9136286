package dev.stowage.spring;

import dev.stowage.Stowage;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Stowage in Spring Boot's actuator: the health indicator {@code stowage} ({@link
 * StowageHealthIndicator}; off with {@code management.health.stowage.enabled=false}) when {@code
 * spring-boot-health} is on the classpath, and the endpoint {@code stowage} ({@link
 * StowageEndpoint}) when the actuator is and the endpoint is available (enabled and exposed). Each
 * needs a {@link Stowage} bean, and backs off for an application's own bean of its type.
 */
@AutoConfiguration(after = StowageAutoConfiguration.class)
@ConditionalOnBean(Stowage.class)
public class StowageActuatorAutoConfiguration {

  /** The health indicator, named {@code stowage} after its bean. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  @ConditionalOnEnabledHealthIndicator("stowage")
  static class HealthIndicatorConfiguration {
    @Bean
    @ConditionalOnMissingBean(StowageHealthIndicator.class)
    StowageHealthIndicator stowageHealthIndicator(
        Stowage stowage, ObjectProvider<StowageCacheManager> managers) {
      return new StowageHealthIndicator(stowage, () -> managers.orderedStream().toList());
    }
  }

  /** The endpoint. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
  static class EndpointConfiguration {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    StowageEndpoint stowageEndpoint(Stowage stowage, ObjectProvider<StowageCacheManager> managers) {
      return new StowageEndpoint(stowage, () -> managers.orderedStream().toList());
    }
  }
}
