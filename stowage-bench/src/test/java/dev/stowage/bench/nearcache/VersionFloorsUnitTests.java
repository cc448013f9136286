package dev.stowage.bench.nearcache;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class VersionFloorsUnitTests {

  @Test
  void aReadOlderThanTheFloorItStartedWithIsStale() {
    VersionFloors floors = new VersionFloors(new long[] {1, 1});
    floors.observed(0, 3);

    long started = floors.beforeRead(0);
    assertThat(floors.afterRead(started, 2)).isTrue();
    assertThat(floors.afterRead(started, 3)).isFalse();
    assertThat(floors.afterRead(started, 4)).isFalse();
    assertThat(floors.afterRead(floors.beforeRead(1), 1)).isFalse();

    assertThat(floors.staleReads()).isEqualTo(1);
    assertThat(floors.staleReadsAfterTimeout()).isZero();
  }

  @Test
  void aReadThatStartedBeforeTheFloorRoseIsNotStale() {
    VersionFloors floors = new VersionFloors(new long[] {5});
    long started = floors.beforeRead(0);
    floors.observed(0, 6);

    assertThat(floors.afterRead(started, 5)).isFalse();
    assertThat(floors.staleReads()).isZero();
  }

  @Test
  void aFloorRaisedByATimeoutCountsItsStaleReadsApart() {
    VersionFloors floors = new VersionFloors(new long[] {1});
    floors.timedOut(0, 2);

    assertThat(floors.floor(0)).isEqualTo(2);
    assertThat(floors.afterRead(floors.beforeRead(0), 1)).isTrue();
    assertThat(floors.staleReads()).isZero();
    assertThat(floors.staleReadsAfterTimeout()).isEqualTo(1);

    floors.observed(0, 3);
    assertThat(floors.afterRead(floors.beforeRead(0), 2)).isTrue();
    assertThat(floors.staleReads()).isEqualTo(1);
  }

  @Test
  void floorsNeverGoDown() {
    VersionFloors floors = new VersionFloors(new long[] {1});
    floors.observed(0, 5);
    floors.observed(0, 3);
    floors.timedOut(0, 4);

    assertThat(floors.floor(0)).isEqualTo(5);
    assertThat(floors.afterRead(floors.beforeRead(0), 4)).isTrue();
    assertThat(floors.staleReads()).as("the floor of 5 was observed, not timed out").isEqualTo(1);
  }

  @Test
  void resettingTheCountsKeepsTheFloors() {
    VersionFloors floors = new VersionFloors(new long[] {7});
    floors.afterRead(floors.beforeRead(0), 6);
    floors.resetCounts();

    assertThat(floors.staleReads()).isZero();
    assertThat(floors.floor(0)).isEqualTo(7);
  }
}
