import GRDB
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// How minutes are rolled up as ticks come: after every tick as the recorder does, in bounded
/// passes after a backlog, and the minute in progress at the end.
final class HistoryRollupTests: HistoryTestCase {
  private let keepEverything = HistoryMaintenance(
    rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0)

  private func minuteRows(_ database: DatabaseQueue) throws -> [Row] {
    try database.read { db in
      try Row.fetchAll(
        db,
        sql: """
          SELECT m.minute, p.name, m.ticks, m.seconds, m.tx_level_max, m.rx_level_max,
            m.tx_mos_avg, m.rx_packets
          FROM peer_minutes m JOIN peers p ON p.id = m.peer_id ORDER BY m.minute, p.name
          """)
    }
  }

  private func expectedRows(_ script: TickScript, minutes: [Double]) -> [[String]] {
    minutes.flatMap { minute in
      script.peerNames.indices.map { peer in
        let tally = ScriptTally(
          script, peer: peer, ticks: script.ticks(from: minute, to: minute + 60))
        return [
          "\(minute)", script.peerNames[peer], "\(tally.ticks)", "\(tally.seconds)",
          "\(tally.txLevelMax)", "\(tally.rxLevelMax)", "\(tally.txMOS.average ?? -1)",
          "\(tally.rxPackets)",
        ]
      }
    }
  }

  private func text(_ rows: [Row]) -> [[String]] {
    rows.map { row in
      [
        "\(row[0] as Double)", row[1], "\(row[2] as Int)", "\(row[3] as Double)",
        "\(row[4] as Int)", "\(row[5] as Int)", "\((row[6] as Double?) ?? -1)",
        "\(row[7] as Int64)",
      ]
    }
  }

  func testMaintenanceAfterEveryTickAggregatesEachCompleteMinute() throws {
    let script = TickScript(tickCount: 25 * 30)
    let writer = try makeWriter()
    var minutesAggregated = 0
    for tick in 0..<script.tickCount {
      try writer.write(script.tick(tick))
      let pass = try keepEverything.run(writer.database)
      XCTAssertFalse(pass.behind)
      XCTAssertEqual(pass.rawRowsDeleted, 0)
      minutesAggregated += pass.minutesAggregated
    }
    // The newest minute is in progress: not aggregated yet, and the watermark at its start.
    let complete = (0..<24).map { script.start + Double($0) * 60 }
    XCTAssertEqual(minutesAggregated, 24)
    XCTAssertEqual(text(try minuteRows(writer.database)), expectedRows(script, minutes: complete))
    try writer.database.read { db in
      XCTAssertEqual(
        try Double.fetchOne(db, sql: "SELECT watermark FROM rollup WHERE name = 'peer_minutes'"),
        script.start + 24 * 60)
    }

    // At the end the minute in progress is aggregated too; the watermark stays before it.
    try keepEverything.runToCompletion(writer.database)
    let all = complete + [script.start + 24 * 60]
    XCTAssertEqual(text(try minuteRows(writer.database)), expectedRows(script, minutes: all))
    try writer.database.read { db in
      XCTAssertEqual(
        try Double.fetchOne(db, sql: "SELECT watermark FROM rollup WHERE name = 'peer_minutes'"),
        script.start + 24 * 60)
    }
  }

  func testMinuteAggregatedAtTheEndIsAggregatedAgainWhenTicksFollow() throws {
    let script = TickScript(tickCount: 45)
    let writer = try makeWriter()
    for tick in 0..<40 { try writer.write(script.tick(tick)) }
    try keepEverything.runToCompletion(writer.database)
    // Ticks 30...39 of the second minute so far.
    XCTAssertEqual(try minuteRows(writer.database).last.map { $0[2] as Int }, 10)

    for tick in 40..<45 { try writer.write(script.tick(tick)) }
    try keepEverything.runToCompletion(writer.database)
    XCTAssertEqual(
      text(try minuteRows(writer.database)),
      expectedRows(script, minutes: [script.start, script.start + 60]))
    XCTAssertEqual(try minuteRows(writer.database).last.map { $0[2] as Int }, 15)
  }

  func testBacklogIsWorkedOffInBoundedPasses() throws {
    let script = TickScript(tickCount: 35 * 30)
    let writer = try makeWriter()
    for tick in 0..<script.tickCount { try writer.write(script.tick(tick)) }

    var passes: [HistoryMaintenance.Pass] = []
    repeat {
      passes.append(try keepEverything.run(writer.database))
    } while passes.last?.behind == true
    XCTAssertEqual(passes.map(\.minutesAggregated), [10, 10, 10, 4])
    XCTAssertEqual(passes.map(\.behind), [true, true, true, false])
    XCTAssertEqual(try count("peer_minutes", in: writer.database), 34 * 3)
  }

  func testAnEmptyFileNeedsNoMaintenance() throws {
    let writer = try makeWriter()
    let pass = try keepEverything.run(writer.database)
    XCTAssertEqual(pass.minutesAggregated, 0)
    XCTAssertEqual(pass.rawRowsDeleted, 0)
    XCTAssertEqual(pass.aggregateRowsDeleted, 0)
    XCTAssertFalse(pass.behind)
    XCTAssertEqual(try count("rollup", in: writer.database), 0)
  }
}
