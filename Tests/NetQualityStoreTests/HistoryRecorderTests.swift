import Foundation
import GRDB
import NetQualityStore
import NetQualityStoreTestSupport
import Synchronization
import XCTest

/// The recorder's thread against a file it cannot write, a full queue and a corrupt file; the
/// assertions poll the counters up to a deadline, they never rely on a fixed sleep.
final class HistoryRecorderTests: HistoryTestCase {
  private let script = TickScript(tickCount: 20)
  private let log = LogLines()
  private static let deadlineSeconds = 10.0

  /// The log lines a recorder wrote.
  private final class LogLines: Sendable {
    private let lines = Mutex<[(HistoryRecorder.LogLevel, String)]>([])

    var all: [(HistoryRecorder.LogLevel, String)] { lines.withLock { $0 } }

    func append(_ level: HistoryRecorder.LogLevel, _ line: String) {
      lines.withLock { $0.append((level, line)) }
    }
  }

  private func makeRecorder(
    _ path: String, queueCapacity: Int = 64, queueMaxRows: Int = 250_000
  ) -> HistoryRecorder {
    let log = self.log
    let recorder = HistoryRecorder(
      settings: HistoryRecorder.Settings(
        path: path,
        maintenance: HistoryMaintenance(
          rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0),
        queueCapacity: queueCapacity, queueMaxRows: queueMaxRows, runName: "test-host",
        version: "test"),
      log: { level, line in log.append(level, line) })
    recorder.start()
    return recorder
  }

  /// Polls `condition` until it holds or the deadline passes; returns whether it held.
  private func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(Self.deadlineSeconds)
    while Date() < deadline {
      if condition() { return true }
      Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
  }

  private func stop(_ recorder: HistoryRecorder) {
    XCTAssertTrue(recorder.stop(deadline: Date().addingTimeInterval(Self.deadlineSeconds)))
  }

  /// A path whose parent is a regular file: no directory can be made there, not even by root.
  private func blockedPath() throws -> (blocker: String, path: String) {
    let blocker = path("blocker")
    try Data("not a directory".utf8).write(to: URL(fileURLWithPath: blocker))
    return (blocker, blocker + "/history.sqlite")
  }

