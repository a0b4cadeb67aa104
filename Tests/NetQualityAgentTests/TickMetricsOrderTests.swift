import NetQualityCore
import NetQualityExport
import XCTest

@testable import NetQualityAgent

/// The tick's metrics take their worst peers from the peer table's worst-first order (sorted
/// once per tick for the API) instead of sorting the fleet again: the series must be exactly
/// those the exposition's own ranking gives.
final class TickMetricsOrderTests: XCTestCase {
  func testTheTablesOrderGivesTheSameSeriesAsTheExpositionsRanking() {
    // 3,000 peers: levels cycling through all seven, MOS in a few values (ties broken by the
    // name) or none, two pinned groups; 200 series.
    let levels = QualityLevel.allCases
    let peers = (0..<3_000).map { index in
      var peer = StatusPageSupport.peer(String(format: "10.1.%d.%d", index / 256, index % 256))
      let level = levels[index * 7 % levels.count]
      let mos: Double? = index % 5 == 0 ? nil : [2.1, 3.3, 3.3, 4.2][index % 4]
      peer.rx = DirectionSnapshot(level: level, rawLevel: level, meanOpinionScore: mos)
      return peer
    }
    let snapshot = Snapshot(
      time: CaptureTime(nanosecondsSinceEpoch: 1_767_225_600_000_000_000), intervalSeconds: 2,
      hostRx: .down, hostTx: .unknown, peers: peers, streams: [])
    let settings = TickMetrics.Settings(pinnedPeers: ["10.1.0.3", "10.1.11.9"])
    let table = PeerTable(snapshot, sorted: [.worst])
    let ordered = TickMetrics(
      snapshot, alerts: [], settings: settings, worstOrder: table.order(.worst)
    ).render()
    let sorted = TickMetrics(snapshot, alerts: [], settings: settings).render()
    XCTAssertEqual(ordered, sorted)
    XCTAssertEqual(
      ordered.split(separator: "\n").filter {
        $0.hasPrefix("netquality_peer_quality_level{") && $0.contains("direction=\"rx\"")
      }.count, 200)
  }
}
