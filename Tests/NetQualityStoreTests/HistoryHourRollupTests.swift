import GRDB
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// Hours rolled up from minutes, each hour's worst minutes kept, and hours deleted with their
/// first minute: three peers for 3 h 20 min at a tick every 10 s, from 22:14 to 01:34 UTC.
final class HistoryHourRollupTests: HistoryTestCase {
  private let script = TickScript(intervalSeconds: 10, tickCount: 1200)
  /// 23:00 and 00:00 UTC. The hour of 22:00 is not whole in the file (it starts at 22:14),
  /// that of 01:00 in progress at the end: the report serves both from their minutes.
  private let hours = [1_700_002_800.0, 1_700_006_400]

  private func writeScript(_ maintenance: HistoryMaintenance) throws -> DatabaseQueue {
    let writer = try makeWriter()
    for tick in 0..<script.tickCount { try writer.write(script.tick(tick)) }
    try maintenance.runToCompletion(writer.database)
    return writer.database
  }

  private let keepEverything = HistoryMaintenance(
    rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0)

  /// Two stretches 200 days apart in one file (captures analysed into it, oldest first): the
  /// silence between them is stepped over in a few passes, not walked an hour a pass (4,800
  /// passes took 17 s), and the same hours are rolled up as when it was walked.
  func testASilenceOfMonthsIsSteppedOver() throws {
    let writer = try makeWriter()
    var later = script
    later.start += 200 * 86_400
    for part in [script, later] {
      for tick in 0..<part.tickCount { try writer.write(part.tick(tick)) }
    }
    var passes = 0
    while try keepEverything.run(writer.database, final: true).behind { passes += 1 }
    XCTAssertLessThan(passes, 200, "passes")
    let hours = try writer.database.read { db in
      try Double.fetchAll(db, sql: "SELECT DISTINCT hour FROM peer_hours ORDER BY hour")
    }
    // The first stretch's whole hours and its last (complete once later minutes came); the
    // second's from the hour it began in: what walking every hour gave, without the walk.
    let later22h = self.hours[0] - 3600 + 200 * 86_400
    XCTAssertEqual(
      hours,
      self.hours + [self.hours[1] + 3600, later22h, later22h + 3600, later22h + 7200])
  }

  func testEachCompleteHourEqualsItsTicks() throws {
    let database = try writeScript(keepEverything)
    let rows = try database.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT h.*, p.name FROM peer_hours h JOIN peers p ON p.id = h.peer_id
          ORDER BY h.hour, p.name
          """)
    }
    XCTAssertEqual(rows.map { $0["hour"] as Double }, hours.flatMap { [$0, $0, $0] })
    XCTAssertEqual(rows.count, 6)
    for row in rows {
      let hour: Double = row["hour"]
      let peer = try XCTUnwrap(script.peerNames.firstIndex(of: row["name"]))
      let tally = ScriptTally(script, peer: peer, ticks: script.ticks(from: hour, to: hour + 3600))
      let context = "\(hour) \(peer)"
      XCTAssertEqual(row["ticks"] as Int, tally.ticks, context)
      XCTAssertEqual(row["seconds"] as Double, tally.seconds, context)
      XCTAssertEqual(row["tx_level_max"] as Int, tally.txLevelMax, context)
      for level in 0..<7 {
        XCTAssertEqual(row["tx_level\(level)_s"] as Double, tally.txLevelSeconds[level], context)
        XCTAssertEqual(row["rx_level\(level)_s"] as Double, tally.rxLevelSeconds[level], context)
      }
      XCTAssertEqual(row["rx_mos_min"] as Double?, tally.rxMOS.min, context)
      XCTAssertEqual(row["rx_mos_max"] as Double?, tally.rxMOS.max, context)
      XCTAssertEqual(row["rx_mos_ticks"] as Int, tally.rxMOS.count, context)
      XCTAssertEqual(row["rtt_ticks"] as Int, tally.roundTrip.count, context)
      XCTAssertEqual(
        try XCTUnwrap(row["rx_mos_avg"] as Double?), try XCTUnwrap(tally.rxMOS.average),
        accuracy: 1e-9, context)
      XCTAssertEqual(
        try XCTUnwrap(row["rx_jitter_avg_ms"] as Double?), try XCTUnwrap(tally.rxJitter.average),
        accuracy: 1e-9, context)
      XCTAssertEqual(
        try XCTUnwrap(row["rtt_avg_ms"] as Double?), try XCTUnwrap(tally.roundTrip.average),
        accuracy: 1e-9, context)
      XCTAssertEqual(row["tx_packets"] as Int64, tally.txPackets, context)
    }
    try database.read { db in
      XCTAssertEqual(
        try Double.fetchOne(db, sql: "SELECT watermark FROM rollup WHERE name = 'peer_hours'"),
        hours[1] + 3600)
    }
  }

  func testEachHourKeepsItsThreeWorstMinutesOfEachPeer() throws {
    let database = try writeScript(keepEverything)
    let stored = try database.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT w.minute, p.name FROM peer_worst_minutes w JOIN peers p ON p.id = w.peer_id
          ORDER BY p.name, w.minute
          """
      ).map { "\($0[1] as String) \($0[0] as Double)" }
    }
    var expected: [String] = []
    for (peer, name) in script.peerNames.enumerated() {
      for hour in hours {
        let minutes = script.minutesWorstFirst(peer: peer, from: hour, to: hour + 3600)
        expected += minutes.prefix(3).map(\.minute).sorted().map { "\(name) \($0)" }
      }
    }
    XCTAssertEqual(stored.count, 3 * 2 * 3)
    XCTAssertEqual(stored, expected)
  }

  func testAnHourGoesWithItsFirstMinuteAndTheReportCountsWhatIsLeft() throws {
    // Minutes before 23:37:10 go: the hour of 23:00 goes with them, its minutes from 23:38 on
    // stay and serve the report in its place.
    let retention = HistoryMaintenance(
      rawRetentionSeconds: 600, aggregateRetentionSeconds: script.newest - 1_700_005_030,
      maxBytes: 0)
    let database = try writeScript(retention)
    try database.read { db in
      XCTAssertEqual(
        try Double.fetchAll(db, sql: "SELECT DISTINCT hour FROM peer_hours"), [hours[1]])
      XCTAssertEqual(
        try Double.fetchOne(db, sql: "SELECT min(minute) FROM peer_minutes"), 1_700_005_080)
      XCTAssertGreaterThanOrEqual(
        try Double.fetchOne(db, sql: "SELECT min(minute) FROM peer_worst_minutes") ?? 0,
        1_700_005_080)
    }
    let report = try database.read { db in
      try HistoryReport.make(db, from: script.start, to: script.newest + 1)
    }
    assertReportEqualsTally(report, script, from: 1_700_005_080, to: script.newest + 1, "kept")
  }
}
