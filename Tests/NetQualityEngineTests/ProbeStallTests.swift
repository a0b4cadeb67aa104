import NetQualityCore
import NetQualityProbe
import XCTest

/// A reflector that stops (SIGSTOP) for 15 s and then answers its backlog: a stall of the far
/// end, owned by the connection state while it lasts, and nothing the path did. The probes'
/// session has the agent's in-flight window (200 probes at 50/s), so most of the backlog
/// answers probes it no longer holds.
final class ProbeStallTests: XCTestCase {
  /// 50 probes/s over 0..<40 s; the reflector reads nothing from 10 s to 25 s, then answers
  /// the first 400 of the 750 probes queued meanwhile and refuses the rest.
  /// `queued`: what its socket buffer holds (the default 208 KiB holds 256 probes).
  func stalledRun(queued: Int = .max) -> (Scenario, Scenario.ProbeTruth) {
    var scenario = Scenario()
    var reflectorSequence = 0
    let truth = scenario.probes(
      seconds: 0..<40, firstReflectorSequence: &reflectorSequence,
      stall: Scenario.ReflectorStall(seconds: 10..<25, queued: queued))
    scenario.finishProbes(until: 44)
    return (scenario, truth)
  }

  func testTheBacklogIsNotBookedAsBackwardLoss() throws {
    let (scenario, truth) = stalledRun()
    XCTAssertEqual(truth.sent, 2000)
    XCTAssertEqual(truth.answeredLate, 400)
    XCTAssertEqual(truth.refused, 350)
    let last = try XCTUnwrap(scenario.probePeers.last??.probe)
    XCTAssertEqual(last.total.backwardLost, 0, "no answer died on the way back")
    XCTAssertEqual(last.pendingLost, 0)
    XCTAssertEqual(last.total.received, Int64(truth.sent - 750))
    // Answers to probes settled lost long before (the first is 15 s old): late, not unknown,
    // and the reflector held them (T3 - T2 up to 15 s, the path's round trip 40 ms): lost
    // neither way. The refused ones got no answer and no number: lost forward, as if the
    // reflector's socket had dropped them.
    XCTAssertEqual(scenario.probeSession.late, 400)
    XCTAssertEqual(scenario.probeSession.unexpected, 0)
    XCTAssertEqual(last.total.lateStalled, 400)
    XCTAssertEqual(last.total.lateDelayed, 0)
    XCTAssertEqual(last.total.forwardLost, 350)
  }

  func testABacklogTheSocketBufferCutShortIsNoBackwardLossEither() throws {
    let (scenario, truth) = stalledRun(queued: 256)
    XCTAssertEqual(truth.answeredLate, 256)
    XCTAssertEqual(truth.droppedAtReflector, 494)
    let last = try XCTUnwrap(scenario.probePeers.last??.probe)
    XCTAssertEqual(last.total.backwardLost, 0)
    XCTAssertEqual(last.total.lateStalled, 256)
    XCTAssertEqual(last.total.forwardLost, 494)
  }
}
