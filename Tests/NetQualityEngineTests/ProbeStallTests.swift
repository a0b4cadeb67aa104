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

  /// The connection state owns the stall: interrupted and disconnected while the reflector is
  /// silent, recovered at its first answer in time. No quality alert (the 350 probes it
  /// refused were booked lost forward when it came back, and scored 94 % loss for 3 ticks after
  /// it: `peer_rx_quality_bad` and `peer_tx_quality_bad` fired 4 s after the recovery), and
  /// the levels after it are the levels before.
  func testTheStallRaisesNoQualityAlertAndTheLevelsRecoverAtOnce() throws {
    let (scenario, _) = stalledRun()
    let events = scenario.events.filter { $0.peer == Scenario.peer }
    XCTAssertEqual(
      events.map(\.kind).filter {
        [.connected, .interrupted, .disconnected, .recovered].contains($0)
      },
      [.connected, .interrupted, .disconnected, .recovered])
    // The last answer before the stall: the probe sent at 9.96 s, back at 10.000 05 s.
    let disconnected = try XCTUnwrap(events.first { $0.kind == .disconnected })
    XCTAssertEqual(disconnected.time.seconds(since: Scenario.time(10.000_05)), 12, accuracy: 1e-6)
    // The first answer in time after it: the probe sent at 24.98 s, read after the backlog.
    let recovered = try XCTUnwrap(events.first { $0.kind == .recovered })
    XCTAssertEqual(recovered.previousState, .disconnected)
    XCTAssertEqual(recovered.time.seconds(since: Scenario.time(25.0276)), 0, accuracy: 0.001)
    let firing = events.filter { $0.kind == .alertFiring }
    XCTAssertEqual(firing.map { $0.alert?.rule }, ["peer_disconnected"])
    XCTAssertFalse(firing.contains { $0.time >= recovered.time }, "\(firing)")
    let peers = scenario.probePeers
    let steady = try XCTUnwrap(peers[4])
    XCTAssertEqual(steady.rx.level, .excellent)
    XCTAssertEqual(steady.tx.level, .excellent)
    let recoveryTick = try XCTUnwrap(
      scenario.ticks.firstIndex { $0.events.contains { $0.kind == .recovered } })
    for (index, peer) in peers.enumerated().dropFirst(recoveryTick + 1) {
      let peer = try XCTUnwrap(peer)
      XCTAssertEqual(peer.state, .connected)
      for direction in [peer.rx, peer.tx] {
        XCTAssertEqual(direction.rawLevel, steady.rx.rawLevel, "tick \(index): \(direction)")
        XCTAssertEqual(direction.level, steady.rx.level, "tick \(index)")
      }
    }
    // The outage's loss is counted, as the outage's.
    let last = try XCTUnwrap(peers.last??.probe)
    XCTAssertEqual(last.total.outageForwardLost, 350)
    XCTAssertEqual(last.total.outageBackwardLost, 0)
    XCTAssertEqual(last.total.outagesEnded, 1)
  }
}
