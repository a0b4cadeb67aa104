import Foundation
import GRDB
import NetQualityStoreTestSupport
import XCTest

@testable import NetQualityStore

final class HistoryCheckpointsTests: HistoryTestCase {
  private struct FileStamp: Equatable {
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int
    var size: Int64
  }

  private func stamp(_ path: String) throws -> FileStamp {
    var info = stat()
    guard stat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
    return FileStamp(
      modifiedSeconds: info.st_mtim.tv_sec, modifiedNanoseconds: info.st_mtim.tv_nsec,
      size: Int64(info.st_size))
  }

  /// A history file for writing with a table of filler rows, its checkpoints taken over.
  private func openWithFiller(_ path: String) throws -> (DatabaseQueue, HistoryCheckpoints) {
    let database = try HistoryDatabase.openForWriting(path: path)
    try database.write { db in
      try db.execute(sql: "CREATE TABLE filler (id INTEGER PRIMARY KEY, bytes BLOB NOT NULL)")
    }
    return (database, try HistoryCheckpoints(of: database))
  }

  /// Rows of 4 KiB in `count` transactions: at least a page of WAL each.
  private func insert(_ count: Int, into database: DatabaseQueue) throws {
    for _ in 0..<count {
      try database.write { db in
        try db.execute(sql: "INSERT INTO filler (bytes) VALUES (?)", arguments: [Self.garbage])
      }
    }
  }

  /// The CI flake of scenario 6 of e2e/history/history-faults.sh: the writer's commits never
  /// write the database file, however long the WAL grows (SQLite's automatic checkpoint would
  /// have at 1,000 frames); its own checkpoint does, once due, and is done after it.
  func testCommitsLeaveTheDatabaseFileToTheWritersOwnCheckpoint() throws {
    let path = path("history.sqlite")
    let (database, checkpoints) = try openWithFiller(path)
    try database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    let before = try stamp(path)

    // Rows until the WAL is as long as SQLite's automatic checkpoint would allow.
    var rows = 0
    var framesBefore: Int32 = 0
    while !checkpoints.isDue && rows < 5000 {
      framesBefore = checkpoints.walFrames
      try insert(1, into: database)
      rows += 1
      XCTAssertGreaterThan(checkpoints.walFrames, framesBefore, "a commit's frames told")
    }
    XCTAssertTrue(checkpoints.isDue, "\(checkpoints.walFrames) frames after \(rows) rows")
    XCTAssertLessThan(framesBefore, HistoryCheckpoints.framesBeforeCheckpoint)
    // Twice as long: SQLite's own checkpoint would have run.
    try insert(rows, into: database)
    rows *= 2
    XCTAssertGreaterThanOrEqual(
      checkpoints.walFrames, 2 * HistoryCheckpoints.framesBeforeCheckpoint - 10)
    XCTAssertEqual(try stamp(path), before, "the database file written by a commit")

    try checkpoints.run()
    XCTAssertFalse(checkpoints.isDue, "\(checkpoints.walFrames) frames left")
    let after = try stamp(path)
    XCTAssertGreaterThan(
      after.size, before.size + Int64(rows) * 4096, "the rows checkpointed into it")

    // The file alone (its WAL set aside) holds every row.
    let copy = self.path("copy.sqlite")
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    let alone = try DatabaseQueue(path: copy)
    XCTAssertEqual(try count("filler", in: alone), rows)
    try alone.close()
    try database.close()
  }

  /// A reader in the middle of a read transaction keeps a checkpoint from finishing: it stays
  /// due and finishes once the reader is done.
  func testACheckpointHeldBackByAReaderStaysDue() throws {
    let path = path("history.sqlite")
    let (database, checkpoints) = try openWithFiller(path)
    try insert(10, into: database)
    let reader = try HistoryDatabase.openForReading(path: path)
    try reader.read { db in
      XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM filler"), 10)
      // The reader's snapshot ends at frame 10 or so: what comes after cannot be copied.
      try insert(1100, into: database)
      XCTAssertTrue(checkpoints.isDue)
      try checkpoints.run()
      XCTAssertTrue(checkpoints.isDue, "\(checkpoints.walFrames) frames")
    }
    try checkpoints.run()
    XCTAssertFalse(checkpoints.isDue, "\(checkpoints.walFrames) frames")
    try reader.close()
    try database.close()
  }
}
