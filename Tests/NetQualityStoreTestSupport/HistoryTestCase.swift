import Foundation
import GRDB
import NetQualityStore
import XCTest

/// A test case with a fresh temporary directory for its history files, removed afterwards.
open class HistoryTestCase: XCTestCase {
  public private(set) var directory = URL(fileURLWithPath: "/nonexistent")

  override open func setUpWithError() throws {
    try super.setUpWithError()
    directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "netquality-store-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  override open func tearDownWithError() throws {
    // SQLite deletes a WAL file when the last connection to it closes, which a connection the
    // test let go of may do while the directory is being removed: a file that vanished under
    // the removal is not a failure, a directory left behind after a second try is.
    do {
      try FileManager.default.removeItem(at: directory)
    } catch {
      if FileManager.default.fileExists(atPath: directory.path) {
        try FileManager.default.removeItem(at: directory)
      }
    }
    try super.tearDownWithError()
  }

  /// 4,096 bytes that are no SQLite file (its header starts "SQLite format 3").
  public static let garbage = Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) })

  /// A path in the test's directory.
  public func path(_ name: String) -> String {
    directory.appendingPathComponent(name).path
  }

  /// A new history file at `name`, migrated, with a writer for one run.
  public func makeWriter(_ name: String = "history.sqlite", startedAt: Double = TickScript.epoch)
    throws -> HistoryWriter
  {
    let database = try HistoryDatabase.openForWriting(path: path(name))
    return try HistoryWriter(
      database: database, kind: "agent", name: "test-host", version: "test",
      startedAt: startedAt)
  }

  /// The rows of `table`.
  public func count(_ table: String, in database: DatabaseQueue, where condition: String = "1")
    throws -> Int
  {
    try database.read { db in
      try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table) WHERE \(condition)") ?? -1
    }
  }
}
