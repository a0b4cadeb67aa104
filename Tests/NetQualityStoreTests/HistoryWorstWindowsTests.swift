import GRDB
import NetQualityCore
import NetQualityStore
import XCTest

/// The report's worst minutes of a peer: highest level either way first, then lowest MOS,
/// then the earlier minute.
final class HistoryWorstWindowsTests: HistoryTestCase {
  private let start = TickScript.epoch

  /// Twenty minutes of one peer at good and excellent with MOS 4.3, and one bad tick in
  /// minutes 3 (tx very bad, MOS 2.5), 7 and 12 (rx very bad, MOS 2.0 both) and 15 (rx bad,
  /// MOS 1.5).
  private func values(_ tick: Int) -> PeerValues {
    var values = PeerValues(
      name: "198.51.100.9", txLevel: .good, rxLevel: .excellent, txMOS: 4.3, rxMOS: 4.3,
      txLossRatio: 0, rxLossRatio: 0.01, txJitterMilliseconds: 2, rxJitterMilliseconds: 2,
      roundTripMilliseconds: 30)
    switch tick {
    case 3 * 30 + 4:
      values.txLevel = .veryBad
      values.txMOS = 2.5
      values.txLossRatio = 0.2
    case 7 * 30 + 9, 12 * 30 + 1:
      values.rxLevel = .veryBad
      values.rxMOS = 2.0
      values.rxLossRatio = tick < 300 ? 0.3 : 0.35
    case 15 * 30:
      values.rxLevel = .bad
      values.rxMOS = 1.5
    default: break
    }
    return values
  }

  private func writeTicks() throws -> DatabaseQueue {
    let writer = try makeWriter()
    for tick in 0..<(20 * 30) {
      let time = CaptureTime(nanosecondsSinceEpoch: Int64(start + Double(tick) * 2) * 1_000_000_000)
      let peer = values(tick).snapshot(at: time)
      try writer.write(
        HistoryTick(
          snapshot: Snapshot(
            time: time, intervalSeconds: 2, hostRx: peer.rx.level, hostTx: peer.tx.level,
            peers: [peer], streams: []), events: []))
    }
    return writer.database
  }

  private func worst(_ database: DatabaseQueue) throws -> [HistoryReport.Window] {
    let report = try database.read { db in
      try HistoryReport.make(db, from: start, to: start + 20 * 60)
    }
    XCTAssertEqual(report.peers.count, 1)
    return report.peers.first?.worstWindows ?? []
  }

  private func assertOrder(_ windows: [HistoryReport.Window], _ label: String) {
    XCTAssertEqual(windows.map(\.minute), [7, 12, 3].map { start + 60 * $0 }, label)
    XCTAssertEqual(windows.map(\.txLevel), [.good, .good, .veryBad], label)
    XCTAssertEqual(windows.map(\.rxLevel), [.veryBad, .veryBad, .excellent], label)
    XCTAssertEqual(windows.map(\.mosMin), [2.0, 2.0, 2.5], label)
    XCTAssertEqual(windows.map(\.rxLossMax), [0.3, 0.35, 0.01], label)
    XCTAssertEqual(windows.map(\.txLossMax), [0, 0, 0.2], label)
  }

  func testWorstMinutesAreRankedByLevelThenMOSThenTime() throws {
    let database = try writeTicks()
    assertOrder(try worst(database), "raw")
    // Minutes 3 and 7 rolled up, 12 and 15 still raw.
    let maintenance = HistoryMaintenance(
      rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0)
    _ = try maintenance.run(database)
    assertOrder(try worst(database), "split")
    try maintenance.runToCompletion(database)
    assertOrder(try worst(database), "rolled up")
  }
}
