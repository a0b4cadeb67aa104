import Foundation
import GRDB
import NetQualityCore
import Synchronization

/// The agent's history writer: ticks are handed over through a bounded queue and written by a
/// thread of its own, one transaction per tick, so a slow or failing disk never stalls capture
/// or scoring. A tick that cannot be written stays at the head of the queue and is retried
/// with backoff; when the queue is full the oldest tick is dropped and counted, and the next
/// tick written records the gap. A corrupt file is moved aside (never overwritten) and a new
/// one started. Files deleted or replaced under the writer are noticed before the next write
/// (`HistoryFiles`) and the path opened again, the queued ticks written there.
public final class HistoryRecorder: Sendable {
  public struct Settings: Sendable {
    public var path: String
    public var maintenance: HistoryMaintenance
    public var writesStreams: Bool
    /// Ticks held while the disk is slow or failing: 64 ticks are 2 minutes at 2 s. At least
    /// 1: the tick being written is held in the queue.
    public var queueCapacity: Int
    /// Rows held at most, over the queued ticks (`HistoryTick.rows`): a queued tick keeps its
    /// peers' snapshots alive, about 500 bytes a peer, so 64 ticks of 100,000 peers would hold
    /// 3 GB. 250,000 rows are about 125 MB: 64 ticks up to about 3,900 peers, 2 ticks of
    /// 100,000. The newest tick is always kept.
    public var queueMaxRows: Int
    public var runName: String
    public var version: String

    public init(
      path: String, maintenance: HistoryMaintenance, writesStreams: Bool = false,
      queueCapacity: Int = 64, queueMaxRows: Int = 250_000, runName: String, version: String
    ) {
      self.path = path
      self.maintenance = maintenance
      self.writesStreams = writesStreams
      self.queueCapacity = max(1, queueCapacity)
      self.queueMaxRows = max(1, queueMaxRows)
      self.runName = runName
      self.version = version
    }
  }

  /// What the recorder did, for metrics and the status API.
  public struct Counters: Sendable, Equatable {
    public var ticksWritten: Int64 = 0
    public var rowsWritten: [String: Int64] = [:]
    public var ticksDropped: Int64 = 0
    public var errors: [HistoryFault.Kind: Int64] = [:]
    public var filesMovedAside: Int64 = 0
    /// The database file replaced under the writer (moved over, or overwritten in place): the
    /// new file is written as a new run, never over (issue 39).
    public var filesReplaced: Int64 = 0
    public var writeSecondsSum = 0.0
    public var writeSecondsMax = 0.0
    public var lastWriteSeconds: Double?
    public var maintenanceSecondsSum = 0.0
    public var databaseBytes: Int64 = 0
    public var queueLength = 0
    /// The fault now, and since when (Unix seconds); nil when writing works.
    public var fault: HistoryFault?
    public var faultSince: Double?
    /// The kind of fault the incident began with: one incident, one alert identity, however
    /// its cause changes on the way (disk full, then I/O errors) until writing works again.
    public var faultFirstKind: HistoryFault.Kind?
  }

  /// Log lines, at most one per fault and one when it clears.
  public enum LogLevel: Sendable { case info, warning, error }
  public typealias Log = @Sendable (LogLevel, String) -> Void

  public let settings: Settings
  private let log: Log
  private let shared = Mutex(Shared())
  private let wake = NSCondition()

  private struct Shared: Sendable {
    var queue: [HistoryTick] = []
    /// The rows of the ticks in `queue`.
    var queuedRows = 0
    var droppedSinceWrite: Int64 = 0
    var stopping = false
    var stopped = false
    var counters = Counters()
    /// The newest tick handed over.
    var newestRecorded: CaptureTime?
    /// A fault the writer repaired at once (the files deleted under it, opened again) stays
    /// reported until a tick handed over after this one is written: the next tick then shows
    /// it (`storage_failing`, `storage_healthy 0`) instead of a few milliseconds no one sees.
    var faultHeldThrough: CaptureTime?
  }

