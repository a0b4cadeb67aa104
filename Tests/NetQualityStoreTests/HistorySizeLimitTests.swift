import GRDB
import NetQualityStore
import NetQualityStoreTestSupport
import XCTest

/// The size limit: over it, the oldest raw rows go first (only those already aggregated), then
/// the oldest minutes.
final class HistorySizeLimitTests: HistoryTestCase {
  private let script = TickScript(tickCount: 40 * 30)

  private func maintenance(maxBytes: Int64) -> HistoryMaintenance {
    HistoryMaintenance(
      rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: maxBytes)
  }

  private func writeScript() throws -> DatabaseQueue {
    let writer = try makeWriter()
    for tick in 0..<script.tickCount { try writer.write(script.tick(tick)) }
    return writer.database
  }

  private struct State {
    var watermark: Double?
    var rawTimes: [Double]
    var minutes: [Double]
    var usedBytes: Int64
  }

  private func state(_ database: DatabaseQueue) throws -> State {
    try database.read { db in
      State(
        watermark: try Double.fetchOne(
          db, sql: "SELECT watermark FROM rollup WHERE name = 'peer_minutes'"),
        rawTimes: try Double.fetchAll(db, sql: "SELECT time FROM ticks ORDER BY time"),
        minutes: try Double.fetchAll(
          db, sql: "SELECT DISTINCT minute FROM peer_minutes ORDER BY minute"),
        usedBytes: try HistoryMaintenance.usedBytes(db))
    }
  }

  func testSlightlyOverTheLimitOneChunkOfTheOldestRawRowsGoes() throws {
    let database = try writeScript()
    try maintenance(maxBytes: 0).runToCompletion(database)
    let before = try state(database)
    XCTAssertEqual(before.rawTimes.count, script.tickCount)
    XCTAssertEqual(before.minutes.count, 40)

    let pass = try maintenance(maxBytes: before.usedBytes - 1).run(database)
    let after = try state(database)
    // One chunk: the first minute's 30 ticks of 3 peers, and nothing of the minutes.
    XCTAssertEqual(pass.rawRowsDeleted, 30 * 4)
    XCTAssertEqual(after.rawTimes, Array(before.rawTimes.dropFirst(30)))
    XCTAssertEqual(after.minutes, before.minutes)
    XCTAssertLessThan(after.usedBytes, before.usedBytes)
  }

  func testFarOverTheLimitRawGoesUpToTheWatermarkThenMinutesOldestFirst() throws {
    let database = try writeScript()
    let tiny = maintenance(maxBytes: 1)
    var passes = 0
    var now = try state(database)
    var minutesWent = false
    repeat {
      let pass = try tiny.run(database)
      passes += 1
      now = try state(database)
      let watermark = try XCTUnwrap(now.watermark)
      // Never a raw row that is not aggregated: every tick from the watermark on is there.
      XCTAssertEqual(
        now.rawTimes.filter { $0 >= watermark },
        script.ticks(from: watermark, to: script.newest + 1).map(script.time))
      // Oldest first: what is left of the raw rows and of the minutes are contiguous tails.
      if let oldest = now.rawTimes.first {
        XCTAssertEqual(
          now.rawTimes, script.ticks(from: oldest, to: script.newest + 1).map(script.time))
      }
      if let oldest = now.minutes.first {
        XCTAssertEqual(now.minutes, Array(stride(from: oldest, to: watermark, by: 60)))
      }
      // Minutes only go once no aggregated raw row is left to give.
      if pass.aggregateRowsDeleted > 0 {
        minutesWent = true
        XCTAssertEqual(pass.rawRowsDeleted, 0)
        XCTAssertFalse(now.rawTimes.contains { $0 < watermark })
      }
      if !pass.behind { break }
    } while passes < 1000
    XCTAssertTrue(minutesWent)
    // 4 passes roll the 39 complete minutes up, 39 delete a minute of raw rows each, one
    // deletes the minutes, and the last finds nothing left to delete.
    XCTAssertEqual(passes, 41)

    // What cannot go: the minute in progress, whose ticks are not aggregated yet.
    let newestMinute = TickScript.minute(script.newest)
    XCTAssertEqual(now.watermark, newestMinute)
    XCTAssertEqual(
      now.rawTimes, script.ticks(from: newestMinute, to: script.newest + 1).map(script.time))
    // Every aggregated minute went too.
    XCTAssertEqual(now.minutes, [])

    // To the end, the minute in progress is aggregated and stays (it is not before the
    // watermark), and the passes come to an end.
    try tiny.runToCompletion(database)
    XCTAssertEqual(try state(database).minutes, [newestMinute])
    XCTAssertEqual(try state(database).rawTimes.count, 30)
  }
}