  func testUnwritablePathIsReportedOnceAndWritingResumesWhenItIsFixed() throws {
    let (blocker, file) = try blockedPath()
    let recorder = makeRecorder(file)
    for tick in 0..<3 { recorder.record(script.tick(tick)) }

    XCTAssertTrue(eventually { recorder.counters.fault != nil })
    let failing = recorder.counters
    XCTAssertEqual(failing.fault?.kind, .readOnly)
    XCTAssertEqual(failing.faultFirstKind, .readOnly)
    XCTAssertNotNil(failing.faultSince)
    XCTAssertGreaterThanOrEqual(failing.errors[.readOnly] ?? 0, 1)
    XCTAssertEqual(failing.ticksWritten, 0)
    XCTAssertEqual(failing.queueLength, 3)
    XCTAssertEqual(log.all.count, 1)
    XCTAssertEqual(log.all.first?.0, .error)
    XCTAssertTrue(log.all.first?.1.hasPrefix("history \(file): ") ?? false, "\(log.all)")
    XCTAssertTrue(log.all.first?.1.contains("ticks are queued (64 at most)") ?? false)

    try FileManager.default.removeItem(atPath: blocker)
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 3 })
    XCTAssertTrue(eventually { recorder.counters.fault == nil })
    XCTAssertNil(recorder.counters.faultSince)
    XCTAssertNil(recorder.counters.faultFirstKind)
    XCTAssertEqual(recorder.counters.queueLength, 0)
    XCTAssertEqual(recorder.counters.ticksDropped, 0)
    XCTAssertEqual(log.all.count, 2)
    XCTAssertEqual(log.all.last?.0, .info)
    XCTAssertTrue(log.all.last?.1.contains("writing again after") ?? false, "\(log.all)")
    XCTAssertTrue(log.all.last?.1.contains("of read_only (0 ticks dropped") ?? false)

    for tick in 3..<5 { recorder.record(script.tick(tick)) }
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 5 })
    stop(recorder)

    let database = try HistoryDatabase.openForReading(path: file)
    XCTAssertEqual(try count("ticks", in: database), 5)
    XCTAssertEqual(try count("peer_ticks", in: database), 15)
    XCTAssertEqual(try count("storage_events", in: database), 0)
    XCTAssertEqual(recorder.counters.rowsWritten["peer_ticks"], 15)
  }

  func testQueueIsBoundedByRowsTooSoLargeTicksAreNotHeldSixtyFourDeep() throws {
    let (blocker, file) = try blockedPath()
    let rows = (0..<10).map { script.tick($0).rows(withStreams: false) }
    // Room for the rows of three ticks: the fourth pushes the oldest out, whatever the count.
    let recorder = makeRecorder(file, queueMaxRows: rows[7] + rows[8] + rows[9])
    for tick in 0..<10 { recorder.record(script.tick(tick)) }
    XCTAssertEqual(recorder.counters.queueLength, 3)
    XCTAssertEqual(recorder.counters.ticksDropped, 7)

    try FileManager.default.removeItem(atPath: blocker)
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 3 })
    stop(recorder)
    let database = try HistoryDatabase.openForReading(path: file)
    try database.read { db in
      XCTAssertEqual(
        try Double.fetchAll(db, sql: "SELECT time FROM ticks ORDER BY time"),
        (7..<10).map(script.time))
    }
  }

  func testFullQueueDropsTheOldestTicksAndTheFileRecordsTheGap() throws {
    let (blocker, file) = try blockedPath()
    let recorder = makeRecorder(file, queueCapacity: 4)
    for tick in 0..<10 { recorder.record(script.tick(tick)) }
    XCTAssertEqual(recorder.counters.ticksDropped, 6)
    XCTAssertEqual(recorder.counters.queueLength, 4)
    XCTAssertTrue(eventually { recorder.counters.fault != nil })

    try FileManager.default.removeItem(atPath: blocker)
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 4 })
    XCTAssertTrue(log.all.last?.1.contains("(6 ticks dropped since the agent started)") ?? false)
    stop(recorder)

    let database = try HistoryDatabase.openForReading(path: file)
    try database.read { db in
      XCTAssertEqual(
        try Double.fetchAll(db, sql: "SELECT time FROM ticks ORDER BY time"),
        (6..<10).map(script.time))
      let gap = try XCTUnwrap(Row.fetchOne(db, sql: "SELECT time, kind, ticks FROM storage_events"))
      XCTAssertEqual(gap[0] as Double, script.time(6))
      XCTAssertEqual(gap[1] as String, "dropped")
      XCTAssertEqual(gap[2] as Int64, 6)
    }
    XCTAssertEqual(try count("storage_events", in: database), 1)
  }

  func testCorruptFileIsMovedAsideAndANewOneStarted() throws {
    let file = path("history.sqlite")
    try Self.garbage.write(to: URL(fileURLWithPath: file))
    let recorder = makeRecorder(file)
    for tick in 0..<2 { recorder.record(script.tick(tick)) }

    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 2 })
    stop(recorder)
    let counters = recorder.counters
    XCTAssertEqual(counters.filesMovedAside, 1)
    XCTAssertEqual(counters.errors[.corrupt], 1)
    XCTAssertNil(counters.fault)

    let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    let aside = names.filter { $0.hasPrefix("history.sqlite.corrupt-") }
    XCTAssertEqual(aside.count, 1, "\(names)")
    let moved = try Data(contentsOf: directory.appendingPathComponent(try XCTUnwrap(aside.first)))
    XCTAssertEqual(moved, Self.garbage)
    XCTAssertTrue(log.all.contains { $0.1.contains("corrupt; moved aside to \(file).corrupt-") })

    let database = try HistoryDatabase.openForReading(path: file)
    XCTAssertEqual(try count("ticks", in: database), 2)
  }

  func testDeletedWALIsReportedAndTheTicksLandInTheFileOpenedAgain() throws {
    let file = path("history.sqlite")
    let recorder = makeRecorder(file)
    for tick in 0..<3 { recorder.record(script.tick(tick)) }
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 3 })
    // What `rm history.db-wal history.db-shm` does under the running agent: SQLite writes on
    // into its unlinked copies, and without a check nothing ever reaches the file.
    try FileManager.default.removeItem(atPath: file + "-wal")
    try FileManager.default.removeItem(atPath: file + "-shm")

    recorder.record(script.tick(3))
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 4 })
    let reported = recorder.counters
    XCTAssertEqual(reported.errors[.io], 1)
    XCTAssertEqual(reported.fault?.kind, .io, "reported until a later tick is written")
    XCTAssertNotNil(reported.faultSince)
    XCTAssertEqual(log.all.count, 1, "\(log.all)")
    XCTAssertEqual(log.all.first?.0, .error)
    XCTAssertTrue(
      log.all.first?.1.hasPrefix(
        "history \(file): history.sqlite-wal and history.sqlite-shm deleted while the agent had "
          + "them open; the file is opened again, the ticks written before saved into it") ?? false,
      "\(log.all)")

    recorder.record(script.tick(4))
    XCTAssertTrue(eventually { recorder.counters.fault == nil })
    XCTAssertEqual(log.all.count, 2)
    XCTAssertTrue(log.all.last?.1.contains("writing again after") ?? false, "\(log.all)")
    for tick in 5..<8 { recorder.record(script.tick(tick)) }
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 8 })
    stop(recorder)

    // The file alone, as another process reads it: every tick, one run, the incident.
    let database = try HistoryDatabase.openForReading(path: file)
    try database.read { db in
      XCTAssertEqual(
        try Double.fetchAll(db, sql: "SELECT time FROM ticks ORDER BY time"),
        (0..<8).map(script.time))
      XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM runs"), 1)
      let incident = try XCTUnwrap(
        Row.fetchOne(db, sql: "SELECT time, kind, message FROM storage_events"))
      XCTAssertEqual(incident[0] as Double, script.time(3))
      XCTAssertEqual(incident[1] as String, "error")
      XCTAssertTrue((incident[2] as String).contains("history.sqlite-wal and history.sqlite-shm"))
    }
    XCTAssertEqual(try count("storage_events", in: database), 1)
  }

  /// The runs in `file` by id, with the times of their ticks.
  private func runsAndTicks(_ file: String) throws -> [String: [Double]] {
    let database = try HistoryDatabase.openForReading(path: file)
    return try database.read { db in
      var found: [String: [Double]] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT id, name FROM runs ORDER BY id") {
        let id: Int64 = row[0]
        let name: String = row[1]
        found["\(id) \(name)"] = try Double.fetchAll(
          db, sql: "SELECT time FROM ticks WHERE run_id = ? ORDER BY time", arguments: [id])
      }
      return found
    }
  }

  /// Issue 39: a history restored over the running agent's (`cp backup history.sqlite`: the
  /// same inode, new content) had its rows overwritten. It is noticed before the next write,
  /// reported once, and written to only as a new run; its own rows stay as restored.
  func testAFileOverwrittenInPlaceIsNeverWrittenOverAndGetsANewRun() throws {
    let file = path("history.sqlite")
    let restoredPath = path("restored.sqlite")
    do {
      let database = try HistoryDatabase.openForWriting(path: restoredPath)
      let writer = try HistoryWriter(
        database: database, kind: "agent", name: "restored-host", version: "old",
        startedAt: script.time(0) - 3600)
      for tick in 10..<13 { try writer.write(script.tick(tick)) }
      try database.close()
    }
    let restored = try Data(contentsOf: URL(fileURLWithPath: restoredPath))
    let recorder = makeRecorder(file)
    for tick in 0..<3 { recorder.record(script.tick(tick)) }
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 3 })
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: restored)
    try handle.close()

    for tick in 3..<6 { recorder.record(script.tick(tick)) }
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 6 })
    stop(recorder)
    XCTAssertEqual(recorder.counters.errors[.io], 1)
    XCTAssertEqual(
      log.all.filter { $0.1.contains("history.sqlite overwritten in place") }.count, 1, "\(log.all)"
    )
    XCTAssertEqual(
      try runsAndTicks(file),
      ["1 restored-host": (10..<13).map(script.time), "2 test-host": (3..<6).map(script.time)])
  }

  /// Issue 39: a backup of the running history moved back over it (`mv`: a new inode) had the
  /// agent's run resumed in it. The restored file's run is left as it was backed up; the
  /// ticks after it go into a new run.
  func testABackupOfThisRunMovedOverTheFileIsNotResumed() throws {
    let file = path("history.sqlite")
    let backup = path("backup.sqlite")
    let recorder = makeRecorder(file)
    for tick in 0..<3 { recorder.record(script.tick(tick)) }
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 3 })
    let reader = try HistoryDatabase.openForReading(path: file)
    try reader.inDatabase { db in try db.execute(sql: "VACUUM INTO ?", arguments: [backup]) }
    try reader.close()
    for tick in 3..<5 { recorder.record(script.tick(tick)) }
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 5 })
    XCTAssertEqual(rename(backup, file), 0)

    for tick in 5..<7 { recorder.record(script.tick(tick)) }
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 7 })
    stop(recorder)
    XCTAssertEqual(
      try runsAndTicks(file),
      ["1 test-host": (0..<3).map(script.time), "2 test-host": (5..<7).map(script.time)])
  }

  func testAReaderHoldingTheDeletedFilesDelaysTheNewOpenUntilItLetsGo() throws {
    let file = path("history.sqlite")
    let recorder = makeRecorder(file)
    recorder.record(script.tick(0))
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 1 })
    // A reader of this process (the API's, say) shares the writer's index, deleted or not: a
    // writer opened beside it would join the unlinked index instead of the file at the path.
    var reader: DatabaseQueue? = try HistoryDatabase.openForReading(path: file)
    XCTAssertEqual(try reader.map { try count("ticks", in: $0) }, 1)
    try FileManager.default.removeItem(atPath: file + "-wal")
    try FileManager.default.removeItem(atPath: file + "-shm")

    recorder.record(script.tick(1))
    XCTAssertTrue(eventually { (recorder.counters.errors[.io] ?? 0) >= 2 })
    XCTAssertEqual(recorder.counters.ticksWritten, 1)
    XCTAssertEqual(log.all.count, 1, "\(log.all)")
    reader = nil
    XCTAssertTrue(eventually { recorder.counters.ticksWritten == 2 })
    stop(recorder)

    let database = try HistoryDatabase.openForReading(path: file)
    XCTAssertEqual(try count("ticks", in: database), 2)
  }

  func testSymbolicLinkAtThePathIsRefusedAndItsTargetNeverMade() throws {
    let target = path("elsewhere.sqlite")
    let link = path("history.sqlite")
    try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
    let recorder = makeRecorder(link)
    recorder.record(script.tick(0))
    XCTAssertTrue(eventually { recorder.counters.fault != nil })
    XCTAssertEqual(
      recorder.counters.fault?.message,
      "\(link) is a symbolic link (to \(target)): the history is never written through a link; "
        + "give the file's own path in storage_path")
    XCTAssertEqual(recorder.counters.ticksWritten, 0)
    stop(recorder)
    XCTAssertFalse(FileManager.default.fileExists(atPath: target))

    // A link in place of the WAL would have SQLite create the WAL at its target.
    let file = path("other.sqlite")
    _ = try makeWriter("other.sqlite")
    try FileManager.default.createSymbolicLink(
      atPath: file + "-journal", withDestinationPath: target)
    XCTAssertEqual(
      HistoryDatabase.symbolicLinkProblem(path: file),
      "\(file)-journal is a symbolic link (to \(target)): the history is never written through "
        + "a link; remove it")
    XCTAssertNil(HistoryDatabase.symbolicLinkProblem(path: path("history-nowhere.sqlite")))
  }

  func testStopWritesWhatIsQueuedAndRollsUpTheMinuteInProgress() throws {
    let file = path("history.sqlite")
    let recorder = makeRecorder(file)
    for tick in 0..<script.tickCount { recorder.record(script.tick(tick)) }
    stop(recorder)

    let counters = recorder.counters
    XCTAssertEqual(counters.ticksWritten, 20)
    XCTAssertEqual(counters.queueLength, 0)
    XCTAssertEqual(counters.rowsWritten["peer_ticks"], 60)
    XCTAssertGreaterThan(counters.writeSecondsSum, 0)
    XCTAssertGreaterThanOrEqual(counters.writeSecondsSum, counters.writeSecondsMax)
    XCTAssertTrue(log.all.isEmpty, "\(log.all)")
    let database = try HistoryDatabase.openForReading(path: file)
    XCTAssertEqual(try count("ticks", in: database), 20)
    XCTAssertEqual(try count("peer_minutes", in: database), 3)
    XCTAssertEqual(try count("runs", in: database), 1)
  }

  func testQueueOfNoCapacityHoldsOneTick() throws {
    // With 0, the first tick handed over took the first element of an empty queue: a crash.
    let settings = HistoryRecorder.Settings(
      path: path("history.sqlite"),
      maintenance: HistoryMaintenance(
        rawRetentionSeconds: 1e9, aggregateRetentionSeconds: 1e9, maxBytes: 0),
      queueCapacity: 0, runName: "test-host", version: "test")
    XCTAssertEqual(settings.queueCapacity, 1)
    let recorder = HistoryRecorder(settings: settings, log: { _, _ in })
    for tick in 0..<3 { recorder.record(script.tick(tick)) }
    XCTAssertEqual(recorder.counters.queueLength, 1)
    XCTAssertEqual(recorder.counters.ticksDropped, 2)
    recorder.start()
    stop(recorder)
    XCTAssertEqual(recorder.counters.ticksWritten, 1)
  }
}
