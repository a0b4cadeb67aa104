import NetQualityCore
import XCTest

@testable import NetQualityExport

/// A series budget that holds for any fleet: per-peer series for the pinned and the worst
/// peers only, fleet-wide counts and histograms for everyone.
final class FleetMetricsTests: XCTestCase {
  static let time = CaptureTime(nanosecondsSinceEpoch: 1_767_225_600_000_000_000)

  /// Peer `number`: level cycling through excellent … down (rx) and good (tx), MOS falling
  /// with the level, loss number/1000 %.
  static func peer(_ number: Int) -> PeerSnapshot {
    let level = QualityLevel(rawValue: 1 + number % 6) ?? .unknown
    let mos = level == .down ? nil : 4.4 - Double(level.rawValue) * 0.5
    let inputs = QualityModel.Inputs(
      packets: 100, lossRatio: Double(number % 100) / 1000, jitterMilliseconds: 20,
      roundTripMilliseconds: nil, isVideo: false)
    return PeerSnapshot(
      peer: String(format: "10.0.%d.%d", number / 250, number % 250),
      state: level == .down ? .disconnected : .connected, stateSince: time,
      rx: DirectionSnapshot(
        level: level, rawLevel: level, inputs: level == .down ? nil : inputs,
        meanOpinionScore: mos),
      tx: DirectionSnapshot(level: .good, rawLevel: .good, meanOpinionScore: 4.1),
      roundTripMilliseconds: number % 2 == 0 ? 120 : nil, roundTripSource: .rtcp, rxPackets: 100,
      rxLost: 0, rxBitsPerSecond: 64_000, txPackets: 100, rxPacketsTotal: 100, rxLostTotal: 0,
      txPacketsTotal: 100, rxRetransmittedPackets: 0, txRetransmittedPackets: 0, rxFECPackets: 0,
      rxRetransmittedTotal: 0, txRetransmittedTotal: 0, rxFECTotal: 0, streams: 1)
  }

  /// The tick's part of `/metrics` for `peers` peers, `limit` of them with series of their own.
  static func tickMetrics(
    peers: Int, limit: Int, pinned: Set<String> = [], alerts: [Alert] = []
  ) -> String {
    TickMetrics(
      Snapshot(
        time: time, intervalSeconds: 2, hostRx: .down, hostTx: .good,
        peers: (0..<peers).map(peer), streams: []),
      alerts: alerts, settings: .init(maxPeerSeries: limit, pinnedPeers: pinned)
    ).render()
  }

  static func samples(_ text: String, _ name: String) -> [(labels: String, value: Double)] {
    text.split(separator: "\n").compactMap { line in
      guard line.hasPrefix(name + "{") || line.hasPrefix(name + " ") else { return nil }
      let parts = line.split(separator: " ")
      guard let value = parts.last.flatMap({ Double($0) }) else { return nil }
      return (String(parts.dropLast().joined(separator: " ").dropFirst(name.count)), value)
    }
  }

  func testOnlyPinnedAndWorstPeersGetSeriesOfTheirOwn() {
    let pinned: Set = ["10.0.0.1", "10.0.0.7"]  // numbers 1 and 7: good (level 2)
    let text = Self.tickMetrics(peers: 10_000, limit: 200, pinned: pinned)
    let levels = Self.samples(text, "netquality_peer_quality_level")
      .filter { $0.labels.contains("direction=\"rx\"") }
    XCTAssertEqual(levels.count, 200)
    XCTAssertTrue(levels.contains { $0.labels.contains("peer=\"10.0.0.1\"") })
    XCTAssertTrue(levels.contains { $0.labels.contains("peer=\"10.0.0.7\"") })
    // 1,666 peers are down (number % 6 == 5): the 198 other rows are all down.
    XCTAssertEqual(levels.filter { $0.value == 6 }.count, 198)
    XCTAssertEqual(Self.samples(text, "netquality_peer_series_omitted").first?.value, 9_800)
  }

