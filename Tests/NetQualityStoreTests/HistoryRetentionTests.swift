import GRDB
import NetQualityCore
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// Rollup into minutes and deletion by age: three hours of three peers, raw rows kept an hour,
/// minutes two hours.
final class HistoryRetentionTests: HistoryTestCase {
  private let script = TickScript(tickCount: 3 * 3600 / 2)
  private let maintenance = HistoryMaintenance(
    rawRetentionSeconds: 3600, aggregateRetentionSeconds: 7200, maxBytes: 0)

  private func writeScript() throws -> DatabaseQueue {
    let writer = try makeWriter()
    for tick in 0..<script.tickCount {
      var events: [EngineEvent] = []
      if tick == 0 {
        events = script.peerNames.map {
          EventBuilder.event(.connected, peer: $0, at: script.captureTime(0))
        }
      }
      if tick == 5000 {
        events = [EventBuilder.event(.disconnected, peer: "10.0.0.2", at: script.captureTime(tick))]
      }
      try writer.write(script.tick(tick, events: events))
    }
    return writer.database
  }

  func testRawRowsOlderThanTheirRetentionGoAndTheRestStay() throws {
    let database = try writeScript()
    try maintenance.runToCompletion(database)

    let rawFrom = script.newest - 3600
    let kept = script.ticks(from: rawFrom, to: script.newest + 1)
    XCTAssertEqual(kept.count, 1801)
    XCTAssertEqual(try count("ticks", in: database), kept.count)
    XCTAssertEqual(try count("peer_ticks", in: database), 3 * kept.count)
    try database.read { db in
      XCTAssertEqual(try Double.fetchOne(db, sql: "SELECT min(time) FROM ticks"), rawFrom)
      XCTAssertEqual(try Double.fetchOne(db, sql: "SELECT min(time) FROM peer_ticks"), rawFrom)
      XCTAssertEqual(
        try Double.fetchOne(db, sql: "SELECT watermark FROM rollup WHERE name = 'peer_minutes'"),
        TickScript.minute(script.newest))
    }
  }

  func testMinutesCoverTheAggregateRetentionWithEveryTickCounted() throws {
    let database = try writeScript()
    try maintenance.runToCompletion(database)

    let firstMinute = ((script.newest - 7200) / 60).rounded(.up) * 60
    let minutes = Array(
      stride(from: firstMinute, through: TickScript.minute(script.newest), by: 60))
    // Minutes 60 ... 179 of the three hours: those starting at or after newest - 7200 s.
    XCTAssertEqual(minutes.count, 120)
    try database.read { db in
      XCTAssertEqual(
        try Double.fetchAll(db, sql: "SELECT DISTINCT minute FROM peer_minutes ORDER BY minute"),
        minutes)
      XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM peer_minutes"), 3 * 120)
      for (peer, name) in script.peerNames.enumerated() {
        let ticks = script.ticks(from: firstMinute, to: script.newest + 1)
        let tally = ScriptTally(script, peer: peer, ticks: ticks)
        let sums = try XCTUnwrap(
          Row.fetchOne(
            db,
            sql: """
              SELECT sum(m.seconds), sum(m.ticks),
                \(Self.levelColumns.map { "sum(m.\($0))" }.joined(separator: ", "))
              FROM peer_minutes m JOIN peers p ON p.id = m.peer_id WHERE p.name = ?
              """, arguments: [name]))
        XCTAssertEqual(sums[0] as Double, Double(ticks.count) * 2, name)
        XCTAssertEqual(sums[1] as Int, ticks.count, name)
        let levelSeconds = (0..<14).map { sums[2 + $0] as Double }
        XCTAssertEqual(levelSeconds, tally.txLevelSeconds + tally.rxLevelSeconds, name)
        XCTAssertEqual(levelSeconds.reduce(0, +), 2 * tally.seconds, name)
      }
    }
  }

