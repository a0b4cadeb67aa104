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

  /// Three hours and five minutes from 23:00 UTC at a tick every 10 s, with bad ticks at
  /// 23:10 (rx bad, MOS 1.0), 00:05 and 00:40 (rx very bad, MOS 2.2 and 2.1), 01:20 (tx very
  /// bad, MOS 2.4) and 01:50 (rx bad, MOS 1.0). Two of the three worst are in the hour of
  /// 00:00: ranking only each hour's single worst minute would bring in 01:50 instead.
  func testWorstMinutesOverHoursMayShareAnHour() throws {
    let hour = 1_700_002_800.0
    let bad: [Double: (PeerValues) -> PeerValues] = [
      hour + 600: {
        var v = $0
        v.rxLevel = .bad
        v.rxMOS = 1.0
        return v
      },
      hour + 3900: {
        var v = $0
        v.rxLevel = .veryBad
        v.rxMOS = 2.2
        return v
      },
      hour + 6000: {
        var v = $0
        v.rxLevel = .veryBad
        v.rxMOS = 2.1
        return v
      },
      hour + 8400: {
        var v = $0
        v.txLevel = .veryBad
        v.txMOS = 2.4
        return v
      },
      hour + 10_200: {
        var v = $0
        v.rxLevel = .bad
        v.rxMOS = 1.0
        return v
      },
    ]
    let writer = try makeWriter()
    for tick in 0..<(3 * 360 + 30) {
      let seconds = hour + Double(tick) * 10
      let time = CaptureTime(nanosecondsSinceEpoch: Int64(seconds) * 1_000_000_000)
      var values = self.values(0)
      if let change = bad[seconds] { values = change(values) }
      let peer = values.snapshot(at: time)
      try writer.write(
        HistoryTick(
          snapshot: Snapshot(
            time: time, intervalSeconds: 10, hostRx: peer.rx.level, hostTx: peer.tx.level,
            peers: [peer], streams: []), events: []))
    }
    let maintenance = HistoryMaintenance(
      rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0)
    var passes = 0
    repeat {
      let report = try writer.database.read { db in
        try HistoryReport.make(db, from: hour, to: hour + 4 * 3600)
      }
      let windows = report.peers.first?.worstWindows ?? []
      XCTAssertEqual(windows.map(\.minute), [hour + 6000, hour + 3900, hour + 8400], "\(passes)")
      XCTAssertEqual(windows.map(\.mosMin), [2.1, 2.2, 2.4], "\(passes)")
      passes += 1
    } while try maintenance.run(writer.database).behind
    XCTAssertEqual(try count("peer_hours", in: writer.database), 3)
  }
}
