import GRDB
import NetQualityCore
import NetQualityExport
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// The report's worst minutes of a peer: highest level either way first, then lowest MOS,
/// then the earlier minute; over minutes, raw ticks and hours alike.
final class HistoryWorstWindowsTests: HistoryTestCase {
  private let maintenance = HistoryMaintenance(
    rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0)

  /// One peer at good and excellent with MOS 4.3, 1 % rx loss.
  private static let clean = PeerValues(
    name: "198.51.100.9", txLevel: .good, rxLevel: .excellent, txMOS: 4.3, rxMOS: 4.3,
    txLossRatio: 0, rxLossRatio: 0.01, txJitterMilliseconds: 2, rxJitterMilliseconds: 2,
    roundTripMilliseconds: 30)

  /// A bad tick: tx or rx at `level` with MOS `mos` that way.
  private static func bad(
    tx: Bool = false, _ level: QualityLevel, mos: Double, loss: Double? = nil
  ) -> PeerValues {
    var values = clean
    if tx {
      values.txLevel = level
      values.txMOS = mos
      values.txLossRatio = loss ?? values.txLossRatio
    } else {
      values.rxLevel = level
      values.rxMOS = mos
      values.rxLossRatio = loss ?? values.rxLossRatio
    }
    return values
  }

  /// `count` ticks every `interval` s from `start`, clean but where `bad` (by offset in
  /// seconds) says otherwise.
  private func write(
    from start: Double, every interval: Double, count: Int, bad: [Double: PeerValues]
  ) throws -> DatabaseQueue {
    let writer = try makeWriter()
    for tick in 0..<count {
      let offset = Double(tick) * interval
      let time = CaptureTime(nanosecondsSinceEpoch: Int64(start + offset) * 1_000_000_000)
      let peer = (bad[offset] ?? Self.clean).snapshot(at: time)
      let snapshot = Snapshot(
        time: time, intervalSeconds: interval, hostRx: peer.rx.level, hostTx: peer.tx.level,
        peers: [peer], streams: [])
      try writer.write(
        HistoryTick(snapshot: snapshot, events: [], renderCall: CallsJSON.recordText))
    }
    return writer.database
  }

  /// The peer's worst windows in [from, to), checked by `check` before each maintenance pass
  /// and after the last: with nothing rolled up, part of it, all of it.
  private func everyPass(
    _ database: DatabaseQueue, from: Double, to: Double,
    _ check: ([HistoryReport.Window], String) -> Void
  ) throws {
    var passes = 0
    var behind = true
    while behind {
      let report = try database.read { db in try HistoryReport.make(db, from: from, to: to) }
      XCTAssertEqual(report.peers.count, 1)
      check(report.peers.first?.worstWindows ?? [], "after \(passes) passes")
      behind = try maintenance.run(database).behind
      passes += 1
    }
  }

  /// Twenty minutes at a tick every 2 s, one bad tick in minutes 3 (tx very bad, MOS 2.5),
  /// 7 and 12 (rx very bad, MOS 2.0 both) and 15 (rx bad, MOS 1.5).
  func testWorstMinutesAreRankedByLevelThenMOSThenTime() throws {
    let start = TickScript.epoch
    let database = try write(
      from: start, every: 2, count: 20 * 30,
      bad: [
        3 * 60 + 8: Self.bad(tx: true, .veryBad, mos: 2.5, loss: 0.2),
        7 * 60 + 18: Self.bad(.veryBad, mos: 2.0, loss: 0.3),
        12 * 60 + 2: Self.bad(.veryBad, mos: 2.0, loss: 0.35),
        15 * 60: Self.bad(.bad, mos: 1.5),
      ])
    try everyPass(database, from: start, to: start + 20 * 60) { windows, label in
      XCTAssertEqual(windows.map(\.minute), [7, 12, 3].map { start + 60 * $0 }, label)
      XCTAssertEqual(windows.map(\.txLevel), [.good, .good, .veryBad], label)
      XCTAssertEqual(windows.map(\.rxLevel), [.veryBad, .veryBad, .excellent], label)
      XCTAssertEqual(windows.map(\.mosMin), [2.0, 2.0, 2.5], label)
      XCTAssertEqual(windows.map(\.rxLossMax), [0.3, 0.35, 0.01], label)
      XCTAssertEqual(windows.map(\.txLossMax), [0, 0, 0.2], label)
    }
  }

  /// Three hours and five minutes from 23:00 UTC at a tick every 10 s, with bad ticks at
  /// 23:10 (rx bad, MOS 1.0), 00:05 and 00:40 (rx very bad, MOS 2.2 and 2.1), 01:20 (tx very
  /// bad, MOS 2.4) and 01:50 (rx bad, MOS 1.0). Two of the three worst are in the hour of
  /// 00:00: ranking only each hour's single worst minute would bring in 01:50 instead.
  func testWorstMinutesOverHoursMayShareAnHour() throws {
    let hour = 1_700_002_800.0
    let database = try write(
      from: hour, every: 10, count: 3 * 360 + 30,
      bad: [
        600: Self.bad(.bad, mos: 1.0), 3900: Self.bad(.veryBad, mos: 2.2),
        6000: Self.bad(.veryBad, mos: 2.1), 8400: Self.bad(tx: true, .veryBad, mos: 2.4),
        10_200: Self.bad(.bad, mos: 1.0),
      ])
    try everyPass(database, from: hour, to: hour + 4 * 3600) { windows, label in
      XCTAssertEqual(windows.map(\.minute), [hour + 6000, hour + 3900, hour + 8400], label)
      XCTAssertEqual(windows.map(\.mosMin), [2.1, 2.2, 2.4], label)
    }
    XCTAssertEqual(try count("peer_hours", in: database), 3)
  }
}
