import NetQualityCore
import XCTest

@testable import NetQualityExport

/// The dashboard frame at fleet scale: counts of every peer, rows of the worst only, and the
/// rest (peers and events) in one line each.
final class DashboardFrameTests: XCTestCase {
  static let time = CaptureTime(seconds: 1_767_225_600, nanoseconds: 0)

  /// A peer with full rows (loss, jitter, RTT, MOS), as a scored peer has.
  static func peer(
    _ name: String, rx: QualityLevel, tx: QualityLevel, state: ConnectionState = .connected,
    mos: Double? = 4.2
  ) -> PeerSnapshot {
    let inputs = QualityModel.Inputs(
      packets: 100, lossRatio: 0.012, jitterMilliseconds: 12.5, roundTripMilliseconds: 48,
      isVideo: false)
    func direction(_ level: QualityLevel) -> DirectionSnapshot {
      level == .down
        ? .down
        : DirectionSnapshot(
          level: level, rawLevel: level, inputs: inputs, rating: 80, meanOpinionScore: mos,
          source: .rtp)
    }
    return PeerSnapshot(
      peer: name, state: state, stateSince: time, rx: direction(rx), tx: direction(tx),
      roundTripMilliseconds: 48.3, roundTripSource: .rtcp, rxPackets: 100, rxLost: 1,
      rxBitsPerSecond: 64_000, txPackets: 100, rxPacketsTotal: 1000, rxLostTotal: 12,
      txPacketsTotal: 1000, rxRetransmittedPackets: 0, txRetransmittedPackets: 0, rxFECPackets: 0,
      rxRetransmittedTotal: 0, txRetransmittedTotal: 0, rxFECTotal: 0, streams: 2)
  }

  /// 10,000 peers, in reverse name order (the frame must not rely on the engine's):
  /// 9,000 excellent/good, 700 poor/excellent, 200 bad/very bad, 60 down (disconnected) and
  /// 40 connecting with nothing to score yet.
  static func fleet() -> [PeerSnapshot] {
    (0..<10_000).reversed().map { index in
      let name = "peer-" + String(repeating: "0", count: 5 - String(index).count) + "\(index)"
      switch index {
      case ..<9_000: return peer(name, rx: .excellent, tx: .good)
      case ..<9_700: return peer(name, rx: .poor, tx: .excellent, mos: 3.6)
      case ..<9_900: return peer(name, rx: .bad, tx: .veryBad, mos: 2.1)
      case ..<9_960: return peer(name, rx: .down, tx: .down, state: .disconnected, mos: nil)
      default: return peer(name, rx: .unknown, tx: .unknown, state: .connecting, mos: nil)
      }
    }
  }

  /// 50 interrupted, then 400 disconnected and 12 recovered.
  static func events() -> [EngineEvent] {
    (0..<462).map { index in
      let kind: EngineEvent.Kind =
        index < 50 ? .interrupted : index < 450 ? .disconnected : .recovered
      return EngineEvent(
        time: time, kind: kind, peer: "peer-\(index)",
        previousState: kind == .recovered ? .disconnected : nil)
    }
  }

  static func result(_ peers: [PeerSnapshot], events: [EngineEvent] = []) -> Engine.TickResult {
    Engine.TickResult(
      snapshot: Snapshot(
        time: time, intervalSeconds: 2, hostRx: .down, hostTx: .down, peers: peers, streams: []),
      events: events)
  }

  func testTenThousandPeersGiveFiftyRowsTheCountsAndOneLineForTheRest() {
    let frame = DashboardFrame.render(
      Self.result(Self.fleet(), events: Self.events()), firingAlerts: 7)
    let lines = frame.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
      .map(String.init)
    XCTAssertEqual(
      lines[0], "=== 2026-01-01T00:00:00.000Z  host rx down  tx down  peers 10000  alerts firing 7")
    XCTAssertEqual(
      lines[1],
      "levels rx  unknown 40  excellent 9000  good 0  poor 700  bad 200  very_bad 0  down 60")
    XCTAssertEqual(
      lines[2],
      "levels tx  unknown 40  excellent 700  good 9000  poor 0  bad 0  very_bad 200  down 60")
    XCTAssertEqual(
      lines[3],
      "states     connecting 40  connected 9900  interrupted 0  disconnected 60  timeout 0  "
        + "ended 0  held 0")
    XCTAssertTrue(lines[4].hasPrefix("PEER "))
    let rows = lines.filter { $0.hasPrefix("peer-") }
    XCTAssertEqual(rows.count, 50)
    // The worst are the 60 down peers (no MOS: by name), and 50 of them fit.
    XCTAssertEqual(rows.first?.prefix(10), "peer-09900")
    XCTAssertEqual(rows.last?.prefix(10), "peer-09949")
    // Left out: 9,950 peers, of which 10 down, 200 very bad and 700 poor.
    XCTAssertEqual(lines[55], "… and 9950 more peers (910 at poor or worse)")
    let eventLines = lines.filter { $0.contains(" ** ") }
    XCTAssertEqual(eventLines.count, 50)
    XCTAssertTrue(eventLines.allSatisfy { $0.contains("** interrupted") })
    XCTAssertEqual(lines.last, "412 more events: 400 disconnected, 12 recovered")
    XCTAssertEqual(lines.count, 1 + 3 + 1 + 50 + 1 + 50 + 1)
    // Every line fits 160 bytes (a row is 127 with a 10-character name): at most 17,120 bytes
    // a frame (9,856 here; 6,908 without the events), where a row for every peer makes
    // 1,250,681 (1.27 MB measured in issue 12).
    XCTAssertLessThanOrEqual(lines.map(\.utf8.count).max() ?? 0, 160)
    XCTAssertLessThan(frame.utf8.count, 107 * 160)
    let quiet = DashboardFrame.render(Self.result(Self.fleet()), firingAlerts: 7)
    XCTAssertLessThan(quiet.utf8.count, 56 * 160)
    let everyRow = DashboardFrame.render(
      Self.result(Self.fleet()), firingAlerts: 7, maxPeers: 10_000)
    XCTAssertEqual(everyRow.split(separator: "\n").count, 1 + 3 + 1 + 10_000)
    XCTAssertGreaterThan(everyRow.utf8.count, 100 * quiet.utf8.count)
  }

