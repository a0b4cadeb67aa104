import XCTest

@testable import NetQualityCore

final class ConnectionTrackerTests: XCTestCase {
  let timers = ConnectionTimers()

  func time(_ seconds: Double) -> CaptureTime {
    CaptureTime(nanosecondsSinceEpoch: 1_700_000_000_000_000_000 + CaptureTime.nanoseconds(seconds))
  }

  func testConnectsAtOnce() {
    var tracker = ConnectionTracker(firstSeen: time(0.5))
    let transitions = tracker.advance(
      to: time(2), lastActivity: time(1.9), endedAt: nil, timers: timers)
    XCTAssertEqual(transitions.map(\.0), [.connected])
    XCTAssertEqual(transitions.first?.1, time(0.5), "connected since first seen")
    XCTAssertEqual(tracker.state, .connected)
  }

  func testEachSilenceMarkAtTheMomentItWasCrossed() {
    var tracker = ConnectionTracker(firstSeen: time(0))
    _ = tracker.advance(to: time(2), lastActivity: time(1), endedAt: nil, timers: timers)
    // 3.999 s of silence: still connected; at 4 s exactly: interrupted.
    XCTAssertEqual(
      tracker.advance(to: time(4.999), lastActivity: time(1), endedAt: nil, timers: timers).count, 0
    )
    let interrupted = tracker.advance(
      to: time(5), lastActivity: time(1), endedAt: nil, timers: timers)
    XCTAssertEqual(interrupted.map(\.0), [.interrupted])
    XCTAssertEqual(interrupted.first?.1, time(5))
    // One long step crosses disconnected and timeout: both, each at its own moment.
    let both = tracker.advance(to: time(100), lastActivity: time(1), endedAt: nil, timers: timers)
    XCTAssertEqual(both.map(\.0), [.disconnected, .timeout])
    XCTAssertEqual(both.map(\.1), [time(13), time(61)])
    XCTAssertEqual(tracker.since, time(61))
  }

  func testTrafficComingBackRecoversAtTheFirstPacket() {
    var tracker = ConnectionTracker(firstSeen: time(0))
    _ = tracker.advance(to: time(2), lastActivity: time(1), endedAt: nil, timers: timers)
    _ = tracker.advance(to: time(20), lastActivity: time(1), endedAt: nil, timers: timers)
    XCTAssertEqual(tracker.state, .disconnected)
    let back = tracker.advance(
      to: time(22), lastActivity: time(21.9), resumedAt: time(20.5), endedAt: nil, timers: timers)
    XCTAssertEqual(back.map(\.0), [.recovered(after: .disconnected)])
    XCTAssertEqual(back.first?.1, time(20.5))
    XCTAssertEqual(tracker.state, .connected)
  }

  func testAByeAfterTheLastPacketEndsAndOneBeforeItDoesNot() {
    var tracker = ConnectionTracker(firstSeen: time(0))
    _ = tracker.advance(to: time(2), lastActivity: time(1.5), endedAt: time(1.0), timers: timers)
    XCTAssertEqual(tracker.state, .connected, "traffic after the BYE: a new session")
    let ended = tracker.advance(
      to: time(4), lastActivity: time(3), endedAt: time(3.1), timers: timers)
    XCTAssertEqual(ended.map(\.0), [.ended])
    XCTAssertEqual(tracker.since, time(3.1))
    XCTAssertEqual(
      tracker.advance(to: time(40), lastActivity: time(3), endedAt: time(3.1), timers: timers)
        .count,
      0, "an ended peer does not go silent")
  }

  func testTimesAtTheEndOfTheRangeDoNotTrap() {
    var tracker = ConnectionTracker(firstSeen: .latest)
    _ = tracker.advance(to: .latest, lastActivity: .latest, endedAt: nil, timers: timers)
    XCTAssertEqual(tracker.state, .connected)
    var early = ConnectionTracker(firstSeen: .zero)
    let transitions = early.advance(to: .latest, lastActivity: .zero, endedAt: nil, timers: timers)
    XCTAssertEqual(transitions.map(\.0), [.connected, .interrupted, .disconnected, .timeout])
  }
}
