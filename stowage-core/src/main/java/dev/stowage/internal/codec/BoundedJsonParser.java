package dev.stowage.internal.codec;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import dev.stowage.CodecException;
import dev.stowage.StowageException;
import java.io.IOException;
import java.lang.reflect.Type;
import org.jspecify.annotations.Nullable;

/**
 * A JSON parser that counts the elements Jackson reads from it (every value, container or scalar,
 * and every property name; the ends of containers are not elements) against the {@link
 * DecodeLimits} of the decode running on this thread, and charges their estimated heap to that
 * decode's budget in steps of {@link DecodeLimits#CHARGE_THRESHOLD} as they are read. JSON needs at
 * least two bytes an element, so its strings are bounded by the payload itself; its elements are
 * not, and each builds an object.
 *
 * <p>Counting happens in {@link #nextToken()}: Jackson's other {@code next...} methods go through
 * it, and {@link #nextValue()} is re-implemented on it. Tokens {@linkplain #skipChildren() skipped}
 * build nothing and are not counted. Belongs to one decode.
 */
final class BoundedJsonParser extends JsonParserDelegate {
  /** Elements charged at once: their estimate is the charge threshold. */
  private static final long STEP = DecodeLimits.CHARGE_THRESHOLD / DecodeLimits.HEAP_PER_ELEMENT;

  private final DecodeLimits.Scope scope;
  private final long maxElements;
  private long elements;

  BoundedJsonParser(JsonParser parser, DecodeLimits.Scope scope) {
    super(parser);
    this.scope = scope;
    this.maxElements = scope.limits().maxElements();
  }

  @Override
  public @Nullable JsonToken nextToken() throws IOException {
    JsonToken token = delegate.nextToken();
    if (token != null && token != JsonToken.END_ARRAY && token != JsonToken.END_OBJECT) {
      elements++;
      if (elements > maxElements) {
        throw new ElementLimit(
            scope
                .limits()
                .tooManyElements(
                    "the value reaches "
                        + elements
                        + " elements at "
                        + delegate.currentTokenLocation().offsetDescription()));
      }
      if (elements % STEP == 0) {
        scope.charge(STEP * DecodeLimits.HEAP_PER_ELEMENT);
      }
    }
    return token;
  }

  @Override
  public @Nullable JsonToken nextValue() throws IOException {
    JsonToken token = nextToken();
    return token == JsonToken.FIELD_NAME ? nextToken() : token;
  }

  /**
   * The exception a JSON codec throws for {@code failure} of Jackson's: a refusal naming the limit
   * for a value past the element limit, the budget's own exception when the decode found no room in
   * it, else the codec's usual decode failure.
   */
  @SuppressWarnings("ReferenceEquality") // a cause that is the exception itself ends the chain
  static StowageException failure(String codec, Type type, int length, Exception failure) {
    for (Throwable cause = failure;
        cause != null;
        cause = cause.getCause() == cause ? null : cause.getCause()) {
      if (cause instanceof ElementLimit limit) {
        return CodecFailures.refused(codec, type, length, limit.getOriginalMessage(), failure);
      }
      if (cause instanceof StowageException stowage && !(cause instanceof CodecException)) {
        return stowage;
      }
    }
    return CodecFailures.decode(codec, type, length, failure);
  }

  /** A value with more elements than its limits allow. */
  private static final class ElementLimit extends StreamConstraintsException {
    private static final long serialVersionUID = 1L;

    ElementLimit(String message) {
      super(message);
    }
  }
}