  public init(settings: Settings, log: @escaping Log) {
    self.settings = settings
    self.log = log
  }

  public var counters: Counters { shared.withLock { $0.counters } }

  /// Starts the writer thread.
  public func start() {
    let thread = Thread { [self] in writerLoop() }
    thread.name = "netquality-history"
    thread.start()
  }

  /// Hands a tick over; never blocks on the disk. When the queue is full (in ticks or in rows)
  /// the oldest ticks go.
  public func record(_ tick: HistoryTick) {
    let rows = tick.rows(withStreams: settings.writesStreams)
    shared.withLock { shared in
      while !shared.queue.isEmpty
        && (shared.queue.count >= settings.queueCapacity
          || shared.queuedRows + rows > settings.queueMaxRows)
      {
        let dropped = shared.queue.removeFirst()
        shared.queuedRows -= dropped.rows(withStreams: settings.writesStreams)
        shared.droppedSinceWrite += 1
        shared.counters.ticksDropped += 1
      }
      shared.queue.append(tick)
      shared.queuedRows += rows
      shared.newestRecorded = tick.snapshot.time
      shared.counters.queueLength = shared.queue.count
    }
    wake.lock()
    wake.signal()
    wake.unlock()
  }

  /// Writes what is queued (until `deadline`), then stops the thread. Returns false when the
  /// deadline passed first.
  public func stop(deadline: Date) -> Bool {
    shared.withLock { $0.stopping = true }
    wake.lock()
    wake.broadcast()
    while !shared.withLock({ $0.stopped }) {
      if !wake.wait(until: deadline) { break }
    }
    wake.unlock()
    return shared.withLock { $0.stopped }
  }

  // MARK: - The writer thread

  /// The history the writer thread has open: its writer and the files it opened.
  private struct OpenHistory {
    var writer: HistoryWriter
    var files: HistoryFiles
    /// The writer's own checkpoints, the only writes of the database file.
    var checkpoints: HistoryCheckpoints
  }

