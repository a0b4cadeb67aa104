import NetQualityCore
import XCTest

/// Issue 25: what the ticks showed is kept as counters — a 15 s outage between two scrapes of a
/// minute shows in the seconds at level down, the transitions and the worst level of the minute.
final class LevelCountersTests: XCTestCase {
  func testAFifteenSecondOutageIsCountedWhateverTheScrapesSee() throws {
    var scenario = Scenario()
    scenario.call(seconds: 0..<30)
    scenario.idle(until: 45)
    scenario.call(seconds: 45..<60)
    scenario.idle(until: 60.5)
    let last = try XCTUnwrap(scenario.last)
    // The level shown at each tick, times the tick's interval, is the counter.
    var expectedDown = 0.0
    var shownLevels: [QualityLevel] = []
    for tick in scenario.ticks {
      guard let peer = tick.snapshot.peers.first else { continue }
      shownLevels.append(peer.rx.level)
      if peer.rx.level == .down { expectedDown += tick.snapshot.intervalSeconds }
    }
    XCTAssertEqual(expectedDown, 4, "disconnected 12 s into the 15 s of silence: two ticks")
    let counters = try XCTUnwrap(
      scenario.engine.scorer.levelCounters(of: [Scenario.peer])[Scenario.peer])
    XCTAssertEqual(counters.seconds(.rx, .down), expectedDown)
    XCTAssertEqual(counters.seconds(.tx, .down), expectedDown)
    let total = QualityLevel.allCases.map { counters.seconds(.rx, $0) }.reduce(0, +)
    XCTAssertEqual(total, Double(shownLevels.count) * 2, "every tick counted once")
    // The fleet's counters agree, and count the transitions.
    XCTAssertEqual(last.counters.seconds(.rx, .down), expectedDown)
    XCTAssertEqual(last.counters.transitions["disconnected"], 1)
    XCTAssertEqual(last.counters.transitions["recovered"], 1)
    XCTAssertEqual(last.counters.transitions["interrupted"], 1)
    XCTAssertEqual(last.counters.alertsFired["peer_disconnected"], 1)
    // The gauge for scrapes a minute apart: down seen in this or the previous minute, although
    // the level now is excellent.
    XCTAssertEqual(last.peers.first?.rx.level, .excellent)
    XCTAssertEqual(counters.worstLevel(.rx), .down)
    // While interrupted nothing flows: no MOS (issue 26: an interrupted peer showed 4.39).
    let interrupted = scenario.ticks.compactMap(\.snapshot.peers.first).filter {
      $0.state == .interrupted
    }
    XCTAssertFalse(interrupted.isEmpty)
    XCTAssertTrue(
      interrupted.allSatisfy { $0.rx.meanOpinionScore == nil && $0.tx.meanOpinionScore == nil })
    XCTAssertNotNil(last.peers.first?.rx.meanOpinionScore, "and again once it flows")
  }
}
