import GRDB
import NetQualityCore
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// The report over half an hour of three peers must equal what was written, whether its
/// minutes come from the rollup, from raw ticks, or from both on either side of the watermark.
final class HistoryReportTests: HistoryTestCase {
  /// 30 minutes and one tick: the last minute holds one tick.
  private let script = TickScript(tickCount: 30 * 30 + 1)
  private var range: (from: Double, to: Double) { (script.start, script.start + 31 * 60) }
  private let keepRaw = HistoryMaintenance(
    rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0)

  /// Disconnects of .2 at ticks 100 and 500 and of .3 at 850; alerts on .1 at 50 (resolved
  /// at 80) and 700 (still firing), on .3 at 300.
  private func events(_ tick: Int) -> [EngineEvent] {
    let time = script.captureTime(tick)
    let first = EventBuilder.alert("rx_loss", peer: "10.0.0.1", firedAt: script.captureTime(50))
    switch tick {
    case 100, 500: return [EventBuilder.event(.disconnected, peer: "10.0.0.2", at: time)]
    case 850: return [EventBuilder.event(.disconnected, peer: "10.0.0.3", at: time)]
    case 120: return [EventBuilder.event(.recovered, peer: "10.0.0.2", at: time)]
    case 50: return [EventBuilder.firing(first)]
    case 80: return [EventBuilder.resolved(first, at: time)]
    case 300, 700:
      let peer = tick == 300 ? "10.0.0.3" : "10.0.0.1"
      return [EventBuilder.firing(EventBuilder.alert("mos_low", peer: peer, firedAt: time))]
    default: return []
    }
  }

  private func writeScript() throws -> DatabaseQueue {
    let writer = try makeWriter()
    for tick in 0..<script.tickCount {
      try writer.write(script.tick(tick, events: events(tick)))
    }
    return writer.database
  }

  private func report(_ database: DatabaseQueue, from: Double, to: Double, peer: String? = nil)
    throws -> HistoryReport
  {
    try database.read { db in try HistoryReport.make(db, from: from, to: to, peer: peer) }
  }

  private func watermark(_ database: DatabaseQueue) throws -> Double? {
    try database.read { db in
      try Double.fetchOne(db, sql: "SELECT watermark FROM rollup WHERE name = 'peer_minutes'")
    }
  }

  private func assertReport(
    _ report: HistoryReport, from: Double, to: Double, disconnects: [Int], alerts: [Int],
    _ label: String, line: UInt = #line
  ) {
    assertReportEqualsTally(
      report, script, from: from, to: to, disconnects: disconnects, alerts: alerts, label,
      line: line)
  }

  func testWholeRangeIsExactFromRawTicksMinutesAndBoth() throws {
    let database = try writeScript()
    let disconnects = [0, 2, 1]
    let alerts = [2, 0, 1]

    XCTAssertNil(try watermark(database))
    let raw = try report(database, from: range.from, to: range.to)
    assertReport(
      raw, from: range.from, to: range.to, disconnects: disconnects, alerts: alerts, "raw")

    // One pass rolls up the first ten minutes: the watermark is in the middle.
    _ = try keepRaw.run(database)
    XCTAssertEqual(try watermark(database), script.start + 600)
    let split = try report(database, from: range.from, to: range.to)
    assertReport(
      split, from: range.from, to: range.to, disconnects: disconnects, alerts: alerts, "split")

    try keepRaw.runToCompletion(database)
    XCTAssertEqual(try watermark(database), script.start + 30 * 60)
    let rolled = try report(database, from: range.from, to: range.to)
    assertReport(
      rolled, from: range.from, to: range.to, disconnects: disconnects, alerts: alerts,
      "rolled up")

    // The raw rows of the rolled-up minutes can go: the report does not need them.
    try HistoryMaintenance(rawRetentionSeconds: 0, aggregateRetentionSeconds: 1e9, maxBytes: 0)
      .runToCompletion(database)
    XCTAssertEqual(try count("ticks", in: database), 1)
    let minutesOnly = try report(database, from: range.from, to: range.to)
    assertReport(
      minutesOnly, from: range.from, to: range.to, disconnects: disconnects, alerts: alerts,
      "minutes only")
  }

  func testRangeOffTheMinuteCountsTheMinutesStartingInItWhereverTheWatermarkIs() throws {
    let database = try writeScript()
    // The minutes starting in [90 s, 1290 s) are those of [120 s, 1320 s), and so are the
    // events counted: 10.0.0.2's disconnects at 200 s and 1000 s are in, 10.0.0.3's at 1700 s
    // out; of the alerts, the one fired at 600 s is in, those at 100 s and 1400 s are out.
    let from = script.start + 90
    let to = script.start + 1290
    let disconnects = [0, 2, 0]
    let alerts = [0, 0, 1]

    let raw = try report(database, from: from, to: to)
    assertReport(raw, from: from, to: to, disconnects: disconnects, alerts: alerts, "raw")
    _ = try keepRaw.run(database)
    let split = try report(database, from: from, to: to)
    assertReport(split, from: from, to: to, disconnects: disconnects, alerts: alerts, "split")
    try keepRaw.runToCompletion(database)
    let rolled = try report(database, from: from, to: to)
    assertReport(rolled, from: from, to: to, disconnects: disconnects, alerts: alerts, "rolled")
  }

  func testOnePeersReportEqualsItsRowInTheWholeReport() throws {
    let database = try writeScript()
    _ = try keepRaw.run(database)
    let all = try report(database, from: range.from, to: range.to)
    let one = try report(database, from: range.from, to: range.to, peer: "10.0.0.2")
    XCTAssertEqual(one.peers.count, 1)
    let peer = try XCTUnwrap(one.peers.first)
    let same = all.peers[1]
    XCTAssertEqual(peer.peer, same.peer)
    XCTAssertEqual(peer.seconds, same.seconds)
    XCTAssertEqual(peer.txLevelSeconds, same.txLevelSeconds)
    XCTAssertEqual(peer.rxLevelSeconds, same.rxLevelSeconds)
    XCTAssertEqual(
      try XCTUnwrap(peer.rxMOSAverage), try XCTUnwrap(same.rxMOSAverage), accuracy: 1e-12)
    XCTAssertEqual(peer.disconnects, 2)
    XCTAssertEqual(peer.worstWindows, same.worstWindows)
    XCTAssertEqual(try report(database, from: range.from, to: range.to, peer: "10.9.9.9").peers, [])
  }

  func testEmptyRangeHasNoPeers() throws {
    let database = try writeScript()
    let later = try report(database, from: script.newest + 3600, to: script.newest + 7200)
    XCTAssertEqual(later.peers, [])
  }
}