  private func writerLoop() {
    var history: OpenHistory?
    // One run for the agent's life, resumed when the file is opened again after its files
    // were deleted under the writer.
    let startedAt = Date().timeIntervalSince1970
    var runID: Int64?
    // What happened to the files, recorded in `storage_events` with the next tick written.
    var incident: String?
    // The files were let go after they changed under the writer: until a new open succeeds,
    // this process may still hold deleted ones (`HistoryFiles.deletedButOpen`).
    var lettingGo = false
    var retryAt = Date.distantPast
    var backoffSeconds = 1.0
    var maintenanceDue = false
    while true {
      let (tick, dropped, stopping) = nextTick(retryAt: retryAt, maintenanceDue: maintenanceDue)
      if stopping && tick == nil { break }
      do {
        if history == nil {
          history = try open(resuming: runID, startedAt: startedAt, checkingHeld: lettingGo)
          runID = history?.writer.runID
          lettingGo = false
          // The queue went on while the file was opened: write its head as it is now, not a
          // tick it has dropped meanwhile.
          continue
        }
        guard let open = history else { continue }
        // Nothing goes into files that are no longer the ones at the path.
        if let changed = open.files.changes() { throw changed }
        let writer = open.writer
        if open.checkpoints.isDue {
          // The files were just found as the writer left them: what the checkpoint writes to
          // the database file is its own. Transactions never write it (`HistoryCheckpoints`).
          try open.checkpoints.run()
          history?.files.restamp()
        }
        if let tick {
          let started = DispatchTime.now().uptimeNanoseconds
          try writer.write(tick, droppedBefore: dropped, incident: incident)
          incident = nil
          let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) * 1e-9
          wrote(tick, seconds: seconds, dropped: dropped, rows: writer.rowsWritten)
          maintenanceDue = true
        } else if maintenanceDue {
          let started = DispatchTime.now().uptimeNanoseconds
          let pass = try settings.maintenance.run(writer.database)
          let bytes = try writer.database.read { db in try HistoryMaintenance.usedBytes(db) }
          let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) * 1e-9
          shared.withLock {
            $0.counters.maintenanceSecondsSum += seconds
            $0.counters.databaseBytes = bytes
          }
          maintenanceDue = pass.behind
        }
        retryAt = .distantPast
        backoffSeconds = 1
        cleared(afterWriting: tick?.snapshot.time)
      } catch let changed as HistoryFilesChanged {
        // The tick stays queued. The path is opened again at once after letting go of an
        // open history; after a failure of that open (a reader of this process still holds
        // the deleted files, or they vanished again), with the backoff.
        let wasOpen = history != nil
        let note = changed.description + "; " + letGo(history, changed)
        history = nil
        lettingGo = true
        if wasOpen && !changed.databaseKept {
          // Another file stands at the path now (issue 39: a restored backup): it is never
          // written as this run, only as a new one, its own rows left as they are.
          runID = nil
          shared.withLock { $0.counters.filesReplaced += 1 }
        }
        failed(HistoryFault(kind: .io, message: note), heldUntilNextTick: true)
        if wasOpen { incident = note }
        let atOnce = wasOpen && backoffSeconds == 1
        retryAt = atOnce ? .distantPast : Date().addingTimeInterval(backoffSeconds)
        backoffSeconds = min(backoffSeconds * 2, 30)
        if stopping && !atOnce { break }
      } catch {
        let fault = HistoryFault(error)
        failed(fault)
        if fault.kind == .corrupt || history == nil {
          if fault.kind == .corrupt { moveAside() }
          if let history { try? history.writer.database.close() }
          history = nil
        }
        // A corrupt file was moved aside: start the new one at once.
        retryAt = Date().addingTimeInterval(fault.kind == .corrupt ? 0 : backoffSeconds)
        backoffSeconds = min(backoffSeconds * 2, 30)
        if stopping { break }
      }
    }
    if let history {
      // The minute in progress is aggregated too, so `report` has it after a restart.
      _ = try? settings.maintenance.run(history.writer.database, final: true)
    }
    shared.withLock { $0.stopped = true }
    wake.lock()
    wake.broadcast()
    wake.unlock()
  }

  /// Waits for a tick to write (or maintenance to do, or a retry to be due); returns the
  /// head of the queue without removing it (it goes once written).
  private func nextTick(retryAt: Date, maintenanceDue: Bool) -> (HistoryTick?, Int64, Bool) {
    wake.lock()
    defer { wake.unlock() }
    while true {
      let (tick, dropped, stopping) = shared.withLock { shared in
        (shared.queue.first, shared.droppedSinceWrite, shared.stopping)
      }
      let now = Date()
      if now >= retryAt && (tick != nil || maintenanceDue) { return (tick, dropped, stopping) }
      if stopping { return (tick, dropped, true) }
      if now < retryAt {
        _ = wake.wait(until: retryAt)
      } else {
        wake.wait()
      }
    }
  }

  /// Opens the history at the path: never through a symbolic link, never (with
  /// `checkingHeld`, after letting go of changed files) while this process still holds a
  /// deleted copy of them (`HistoryFiles.deletedButOpen`), and the files it opened recorded
  /// for the checks before each write.
  private func open(resuming runID: Int64?, startedAt: Double, checkingHeld: Bool) throws
    -> OpenHistory
  {
    let path = settings.path
    let held = checkingHeld ? HistoryFiles.deletedButOpen(path: path) : []
    guard held.isEmpty else {
      throw HistoryFilesChanged(
        path: path, changes: held.map { ($0, .stillOpen) }, databaseKept: !held.contains(""))
    }
    if let problem = HistoryDatabase.symbolicLinkProblem(path: path) {
      throw HistoryError(problem)
    }
    let database = try HistoryDatabase.openForWriting(path: path)
    do {
      let checkpoints = try HistoryCheckpoints(of: database)
      let writer = try HistoryWriter(
        database: database, kind: "agent", name: settings.runName, version: settings.version,
        startedAt: startedAt, writesStreams: settings.writesStreams, resuming: runID)
      return OpenHistory(
        writer: writer, files: try HistoryFiles(path: path), checkpoints: checkpoints)
    } catch {
      try? database.close()
      throw error
    }
  }

  /// Closes a history whose files were deleted or replaced under it, first saving what only
  /// its connection can reach; says what became of the ticks written before. When the WAL
  /// went, the ticks since the last checkpoint are only in the connection's unlinked copy:
  /// they are checkpointed into the database file, provided it is still the one at the path
  /// and no other WAL with frames stands there now (the agent is the file's only writer; a WAL
  /// a reader made is empty). When only the index went, the WAL at the path still holds them.
  private func letGo(_ history: OpenHistory?, _ changed: HistoryFilesChanged) -> String {
    guard let history else { return "the file is opened again once this process lets go" }
    guard changed.databaseKept else { return setAside(history, changed) }
    defer { try? history.writer.database.close() }
    let walChanged = changed.changes.contains { $0.suffix == HistoryFiles.walSuffix }
    guard walChanged else { return "the file is opened again, the ticks written before kept" }
    guard history.files.walAtPathIsEmpty(),
      let (frames, checkpointed) = try? history.writer.database.writeWithoutTransaction({
        try $0.checkpoint(.full)
      }), checkpointed >= frames
    else {
      return "the file is opened again; the ticks written since its last checkpoint are lost"
    }
    return "the file is opened again, the ticks written before saved into it"
  }

  /// Closes a history whose database file was replaced, without writing anything of the old
  /// file into the new one (issue 39: the writer's WAL, left at the path, was applied to a
  /// restored copy moved or copied over the file). Closing checkpoints the WAL into the file
  /// the writer holds and deletes it, unless another connection holds the file (a reader of
  /// the API: then the WAL stays at the path, and the next open would apply it to whatever
  /// file is there now). So whatever of the old WAL and index is still at the path afterwards
  /// is renamed to `<path>-wal.replaced-<unix time>` (the index removed). Overwritten in place
  /// (the same inode), the writer's file *is* the new content: a read-only connection opened
  /// beside it and holding its shared lock keeps the close from checkpointing into it (SQLite
  /// checkpoints on close only when it can lock the file exclusively, as the last connection:
  /// https://www.sqlite.org/wal.html, "Persistence of WAL mode"; a read-only connection never
  /// checkpoints).
  private func setAside(_ history: OpenHistory, _ changed: HistoryFilesChanged) -> String {
    let path = settings.path
    let inPlace = changed.changes.contains { $0.suffix.isEmpty && $0.change == .overwritten }
    var holder: DatabaseQueue?
    if inPlace {
      var configuration = Configuration()
      configuration.readonly = true
      holder = try? DatabaseQueue(path: path, configuration: configuration)
      _ = try? holder?.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
    }
    try? history.writer.database.close()
    var note = "a new run is started in the file now at the path, its own rows left as they are"
    if history.files.stillOpened(HistoryFiles.walSuffix) {
      let aside =
        "\(path)\(HistoryFiles.walSuffix).replaced-\(Int(Date().timeIntervalSince1970))"
      if rename(path + HistoryFiles.walSuffix, aside) == 0 {
        note =
          "the old file's WAL (its ticks since the last checkpoint) moved aside to \(aside); "
          + note
      } else {
        note += "; its WAL could not be moved aside: \(String(cString: strerror(errno)))"
      }
    }
    if history.files.stillOpened(HistoryFiles.indexSuffix) {
      unlink(path + HistoryFiles.indexSuffix)
    }
    try? holder?.close()
    return note
  }

  private func wrote(_ tick: HistoryTick, seconds: Double, dropped: Int64, rows: [String: Int64]) {
    shared.withLock { shared in
      // The head is the tick written unless the queue dropped it meanwhile (then the drop was
      // counted and the written tick is still in the file).
      if let first = shared.queue.first, first.snapshot.time == tick.snapshot.time {
        shared.queue.removeFirst()
        shared.queuedRows -= first.rows(withStreams: settings.writesStreams)
      }
      shared.droppedSinceWrite -= dropped
      shared.counters.queueLength = shared.queue.count
      shared.counters.ticksWritten += 1
      shared.counters.rowsWritten = rows
      shared.counters.writeSecondsSum += seconds
      shared.counters.writeSecondsMax = max(shared.counters.writeSecondsMax, seconds)
      shared.counters.lastWriteSeconds = seconds
    }
  }

  private func failed(_ fault: HistoryFault, heldUntilNextTick: Bool = false) {
    let (isNew, since) = shared.withLock { shared -> (Bool, Double?) in
      shared.counters.errors[fault.kind, default: 0] += 1
      let isNew = shared.counters.fault?.kind != fault.kind
      if isNew {
        shared.counters.fault = fault
        shared.counters.faultFirstKind = shared.counters.faultFirstKind ?? fault.kind
        shared.counters.faultSince = shared.counters.faultSince ?? Date().timeIntervalSince1970
      }
      if heldUntilNextTick {
        shared.faultHeldThrough =
          shared.newestRecorded ?? CaptureTime(nanosecondsSinceEpoch: .min)
      }
      return (isNew, shared.counters.faultSince)
    }
    if isNew, since != nil {
      log(
        .error,
        "history \(settings.path): \(fault.message); capture and scoring go on, ticks are "
          + "queued (\(settings.queueCapacity) at most) and writing is retried")
    }
  }

  /// Writing worked (a tick at `written`, or maintenance): the fault, if any, ends, unless it
  /// is held for a tick not yet written.
  private func cleared(afterWriting written: CaptureTime?) {
    let ended = shared.withLock { shared -> (HistoryFault, Double, Int64)? in
      guard let fault = shared.counters.fault, let since = shared.counters.faultSince else {
        return nil
      }
      if let held = shared.faultHeldThrough {
        guard let written, written > held else { return nil }
        shared.faultHeldThrough = nil
      }
      shared.counters.fault = nil
      shared.counters.faultSince = nil
      shared.counters.faultFirstKind = nil
      return (fault, since, shared.counters.ticksDropped)
    }
    if let (fault, since, dropped) = ended {
      let seconds = Int((Date().timeIntervalSince1970 - since).rounded())
      log(
        .info,
        "history \(settings.path): writing again after \(seconds) s of \(fault.kind.rawValue) "
          + "(\(dropped) ticks dropped since the agent started)")
    }
  }

  /// Renames a corrupt file (and its WAL) to `<path>.corrupt-<unix time>` so nothing is lost
  /// and the next open starts a new file.
  private func moveAside() {
    let stamp = Int(Date().timeIntervalSince1970)
    let aside = "\(settings.path).corrupt-\(stamp)"
    let manager = FileManager.default
    do {
      try manager.moveItem(atPath: settings.path, toPath: aside)
      for suffix in ["-wal", "-journal"] where manager.fileExists(atPath: settings.path + suffix) {
        try manager.moveItem(atPath: settings.path + suffix, toPath: aside + suffix)
      }
      try? manager.removeItem(atPath: settings.path + "-shm")
      shared.withLock { $0.counters.filesMovedAside += 1 }
      log(.error, "history \(settings.path): corrupt; moved aside to \(aside), starting a new file")
    } catch {
      log(.error, "history \(settings.path): corrupt and cannot be moved aside: \(error)")
    }
  }
}
