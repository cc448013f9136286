package dev.stowage.bench.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.stowage.bench.BenchmarkRunException;
import org.junit.jupiter.api.Test;

class WrkUnitTests {

  @Test
  void readsRequestsPerSecondAndTheP99() {
    String output =
        """
        Running 2s test @ http://127.0.0.1:18765/
          2 threads and 20 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency    24.29ms   79.29ms 847.22ms   95.09%
            Req/Sec   470.63    180.46   830.00     66.67%
          Latency Distribution
             50%    8.55ms
             75%   11.62ms
             90%   15.64ms
             99%  429.64ms
          1441 requests in 2.00s, 1.43MB read
        Requests/sec:    718.91
        Transfer/sec:    730.15KB
        """;
    Wrk.Result result = Wrk.parse(output);
    assertThat(result.requestsPerSecond()).isEqualTo(718.91);
    assertThat(result.p99Millis()).isEqualTo(429.64);
    assertThat(result.errors()).isZero();
  }

  @Test
  void countsErrorResponsesAndSocketErrorsAndConvertsUnits() {
    String output =
        """
          Latency Distribution
             50%  812.00us
             99%    1.20s
          Socket errors: connect 3, read 4, write 0, timeout 5
          Non-2xx or 3xx responses: 17
        Requests/sec:  12000.50
        """;
    Wrk.Result result = Wrk.parse(output);
    assertThat(result.requestsPerSecond()).isEqualTo(12000.5);
    assertThat(result.p99Millis()).isEqualTo(1200.0);
    assertThat(result.errors()).isEqualTo(29);
  }

  @Test
  void anOutputWithoutRequestsPerSecondIsAFailureThatShowsIt() {
    assertThatThrownBy(() -> Wrk.parse("unable to connect to 127.0.0.1:1 Connection refused"))
        .isInstanceOf(BenchmarkRunException.class)
        .hasMessageContaining("Connection refused");
  }
}
