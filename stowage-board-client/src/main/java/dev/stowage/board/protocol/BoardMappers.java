package dev.stowage.board.protocol;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import org.msgpack.jackson.dataformat.MessagePackMapper;

/**
 * The mappers of the board's bodies, shared by the service and its client so that both read and
 * write posts alike: the seed's JSON names and {@code yyyy-MM-dd HH:mm:ss} dates ({@link Board}),
 * unknown properties ignored, and no coercion (a number or boolean is not a text field, and 1.5 is
 * not a member id). Each call makes a new mapper, which the caller may share: Jackson's mappers are
 * thread-safe once configured.
 */
public final class BoardMappers {
  private BoardMappers() {}

  /** A new JSON mapper. */
  public static ObjectMapper json() {
    return configure(JsonMapper.builder().build());
  }

  /** A new MessagePack mapper, configured like {@link #json()}. */
  public static ObjectMapper msgpack() {
    ObjectMapper mapper = configure(new MessagePackMapper());
    // MessagePack's parser reports the end of input as an error, not as "no more tokens".
    mapper.configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, false);
    return mapper;
  }

  private static ObjectMapper configure(ObjectMapper mapper) {
    mapper.registerModule(new JavaTimeModule());
    mapper.configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
    mapper.configure(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES, true);
    mapper.configure(DeserializationFeature.FAIL_ON_TRAILING_TOKENS, true);
    mapper.configure(MapperFeature.ALLOW_COERCION_OF_SCALARS, false);
    // A number or boolean is not a text field, and 1.5 is not a member id.
    mapper.configure(DeserializationFeature.ACCEPT_FLOAT_AS_INT, false);
    mapper
        .coercionConfigFor(LogicalType.Textual)
        .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
        .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
    return mapper;
  }
}
