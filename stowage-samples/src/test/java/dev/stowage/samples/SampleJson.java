package dev.stowage.samples;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

/** Jackson as the seed configured it: an ObjectMapper with the java.time module. */
final class SampleJson {
  static final ObjectMapper MAPPER = new ObjectMapper().registerModule(new JavaTimeModule());

  private SampleJson() {}
}