  func testFleetSeriesCountEveryPeer() {
    let text = Self.tickMetrics(peers: 10_000, limit: 10)
    let rx = Self.samples(text, "netquality_peers").filter { $0.labels.contains("\"rx\"") }
    XCTAssertEqual(rx.count, QualityLevel.allCases.count)
    // 10,000 = 6 x 1,666 + 4: levels 1..4 get 1,667 peers, 5 and 6 get 1,666, unknown none.
    let byLevel = Dictionary(uniqueKeysWithValues: rx.map { ($0.labels, $0.value) })
    XCTAssertEqual(byLevel["{direction=\"rx\",level=\"excellent\"}"], 1_667)
    XCTAssertEqual(byLevel["{direction=\"rx\",level=\"down\"}"], 1_666)
    XCTAssertEqual(byLevel["{direction=\"rx\",level=\"unknown\"}"], 0)
    XCTAssertEqual(rx.map(\.value).reduce(0, +), 10_000)
    let states = Self.samples(text, "netquality_peers_in_state")
    XCTAssertEqual(states.first { $0.labels.contains("disconnected") }?.value, 1_666)
    XCTAssertEqual(states.first { $0.labels.contains("\"connected\"") }?.value, 8_334)
    // Every scored rx peer is one MOS observation; the +Inf bucket holds them all.
    let mos = Self.samples(text, "netquality_peers_mos_bucket")
      .filter { $0.labels.contains("\"rx\"") }
    XCTAssertEqual(mos.last?.value, 8_334)
    // MOS by rx level: 1 (3.9), 2 (3.4), 3 (2.9), 4 (2.4), 5 (1.9); only level 5 is <= 2.
    XCTAssertEqual(mos.first { $0.labels.contains("le=\"2\"") }?.value, 1_666)
    XCTAssertEqual(Self.samples(text, "netquality_peers_rtt_seconds_count").first?.value, 5_000)
  }

  /// The budget of the documented defaults: with 10,000 peers the exposition stays under
  /// 2 MB and about 5,000 series whatever the fleet size.
  func testSizeStaysWithinTheBudgetForAnyFleet() {
    let small = Self.tickMetrics(peers: 10_000, limit: 200)
    let large = Self.tickMetrics(peers: 50_000, limit: 200)
    let series = large.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
    XCTAssertLessThan(large.utf8.count, 2_000_000)
    XCTAssertLessThan(series, 5_000)
    // The per-peer part does not grow with the fleet: only the figures change.
    XCTAssertEqual(
      small.split(separator: "\n").count, large.split(separator: "\n").count)
  }

  /// Alerts are counted for every peer and listed only for the peers with series.
  func testAlertSeriesFollowTheBudget() {
    var alerts = (0..<1_000).map { number in
      let peer = Self.peer(number).peer
      return Alert(
        id: "peer_disconnected/\(peer)", rule: "peer_disconnected", severity: .critical,
        labels: ["peer": peer], state: .firing, start: Self.time, summary: "down")
    }
    alerts.append(
      Alert(
        id: "storage_failing", rule: "storage_failing", severity: .critical, labels: [:],
        state: .firing, start: Self.time, summary: "disk full"))
    let text = Self.tickMetrics(peers: 1_000, limit: 10, alerts: alerts)
    XCTAssertEqual(
      Self.samples(text, "netquality_alerts_by_rule").map(\.value), [1_000, 1])
    // The 10 peers with series, and the alert about no peer.
    XCTAssertEqual(Self.samples(text, "netquality_alerts_firing").count, 11)
  }

  func testRankingIsWorstFirstWithUnknownLast() {
    var peers = (0..<12).map(Self.peer)
    peers[0].rx = .unknown
    peers[0].tx = .unknown
    let ranked = peers.sorted(by: PeerSnapshot.worstFirst).map(\.worstLevel)
    XCTAssertEqual(ranked.first, .down)
    XCTAssertEqual(ranked.last, .unknown)
    XCTAssertEqual(Array(ranked.dropLast()), ranked.dropLast().sorted(by: >))
  }

  func testGzipRoundTripsAndHonoursAcceptEncoding() throws {
    let text = Self.tickMetrics(peers: 2_000, limit: 200)
    let compressed = try XCTUnwrap(
      text.utf8CString.withUnsafeBytes { bytes in
        Gzip.compress(UnsafeRawBufferPointer(rebasing: bytes.dropLast()))
      })
    XCTAssertEqual(Array(compressed.prefix(2)), [0x1F, 0x8B])  // RFC 1952 ID1 ID2
    XCTAssertLessThan(compressed.count * 5, text.utf8.count)
    XCTAssertEqual(Gzip.decompress(compressed), Array(text.utf8))

    XCTAssertTrue(Gzip.isAccepted(by: "gzip"))
    XCTAssertTrue(Gzip.isAccepted(by: "identity, GZIP;q=0.5"))
    XCTAssertTrue(Gzip.isAccepted(by: "*"))
    XCTAssertFalse(Gzip.isAccepted(by: "gzip;q=0"))
    XCTAssertFalse(Gzip.isAccepted(by: "deflate, br"))
    XCTAssertFalse(Gzip.isAccepted(by: nil))
  }
}
