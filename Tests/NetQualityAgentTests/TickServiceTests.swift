import Foundation
import NetQualityCore
import Synchronization
import XCTest

@testable import NetQualityAgent

/// Issue 31: the ticker cannot be starved by requests and never leaves the grid.
final class TickServiceTests: XCTestCase {
  /// Records when each tick was published, on the clock the test reads.
  final class RecordingSink: TickSink {
    var name: String { "recording" }
    let published = Mutex<[(at: ContinuousClock.Instant, time: CaptureTime)]>([])
    func publish(_ tick: TickPublication) {
      published.withLock { $0.append((ContinuousClock.now, tick.result.snapshot.time)) }
    }
  }

  let second: Int64 = 1_000_000_000

  func testAnOnTimeTickClosesItsScheduledBoundary() {
    let scheduled = 1_795_306_142 * second
    let (boundary, skipped) = TickService.boundary(
      scheduled: scheduled, reading: scheduled + 1_000_000, interval: 2 * second)
    XCTAssertEqual(boundary, scheduled)
    XCTAssertEqual(skipped, 0)
    // Late by less than an interval: still its own boundary.
    XCTAssertEqual(
      TickService.boundary(
        scheduled: scheduled, reading: scheduled + 2 * second - 1, interval: 2 * second
      ).boundary, scheduled)
  }

  func testATickThatWokeTenSecondsLateClosesTheLatestBoundaryAndCountsTheOthers() {
    let interval = 2 * second
    let scheduled = 1_795_306_142 * second
    let reading = scheduled + 10 * second + 300_000_000
    let (boundary, skipped) = TickService.boundary(
      scheduled: scheduled, reading: reading, interval: interval)
    XCTAssertEqual(boundary, scheduled + 10 * second)
    XCTAssertEqual(boundary % interval, 0, "on the grid")
    XCTAssertLessThan(reading - boundary, interval, "within a tick of the wall clock")
    XCTAssertEqual(skipped, 5)
  }

  /// A process continued just after a later boundary wakes near that boundary: late against its
  /// schedule all the same, so the tick waits for the captures to read the stop's backlog (a CI
  /// run's tick woke 0.128 s after the boundary it closed, read none of it, and a peer went
  /// "interrupted" for packets still in the kernel's ring).
  func testATickContinuedJustAfterALaterBoundaryIsLate() {
    let interval = 2 * second
    let scheduled = 1_795_306_142 * second
    let woke = scheduled + 10 * second + 128_000_000
    let (boundary, _) = TickService.boundary(
      scheduled: scheduled, reading: woke, interval: interval)
    XCTAssertLessThan(woke - boundary, TickService.lateNanoseconds, "near the boundary it closes")
    XCTAssertTrue(TickService.isLate(scheduled: scheduled, woke: woke))
    XCTAssertFalse(TickService.isLate(scheduled: scheduled, woke: scheduled + 2_000_000))
  }

  /// The ticker on its own thread: with every thread of the concurrency pool blocked (what
  /// twenty slow history queries did), ticks go on at their interval.
  func testTicksGoOnWhileTheConcurrencyPoolIsBlocked() async throws {
    let state = HTTPRoutesTests.tickedState()
    var configuration = state.scorer.withLock { $0.configuration }
    configuration.tickIntervalSeconds = 0.2
    state.reconfigure(configuration)
    let sink = RecordingSink()
    let ticker = TickService(state: state, sinks: [sink])
    let running = Task { try await ticker.run() }
    defer { running.cancel() }
    // Wait for a first tick so the thread is up.
    let deadline = ContinuousClock.now + .seconds(10)
    while sink.published.withLock({ $0.isEmpty }) {
      guard ContinuousClock.now < deadline else { return XCTFail("no tick at all") }
      try await Task.sleep(for: .milliseconds(10))
    }
    // Block every pool thread (and more) for 2 s, as blocking queries would.
    let blocked = ContinuousClock.now
    let blockers = (0..<(2 * ProcessInfo.processInfo.activeProcessorCount)).map { _ in
      Task.detached { _ = usleep(2_000_000) }
    }
    for blocker in blockers { await blocker.value }
    let released = ContinuousClock.now
    let during = sink.published.withLock { ticks in
      ticks.filter { $0.at > blocked && $0.at < released }
    }
    // 2 s of 0.2 s ticks: ten boundaries; allow for the edges and a loaded machine.
    XCTAssertGreaterThanOrEqual(during.count, 7, "ticks while the pool was blocked")
    let times = during.map(\.time.nanosecondsSinceEpoch)
    XCTAssertTrue(times.allSatisfy { $0 % 200_000_000 == 0 }, "on the grid: \(times)")
    running.cancel()
    _ = try? await running.value
  }

  /// Issue 37: every tick is in the completion histogram and the phase counters the next
  /// publication carries, so Prometheus recovers a late tick at any scrape interval.
  func testEveryTickIsCountedInTheCompletionHistogramAndThePhaseTotals() {
    final class TimingSink: TickSink {
      var name: String { "timing" }
      let timings = Mutex<[TickTiming]>([])
      func publish(_ tick: TickPublication) { timings.withLock { $0.append(tick.timing) } }
    }
    let state = HTTPRoutesTests.tickedState()
    let sink = TimingSink()
    let ticker = TickService(state: state, sinks: [sink])
    let start = state.read { $0.lastTick?.snapshot.time } ?? CaptureTime(nanosecondsSinceEpoch: 0)
    // A tick that started 3 s after its boundary, then two on time.
    for (index, late) in [3.0, 0, 0].enumerated() {
      ticker.tick(at: start.advanced(bySeconds: 2 * Double(index + 1)), lateSeconds: late)
    }
    let timings = sink.timings.withLock { $0 }
    XCTAssertEqual(timings.count, 3)
    let third = timings[2]
    XCTAssertEqual(third.completion.count, 2, "the two ticks before the third")
    let bounds = third.completion.boundsSeconds
    let cumulative = third.completion.cumulativeCounts
    let atMostTwoSeconds = cumulative[bounds.firstIndex(of: 2) ?? 0]
    XCTAssertLessThanOrEqual(atMostTwoSeconds, 1, "the late tick is above 2 s")
    XCTAssertEqual(cumulative[bounds.firstIndex(of: 5) ?? 0], 2)
    XCTAssertGreaterThanOrEqual(third.completion.sumSeconds, 3)
    XCTAssertEqual(third.scoreSecondsTotal, timings[0].scoreSeconds + timings[1].scoreSeconds)
    XCTAssertEqual(
      third.harvestSecondsTotal, timings[0].harvestSeconds + timings[1].harvestSeconds)
    XCTAssertEqual(timings[0].completion.count, 0, "nothing before the first")
  }
}
