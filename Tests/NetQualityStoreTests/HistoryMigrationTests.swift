import Foundation
import GRDB
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

final class HistoryMigrationTests: HistoryTestCase {
  static let firstMigration = "v1: runs, peers, ticks, peer ticks, events, alerts"

  /// A file as the first schema left it: one run, one peer, one tick with its peer row.
  private func makeFirstVersionFile(_ path: String) throws {
    let queue = try DatabaseQueue(path: path)
    try HistorySchema.migrator.migrate(queue, upTo: Self.firstMigration)
    try queue.write { db in
      try db.execute(
        sql: """
          INSERT INTO runs (id, kind, name, version, started_at)
            VALUES (1, 'agent', 'old-host', '0.1', 1700000000);
          INSERT INTO peers (id, name, first_seen) VALUES (1, '192.0.2.7', 1700000000);
          INSERT INTO ticks (time, run_id, interval_s, host_tx_level, host_rx_level, peers,
              streams, capture_frames, capture_dropped, decode_errors)
            VALUES (1700000002, 1, 2.0, 2, 3, 1, 2, 500, 1, 0);
          INSERT INTO peer_ticks (time, peer_id, state, tx_level, rx_level, tx_source,
              rx_source, tx_mos, rx_mos, tx_loss_ratio, rx_loss_ratio, tx_jitter_ms,
              rx_jitter_ms, rtt_ms, rtt_source, rx_packets, rx_lost, tx_packets,
              rx_bitrate_bps, streams)
            VALUES (1700000002, 1, 1, 2, 3, 2, 1, 4.1, 3.6, 0.01, 0.04, 3.5, 12.25, 48.0, 1,
              98, 4, 100, 64000, 2);
          """)
    }
    try queue.close()
  }

  func testFirstVersionFileIsUpgradedInPlaceWithItsRowsIntact() throws {
    let file = path("old.sqlite")
    try makeFirstVersionFile(file)

    let database = try HistoryDatabase.openForWriting(path: file)
    try database.read { db in
      for table in [
        "peer_minutes", "streams", "stream_ticks", "storage_events", "rollup", "peer_hours",
        "peer_worst_minutes",
      ] {
        XCTAssertTrue(try db.tableExists(table), table)
      }
      XCTAssertTrue(try db.viewExists("peer_history"))
      let applied = try HistorySchema.migrator.appliedIdentifiers(db)
      XCTAssertTrue(applied.isSuperset(of: [Self.firstMigration, HistorySchema.currentVersion]))
      XCTAssertEqual(applied, Set(HistorySchema.migrator.migrations))
      let run = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT name, version FROM runs"))
      XCTAssertEqual(run[0] as String, "old-host")
      XCTAssertEqual(run[1] as String, "0.1")
      let tick = try XCTUnwrap(
        Row.fetchOne(db, sql: "SELECT time, host_rx_level, capture_frames FROM ticks"))
      XCTAssertEqual(tick[0] as Double, 1_700_000_002)
      XCTAssertEqual(tick[1] as Int, 3)
      XCTAssertEqual(tick[2] as Int, 500)
      // The view added by the second migration reads the first one's rows.
      let row = try XCTUnwrap(
        Row.fetchOne(db, sql: "SELECT utc, peer, state, rx_mos, rx_lost FROM peer_history"))
      XCTAssertEqual(row[0] as String, "2023-11-14 22:13:22")
      XCTAssertEqual(row[1] as String, "192.0.2.7")
      XCTAssertEqual(row[2] as String, "connected")
      XCTAssertEqual(row[3] as Double, 3.6)
      XCTAssertEqual(row[4] as Int, 4)
    }
    try database.close()

    let reader = try HistoryDatabase.openForReading(path: file)
    let rows = try reader.read { db in
      try HistoryQuery(from: 1_700_000_000, to: 1_700_000_010).rows(db)
    }
    XCTAssertEqual(rows.count, 1)
    let row = try XCTUnwrap(rows.first)
    XCTAssertEqual(row.peer, "192.0.2.7")
    XCTAssertEqual(row.time, 1_700_000_002)
    XCTAssertEqual(row.intervalSeconds, 2)
    XCTAssertEqual(row.state, .connected)
    XCTAssertEqual(row.txLevel, .good)
    XCTAssertEqual(row.rxLevel, .poor)
    XCTAssertEqual(row.txSource, .probe)
    XCTAssertEqual(row.rxSource, .rtp)
    XCTAssertEqual(row.rxMOS, 3.6)
    XCTAssertEqual(row.rxJitterMilliseconds, 12.25)
    XCTAssertEqual(row.roundTripMilliseconds, 48)
    XCTAssertEqual(row.roundTripSource, .rtcp)
    XCTAssertEqual(row.rxPackets, 98)
    XCTAssertEqual(row.streams, 2)
  }

  func testOpeningForWritingTwiceKeepsTheRows() throws {
    let writer = try makeWriter()
    let script = TickScript(tickCount: 3)
    for tick in 0..<3 { try writer.write(script.tick(tick)) }
    try writer.database.close()

    let reopened = try HistoryDatabase.openForWriting(path: path("history.sqlite"))
    XCTAssertEqual(try count("ticks", in: reopened), 3)
    XCTAssertEqual(try count("peer_ticks", in: reopened), 9)
  }

  func testReadingRefusesAFileOfTheFirstVersion() throws {
    let file = path("old.sqlite")
    try makeFirstVersionFile(file)
    assertRefused(file, saying: "not a netquality history of this version")
  }

  func testReadingRefusesAFileThatIsNoDatabase() throws {
    let file = path("garbage.sqlite")
    try Self.garbage.write(to: URL(fileURLWithPath: file))
    assertRefused(file, saying: "not a valid SQLite database")
  }

  func testReadingRefusesAMissingFile() {
    assertRefused(path("missing.sqlite"), saying: "no such history database")
  }

  func testReadingRefusesAnEmptyDatabase() throws {
    let file = path("empty.sqlite")
    try DatabaseQueue(path: file).write { db in
      try db.execute(sql: "CREATE TABLE other (x)")
    }
    assertRefused(file, saying: "not a netquality history of this version")
  }

  private func assertRefused(
    _ file: String, saying expected: String, line: UInt = #line
  ) {
    do {
      _ = try HistoryDatabase.openForReading(path: file)
      XCTFail("\(file) was opened", line: line)
    } catch {
      let message = error.description
      XCTAssertTrue(message.hasPrefix(file + ": "), message, line: line)
      XCTAssertTrue(message.contains(expected), message, line: line)
      XCTAssertFalse(message.contains("\n"), message, line: line)
    }
  }
}
