import Logging
import NetQualityCore
import XCTest

@testable import NetQualityAgent

/// The log when many peers change at once: a line per event up to the bound, then a line per
/// kind (alerts per rule) naming the first peers.
final class LogSinkTests: XCTestCase {
  static let time = CaptureTime(seconds: 1_767_225_600, nanoseconds: 0)

  static func name(_ index: Int) -> String {
    "peer-" + String(repeating: "0", count: 3 - String(index).count) + "\(index)"
  }

  static func alert(_ rule: String, labels: [String: String]) -> Alert {
    Alert(
      id: "\(rule) \(labels)", rule: rule, severity: .warning, labels: labels, state: .firing,
      start: time, summary: "\(rule) \(labels["peer"] ?? "agent")")
  }

  /// 300 peers disconnected, 150 peer_disconnected alerts firing, 50 peers recovered.
  static func churn() -> [EngineEvent] {
    (0..<500).map { index in
      let peer = name(index)
      switch index {
      case ..<300:
        return EngineEvent(time: time, kind: .disconnected, peer: peer)
      case ..<450:
        return EngineEvent(
          time: time, kind: .alertFiring, peer: peer,
          alert: alert("peer_disconnected", labels: ["peer": peer]))
      default:
        return EngineEvent(time: time, kind: .recovered, peer: peer, previousState: .disconnected)
      }
    }
  }

  static func publish(_ events: [EngineEvent], to log: CapturedLog) {
    let snapshot = Snapshot(
      time: time, intervalSeconds: 2, hostRx: .unknown, hostTx: .unknown, peers: [], streams: [])
    LogSink(logger: log.logger).publish(
      TickPublication(
        result: Engine.TickResult(snapshot: snapshot, events: events), alerts: [],
        capture: CaptureCounters(), trackedStreams: 0))
  }

  func testFiveHundredEventsAreTheBoundsLinesAndOneLinePerKindLeft() {
    let log = CapturedLog()
    Self.publish(Self.churn(), to: log)
    let lines = log.lines
    XCTAssertEqual(lines.count, LogSink.defaultPeerEventsPerTick + 3)
    XCTAssertEqual(LogSink.defaultPeerEventsPerTick, 20)
    XCTAssertEqual(lines[0].message, "peer peer-000 disconnected")
    XCTAssertEqual(lines[0].metadata["peer"], "peer-000")
    XCTAssertEqual(lines[19].message, "peer peer-019 disconnected")
    XCTAssertEqual(
      lines[20].message,
      "280 more peers disconnected in this tick: peer-020, peer-021, peer-022, peer-023, "
        + "peer-024, peer-025, peer-026, peer-027, peer-028, peer-029, … (first 10 names)")
    XCTAssertEqual(lines[20].level, .info)
    XCTAssertEqual(lines[20].metadata["peers"], "280")
    XCTAssertEqual(
      lines[21].message,
      "150 more peer_disconnected alerts firing in this tick: peer-300, peer-301, peer-302, "
        + "peer-303, peer-304, peer-305, peer-306, peer-307, peer-308, peer-309, … (first 10 names)"
    )
    XCTAssertEqual(lines[21].level, .warning)
    XCTAssertEqual(lines[21].metadata["alert"], "peer_disconnected")
    XCTAssertEqual(
      lines[22].message,
      "50 more peers recovered in this tick: peer-450, peer-451, peer-452, peer-453, peer-454, "
        + "peer-455, peer-456, peer-457, peer-458, peer-459, … (first 10 names)")
  }

  func testUpToTheBoundEveryEventHasItsLine() {
    let log = CapturedLog()
    Self.publish(Array(Self.churn().prefix(20)), to: log)
    XCTAssertEqual(log.lines.count, 20)
    XCTAssertFalse(log.lines.contains { $0.message.contains("more") })
  }

  func testAnAlertNotAboutAPeerIsAlwaysLoggedAndFewLeftAreAllNamed() {
    let log = CapturedLog()
    let agent = EngineEvent(
      time: Self.time, kind: .alertFiring, peer: "agent",
      alert: Self.alert("storage_failing", labels: ["kind": "disk_full"]))
    Self.publish(Array(Self.churn().prefix(23)) + [agent], to: log)
    XCTAssertEqual(
      log.lines.suffix(2).map(\.message),
      [
        "storage_failing agent",
        "3 more peers disconnected in this tick: peer-020, peer-021, peer-022",
      ])
    XCTAssertEqual(log.lines.count, 22)
  }
}
