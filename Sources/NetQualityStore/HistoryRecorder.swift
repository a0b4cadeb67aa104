import Foundation
import GRDB
import Synchronization

/// The agent's history writer: ticks are handed over through a bounded queue and written by a
/// thread of its own, one transaction per tick, so a slow or failing disk never stalls capture
/// or scoring. A tick that cannot be written stays at the head of the queue and is retried
/// with backoff; when the queue is full the oldest tick is dropped and counted, and the next
/// tick written records the gap. A corrupt file is moved aside (never overwritten) and a new
/// one started.
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
    public var writeSecondsSum = 0.0
    public var writeSecondsMax = 0.0
    public var lastWriteSeconds: Double?
    public var maintenanceSecondsSum = 0.0
    public var databaseBytes: Int64 = 0
    public var queueLength = 0
    /// The fault now, and since when (Unix seconds); nil when writing works.
    public var fault: HistoryFault?
    public var faultSince: Double?
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

  private func writerLoop() {
    var writer: HistoryWriter?
    var retryAt = Date.distantPast
    var backoffSeconds = 1.0
    var maintenanceDue = false
    while true {
      let (tick, dropped, stopping) = nextTick(retryAt: retryAt, maintenanceDue: maintenanceDue)
      if stopping && tick == nil { break }
      do {
        if writer == nil { writer = try open() }
        guard let writer else { continue }
        if let tick {
          let started = DispatchTime.now().uptimeNanoseconds
          try writer.write(tick, droppedBefore: dropped)
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
        cleared()
      } catch {
        let fault = HistoryFault(error)
        failed(fault)
        if fault.kind == .corrupt || writer == nil {
          if fault.kind == .corrupt { moveAside() }
          writer = nil
        }
        // A corrupt file was moved aside: start the new one at once.
        retryAt = Date().addingTimeInterval(fault.kind == .corrupt ? 0 : backoffSeconds)
        backoffSeconds = min(backoffSeconds * 2, 30)
        if stopping { break }
      }
    }
    if let writer {
      // The minute in progress is aggregated too, so `report` has it after a restart.
      _ = try? settings.maintenance.run(writer.database, final: true)
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

  private func open() throws -> HistoryWriter {
    let database = try HistoryDatabase.openForWriting(path: settings.path)
    return try HistoryWriter(
      database: database, kind: "agent", name: settings.runName, version: settings.version,
      startedAt: Date().timeIntervalSince1970, writesStreams: settings.writesStreams)
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

  private func failed(_ fault: HistoryFault) {
    let (isNew, since) = shared.withLock { shared -> (Bool, Double?) in
      shared.counters.errors[fault.kind, default: 0] += 1
      let isNew = shared.counters.fault?.kind != fault.kind
      if isNew {
        shared.counters.fault = fault
        shared.counters.faultSince = shared.counters.faultSince ?? Date().timeIntervalSince1970
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

  private func cleared() {
    let ended = shared.withLock { shared -> (HistoryFault, Double, Int64)? in
      guard let fault = shared.counters.fault, let since = shared.counters.faultSince else {
        return nil
      }
      shared.counters.fault = nil
      shared.counters.faultSince = nil
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