  func testOneMinutesFiguresMatchTheTicksInIt() throws {
    let database = try writeScript()
    try maintenance.runToCompletion(database)

    let minute = TickScript.minute(script.newest - 1800)
    let ticks = script.ticks(from: minute, to: minute + 60)
    XCTAssertEqual(ticks.count, 30)
    let tally = ScriptTally(script, peer: 2, ticks: ticks)
    // The minute has ticks without rx MOS and without a round trip: those are left out.
    XCTAssertLessThan(tally.rxMOS.count, 30)
    XCTAssertLessThan(tally.roundTrip.count, 30)
    let row = try XCTUnwrap(
      database.read { db in
        try Row.fetchOne(
          db,
          sql: """
            SELECT * FROM peer_minutes
            WHERE minute = ? AND peer_id = (SELECT id FROM peers WHERE name = '10.0.0.3')
            """, arguments: [minute])
      })
    XCTAssertEqual(row["seconds"] as Double, 60)
    XCTAssertEqual(row["ticks"] as Int, 30)
    XCTAssertEqual(row["tx_level_max"] as Int, tally.txLevelMax)
    XCTAssertEqual(row["rx_level_max"] as Int, tally.rxLevelMax)
    for level in 0..<7 {
      XCTAssertEqual(row["tx_level\(level)_s"] as Double, tally.txLevelSeconds[level])
      XCTAssertEqual(row["rx_level\(level)_s"] as Double, tally.rxLevelSeconds[level])
    }
    let figures: [(String, ScriptTally.Figure)] = [
      ("tx_mos", tally.txMOS), ("rx_mos", tally.rxMOS), ("rtt", tally.roundTrip),
    ]
    for (name, figure) in figures {
      let suffix = name == "rtt" ? "_ms" : ""
      assertEqual(row["\(name)_min\(suffix)"], figure.min, name)
      assertEqual(row["\(name)_avg\(suffix)"], figure.average, name)
      assertEqual(row["\(name)_max\(suffix)"], figure.max, name)
    }
    assertEqual(row["tx_loss_avg"], tally.txLoss.average, "tx_loss")
    assertEqual(row["tx_loss_max"], tally.txLoss.max, "tx_loss")
    assertEqual(row["rx_loss_avg"], tally.rxLoss.average, "rx_loss")
    assertEqual(row["rx_loss_max"], tally.rxLoss.max, "rx_loss")
    assertEqual(row["tx_jitter_avg_ms"], tally.txJitter.average, "tx_jitter")
    assertEqual(row["tx_jitter_max_ms"], tally.txJitter.max, "tx_jitter")
    assertEqual(row["rx_jitter_avg_ms"], tally.rxJitter.average, "rx_jitter")
    assertEqual(row["rx_jitter_max_ms"], tally.rxJitter.max, "rx_jitter")
    XCTAssertEqual(row["rx_packets"] as Int64, tally.rxPackets)
    XCTAssertEqual(row["rx_lost"] as Int64, tally.rxLost)
    XCTAssertEqual(row["tx_packets"] as Int64, tally.txPackets)
  }

  func testEventsOlderThanTheAggregateRetentionGo() throws {
    let database = try writeScript()
    try maintenance.runToCompletion(database)
    try database.read { db in
      XCTAssertEqual(try String.fetchAll(db, sql: "SELECT kind FROM events"), ["disconnected"])
      XCTAssertEqual(try Double.fetchOne(db, sql: "SELECT time FROM events"), script.time(5000))
    }
  }

  /// Calls are kept as long as events: one that ended at the first tick goes, one that ended
  /// within the aggregate retention stays, its record whole.
  func testCallsOlderThanTheAggregateRetentionGo() throws {
    let writer = try makeWriter()
    for tick in 0..<script.tickCount {
      var written = script.tick(tick)
      if tick == 0 || tick == 5000 {
        let end = script.captureTime(tick)
        var call = CallRecord(
          id: "call-\(tick)", kind: .sip, peers: ["10.0.0.2"], start: end.advanced(bySeconds: -30),
          end: end, endReason: .byeCaller)
        call.callID = "\(tick)@example.net"
        call.finalStatus = 200
        call.answer = end.advanced(bySeconds: -28)
        written.snapshot.calls.ended = [call]
      }
      try writer.write(written)
    }
    try writer.database.read { db in
      XCTAssertEqual(
        try String.fetchAll(db, sql: "SELECT id FROM calls ORDER BY end"),
        [
          "call-0", "call-5000",
        ])
    }
    try maintenance.runToCompletion(writer.database)
    try writer.database.read { db in
      XCTAssertEqual(try String.fetchAll(db, sql: "SELECT id FROM calls"), ["call-5000"])
      let query = HistoryCallsQuery(from: 0, to: .infinity)
      let rows = try query.rows(db)
      XCTAssertEqual(rows.map(\.callID), ["5000@example.net"])
      XCTAssertEqual(rows.first?.end, script.time(5000))
      XCTAssertTrue(rows.first?.record.contains(#""end_reason":"bye_caller""#) ?? false)
    }
  }

  private func assertEqual(
    _ stored: Double?, _ expected: Double?, _ name: String, line: UInt = #line
  ) {
    guard let stored, let expected else {
      XCTAssertEqual(stored, expected, name, line: line)
      return
    }
    XCTAssertEqual(stored, expected, accuracy: 1e-9, name, line: line)
  }

  static let levelColumns =
    (0..<7).map { "tx_level\($0)_s" } + (0..<7).map { "rx_level\($0)_s" }
}
