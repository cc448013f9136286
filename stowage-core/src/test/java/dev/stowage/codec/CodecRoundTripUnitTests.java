package dev.stowage.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.stowage.Codec;
import dev.stowage.internal.format.CodecIds;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CodecRoundTripUnitTests {

  static Stream<CodecCase<?>> cases() {
    return CodecCases.all();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  <T> void generatedValuesRoundTrip(CodecCase<T> c) {
    Codec<T> codec = c.codec().get();
    for (T value : c.generated()) {
      CodecRoundTrip.assertRoundTrip(codec, value);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  <T> void edgeCasesRoundTrip(CodecCase<T> c) {
    Codec<T> codec = c.codec().get();
    for (T value : c.edgeCases()) {
      CodecRoundTrip.assertRoundTrip(codec, value);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  <T> void carriesTheIdAndNameOfItsFormat(CodecCase<T> c) {
    Codec<T> codec = c.codec().get();
    String format = c.name().split(" ")[0].replace("-compact", "");
    assertThat(codec.id()).isEqualTo(CodecIds.forName(format));
    assertThat(codec.name()).isEqualTo(format);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  <T> void manyThreadsShareOneCodec(CodecCase<T> c) throws Exception {
    Codec<T> codec = c.codec().get();
    List<T> values = c.generated();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int start = t;
        results.add(
            pool.submit(
                () -> {
                  int checked = 0;
                  for (int round = 0; round < 200; round++) {
                    T value = values.get((start + round) % values.size());
                    byte[] bytes = codec.encode(value);
                    assertThat(codec.decode(bytes, 0, bytes.length)).isEqualTo(value);
                    checked++;
                  }
                  return checked;
                }));
      }
      for (Future<Integer> result : results) {
        assertThat(result.get()).isEqualTo(200);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
