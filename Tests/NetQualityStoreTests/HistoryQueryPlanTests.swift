import GRDB
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// The history's questions must not scan the per-tick table: at 1,000 peers it holds 86 million
/// rows for 48 h. Each statement a question runs is captured and its query plan checked.
final class HistoryQueryPlanTests: HistoryTestCase {
  /// The query plans of the statements `body` runs, one text per statement.
  private func plans(_ database: DatabaseQueue, _ body: (Database) throws -> Void) throws
    -> [String]
  {
    try database.read { db in
      var statements: [String] = []
      db.trace(options: .statement) { event in
        if case .statement(let statement) = event { statements.append(statement.sql) }
      }
      try body(db)
      db.trace(options: .statement, nil)
      return try statements.map { sql in
        // Unbound parameters are NULL: the plan does not depend on their values.
        let explain = try db.makeStatement(sql: "EXPLAIN QUERY PLAN " + sql)
        explain.setUncheckedArguments([])
        let rows = try Row.fetchAll(explain)
        return rows.map { $0["detail"] as String }.joined(separator: "\n")
      }
    }
  }

  private func writeTicks() throws -> DatabaseQueue {
    let writer = try makeWriter()
    let script = TickScript(tickCount: 40)
    for tick in 0..<script.tickCount { try writer.write(script.tick(tick)) }
    return writer.database
  }

  func testOnePeersTicksAreFoundByPrimaryKeyATickAtATime() throws {
    let database = try writeTicks()
    let query = HistoryQuery(from: TickScript.epoch, to: TickScript.epoch + 60, peer: "10.0.0.2")
    let plan = try plans(database) { db in _ = try query.rows(db) }.joined(separator: "\n")
    XCTAssertTrue(plan.contains("SEARCH t USING PRIMARY KEY (time>? AND time<?)"), plan)
    XCTAssertTrue(plan.contains("SEARCH p USING PRIMARY KEY (time=? AND peer_id=?)"), plan)
    XCTAssertFalse(plan.contains("SCAN p"), plan)
  }

  func testReportSearchesRangesAndScansNoStoredTable() throws {
    let database = try writeTicks()
    for peer in [nil, "10.0.0.2"] {
      let plan = try plans(database) { db in
        _ = try HistoryReport.make(
          db, from: TickScript.epoch, to: TickScript.epoch + 3600, peer: peer)
      }.joined(separator: "\n")
      XCTAssertTrue(plan.contains("SEARCH peer_hours USING PRIMARY KEY (hour>? AND hour<?)"), plan)
      XCTAssertTrue(plan.contains("SEARCH peer_worst_minutes USING PRIMARY KEY"), plan)
      XCTAssertTrue(plan.contains("SEARCH peer_minutes USING"), plan)
      XCTAssertTrue(plan.contains("SEARCH t USING PRIMARY KEY (time>? AND time<?)"), plan)
      XCTAssertTrue(plan.contains("SEARCH p USING PRIMARY KEY (time=?"), plan)
      let scanned = plan.split(separator: "\n").filter { $0.hasPrefix("SCAN ") }.map {
        $0.dropFirst(5).split(separator: " ").first.map(String.init) ?? ""
      }
      let stored: Set = ["p", "t", "peer_ticks", "ticks", "peer_minutes", "events", "alerts"]
      XCTAssertTrue(stored.isDisjoint(with: scanned), "\(peer ?? "all peers"): \(scanned)")
    }
  }
}