  /// The selection of the worst (`PeerSnapshot.worst`) gives what a full sort by `worstFirst`
  /// gives, for every limit, on a fleet in random order with many ties (level, MOS) and
  /// the included filter.
  func testTheWorstSelectedAreTheFirstOfTheFullSort() {
    var generator = SystemRandomNumberGenerator()
    let levels: [QualityLevel] = [.unknown, .excellent, .good, .poor, .bad, .down]
    let peers = (0..<2_000).map { number in
      Self.peer(
        "p\(UInt32.random(in: 0..<100_000, using: &generator))-\(number)",
        rx: levels.randomElement(using: &generator) ?? .good,
        tx: levels.randomElement(using: &generator) ?? .good,
        mos: Bool.random(using: &generator)
          ? nil : [2.5, 3.0, 4.1].randomElement(using: &generator))
    }.shuffled(using: &generator)
    let sorted = peers.sorted(by: PeerSnapshot.worstFirst).map(\.peer)
    for limit in [0, 1, 2, 7, 50, 199, 1_999, 2_000, 5_000] {
      XCTAssertEqual(
        PeerSnapshot.worst(peers, limit: limit).map(\.peer), Array(sorted.prefix(limit)),
        "limit \(limit)")
    }
    let even = { (peer: PeerSnapshot) in (peer.peer.utf8.last ?? 0) % 2 == 0 }
    XCTAssertEqual(
      PeerSnapshot.worst(peers, limit: 60, included: even).map(\.peer),
      Array(peers.filter(even).sorted(by: PeerSnapshot.worstFirst).map(\.peer).prefix(60)))
  }

  func testWorstFirstIsTheWorseLevelThenTheLowerMOSThenTheName() {
    let peers = [
      Self.peer("a", rx: .excellent, tx: .excellent, mos: 4.4),
      Self.peer("b", rx: .good, tx: .bad, mos: 2.9),
      Self.peer("c", rx: .bad, tx: .good, mos: 2.5),
      Self.peer("d", rx: .bad, tx: .bad, mos: nil),
      Self.peer("e", rx: .down, tx: .down, state: .disconnected, mos: nil),
      Self.peer("f", rx: .poor, tx: .unknown, mos: 3.5),
      Self.peer("g", rx: .bad, tx: .good, mos: 2.5),
    ]
    XCTAssertEqual(
      PeerSnapshot.worst(peers, limit: 10).map(\.peer), ["e", "c", "g", "b", "d", "f", "a"])
    XCTAssertEqual(PeerSnapshot.worst(peers, limit: 3).map(\.peer), ["e", "c", "g"])
    // The comparator the API and metrics sort with gives the same order.
    XCTAssertEqual(
      peers.sorted(by: PeerSnapshot.worstFirst).map(\.peer), ["e", "c", "g", "b", "d", "f", "a"])
    let frame = DashboardFrame.render(Self.result(peers), firingAlerts: 0, maxPeers: 3)
    XCTAssertTrue(frame.hasSuffix("… and 4 more peers (3 at poor or worse)\n"), frame)
  }

  /// Worst first (by level, then name within a level), columns under their headings, the
  /// state's age to the tick.
  func testRowsAreWorstFirstUnderTheirHeadingsWithTheStatesAge() {
    let peers = [
      Self.peer("10.0.0.1", rx: .excellent, tx: .good),
      Self.peer("10.0.0.2", rx: .down, tx: .down, state: .disconnected, mos: nil),
    ]
    let events = [EngineEvent(time: Self.time, kind: .disconnected, peer: "10.0.0.2")]
    let lines = DashboardFrame.render(Self.result(peers, events: events), firingAlerts: 1)
      .split(separator: "\n").map(String.init)
    XCTAssertEqual(lines.count, 1 + 3 + 1 + 2 + 1)
    XCTAssertEqual(
      lines[4],
      "PEER            RX        TX         MOS RX LOSS RX JITTER TX LOSS      RTT SOURCE    "
        + "STATE        FOR")
    XCTAssertEqual(
      lines[5],
      "10.0.0.2        down      down         -       -         -       -  48.3 ms rtp       "
        + "disconnected 0s")
    XCTAssertEqual(
      lines[6],
      "10.0.0.1        excellent good      4.20    1.2%   12.5 ms    1.2%  48.3 ms rtp       "
        + "connected    0s")
    XCTAssertEqual(
      lines[7], "2026-01-01T00:00:00.000Z  10.0.0.2         ** disconnected")
    XCTAssertFalse(lines.contains { $0.contains("more") })
    XCTAssertEqual(DashboardFrame.age(45), "45s")
    XCTAssertEqual(DashboardFrame.age(192), "3m12s")
    XCTAssertEqual(DashboardFrame.age(7_500), "2h05m")
    XCTAssertEqual(DashboardFrame.age(273_600), "3d04h")
  }

  func testAFrameWithoutPeersIsOneLine() {
    XCTAssertEqual(
      DashboardFrame.render(Self.result([]), firingAlerts: 0),
      "=== 2026-01-01T00:00:00.000Z  host rx down  tx down  peers 0  alerts firing 0\n")
  }
}
