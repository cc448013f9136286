package dev.stowage.board;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.codec.json.AbstractJackson2Encoder;
import org.springframework.util.MimeType;
import reactor.core.publisher.Flux;

/**
 * Lets WebFlux write {@code application/msgpack} with a Jackson {@code MessagePackMapper}, the way
 * the seed's service answered in MessagePack. Single values only (no streaming).
 */
final class MsgpackEncoder extends AbstractJackson2Encoder {
  MsgpackEncoder(ObjectMapper mapper) {
    super(mapper, BoardFormats.MSGPACK, MimeType.valueOf("application/x-msgpack"));
  }

  @Override
  public Flux<DataBuffer> encode(
      Publisher<?> inputStream,
      DataBufferFactory bufferFactory,
      ResolvableType elementType,
      @Nullable MimeType mimeType,
      @Nullable Map<String, Object> hints) {
    return Flux.from(inputStream)
        .map(value -> encodeValue(value, bufferFactory, elementType, mimeType, hints));
  }
}
