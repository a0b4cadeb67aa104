import GRDB
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// Reports over hours: three peers for 3 h 20 min at a tick every 10 s, reported after every
/// maintenance pass, as the minute and hour watermarks move from nothing rolled up to all of
/// it, for a range of whole hours and one off the hour at both ends: always the tallies of the
/// ticks written.
final class HistoryReportHoursTests: HistoryTestCase {
  private let script = TickScript(intervalSeconds: 10, tickCount: 1200)

  private func watermarks(_ database: DatabaseQueue) throws -> String {
    try database.read { db in
      try Row.fetchAll(db, sql: "SELECT name, watermark FROM rollup ORDER BY name").map {
        "\($0[0] as String) \($0[1] as Double)"
      }.joined(separator: ", ")
    }
  }

  func testEveryPassGivesTheSameReport() throws {
    let writer = try makeWriter()
    for tick in 0..<script.tickCount { try writer.write(script.tick(tick)) }
    let database = writer.database
    let maintenance = HistoryMaintenance(
      rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0)
    // The whole run; 22:34:20 to 01:09:27, off the hour and off the minute.
    let ranges = [(script.start, script.newest + 1), (1_700_001_260.0, 1_700_010_567.0)]
    var passes = 0
    var hoursRolled = 0
    while true {
      for (from, to) in ranges {
        let report = try database.read { db in try HistoryReport.make(db, from: from, to: to) }
        assertReportEqualsTally(
          report, script, from: from, to: to, "pass \(passes): \(try watermarks(database))")
      }
      let pass = try maintenance.run(database)
      hoursRolled += pass.hoursAggregated
      passes += 1
      if !pass.behind || passes > 100 { break }
    }
    // 199 complete minutes at 10 a pass, the two whole hours (23:00 and 00:00) one a pass.
    XCTAssertEqual(passes, 20)
    XCTAssertEqual(hoursRolled, 2)
    XCTAssertEqual(try count("peer_hours", in: database), 6)
  }

  func testOnePeerOverHoursEqualsItsRowOfTheWhole() throws {
    let writer = try makeWriter()
    for tick in 0..<script.tickCount { try writer.write(script.tick(tick)) }
    try HistoryMaintenance(rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0)
      .runToCompletion(writer.database)
    let (all, one) = try writer.database.read { db in
      (
        try HistoryReport.make(db, from: script.start, to: script.newest + 1),
        try HistoryReport.make(db, from: script.start, to: script.newest + 1, peer: "10.0.0.3")
      )
    }
    XCTAssertEqual(one.peers.count, 1)
    let peer = try XCTUnwrap(one.peers.first)
    XCTAssertEqual(peer.peer, all.peers[2].peer)
    XCTAssertEqual(peer.seconds, all.peers[2].seconds)
    XCTAssertEqual(peer.rxLevelSeconds, all.peers[2].rxLevelSeconds)
    XCTAssertEqual(peer.worstWindows, all.peers[2].worstWindows)
  }
}
