/// What the history (SQLite) did since the agent started: the writer's ticks, rows, errors and
/// time, and the HTTP server's reads of it. Nothing with the history off.
public struct StorageCollector: MetricsCollector, Equatable {
  public static let families: [MetricFamily] = [
    .storageHealthy, .storageTicksWrittenTotal, .storageRowsWrittenTotal,
    .storageQueueDroppedTicksTotal, .storageQueueLength, .storageErrorsTotal,
    .storageFilesMovedAsideTotal, .storageFilesReplacedTotal, .storageWriteSecondsTotal,
    .storageWriteSecondsMax,
    .storageMaintenanceSecondsTotal, .storageDatabaseBytes, .storageReadsTotal,
  ]

  /// Reads of the history for the HTTP server (`/api/v1/history`, the status page's charts),
  /// by outcome: answered, busy (refused 503 at once: the readers and their queue were full),
  /// cancelled (the client went away), timed_out.
  public struct Reads: Sendable, Equatable {
    public var answered: Int64
    public var busy: Int64
    public var cancelled: Int64
    public var timedOut: Int64

    public init(answered: Int64, busy: Int64, cancelled: Int64, timedOut: Int64) {
      self.answered = answered
      self.busy = busy
      self.cancelled = cancelled
      self.timedOut = timedOut
    }
  }

  public var ticksWritten: Int64
  /// Rows written, by table (ticks, peer_ticks, stream_ticks, events).
  public var rowsWritten: [String: Int64]
  public var ticksDropped: Int64
  /// Failed writes or opens, by kind (disk_full, read_only, locked, corrupt, io, other).
  public var errors: [String: Int64]
  /// The kinds of errors, each exported (0 until it happens).
  public var errorKinds: [String]
  public var filesMovedAside: Int64
  /// The database file replaced under the writer (issue 39): written to only as a new run.
  public var filesReplaced: Int64
  public var writeSecondsSum: Double
  public var writeSecondsMax: Double
  public var maintenanceSecondsSum: Double
  public var databaseBytes: Int64
  public var queueLength: Int
  /// Writing works now.
  public var healthy: Bool
  public var reads: Reads

  public init(
    ticksWritten: Int64, rowsWritten: [String: Int64], ticksDropped: Int64,
    errors: [String: Int64], errorKinds: [String], filesMovedAside: Int64,
    filesReplaced: Int64 = 0, writeSecondsSum: Double, writeSecondsMax: Double,
    maintenanceSecondsSum: Double,
    databaseBytes: Int64, queueLength: Int, healthy: Bool, reads: Reads
  ) {
    self.ticksWritten = ticksWritten
    self.rowsWritten = rowsWritten
    self.ticksDropped = ticksDropped
    self.errors = errors
    self.errorKinds = errorKinds
    self.filesMovedAside = filesMovedAside
    self.filesReplaced = filesReplaced
    self.writeSecondsSum = writeSecondsSum
    self.writeSecondsMax = writeSecondsMax
    self.maintenanceSecondsSum = maintenanceSecondsSum
    self.databaseBytes = databaseBytes
    self.queueLength = queueLength
    self.healthy = healthy
    self.reads = reads
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.storageHealthy)
    out.sample(.storageHealthy, [], healthy ? 1 : 0)
    out.family(.storageTicksWrittenTotal)
    out.sample(.storageTicksWrittenTotal, [], Double(ticksWritten))
    out.family(.storageRowsWrittenTotal)
    for table in ["ticks", "peer_ticks", "stream_ticks", "events"] {
      out.sample(.storageRowsWrittenTotal, [("table", table)], Double(rowsWritten[table] ?? 0))
    }
    out.family(.storageQueueDroppedTicksTotal)
    out.sample(.storageQueueDroppedTicksTotal, [], Double(ticksDropped))
    out.family(.storageQueueLength)
    out.sample(.storageQueueLength, [], Double(queueLength))
    out.family(.storageErrorsTotal)
    for kind in errorKinds {
      out.sample(.storageErrorsTotal, [("kind", kind)], Double(errors[kind] ?? 0))
    }
    out.family(.storageFilesMovedAsideTotal)
    out.sample(.storageFilesMovedAsideTotal, [], Double(filesMovedAside))
    out.family(.storageFilesReplacedTotal)
    out.sample(.storageFilesReplacedTotal, [], Double(filesReplaced))
    out.family(.storageWriteSecondsTotal)
    out.sample(.storageWriteSecondsTotal, [], writeSecondsSum)
    out.family(.storageWriteSecondsMax)
    out.sample(.storageWriteSecondsMax, [], writeSecondsMax)
    out.family(.storageMaintenanceSecondsTotal)
    out.sample(.storageMaintenanceSecondsTotal, [], maintenanceSecondsSum)
    out.family(.storageDatabaseBytes)
    out.sample(.storageDatabaseBytes, [], Double(databaseBytes))
    out.family(.storageReadsTotal)
    for (outcome, count) in [
      ("answered", reads.answered), ("busy", reads.busy), ("cancelled", reads.cancelled),
      ("timed_out", reads.timedOut),
    ] {
      out.sample(.storageReadsTotal, [("outcome", outcome)], Double(count))
    }
  }
}

// MARK: The families

extension MetricFamily {
  public static let storageHealthy = gauge(
    "netquality_storage_healthy",
    "Whether the SQLite history is being written (0: failing, see the log and the "
      + "storage_failing alert).")
  public static let storageTicksWrittenTotal = counter(
    "netquality_storage_ticks_written_total",
    "Ticks committed to the history, one transaction each.")
  public static let storageRowsWrittenTotal = counter(
    "netquality_storage_rows_written_total", labels: ["table"], "Rows written, by table.")
  public static let storageQueueDroppedTicksTotal = counter(
    "netquality_storage_queue_dropped_ticks_total",
    "Ticks dropped because the writer's queue was full (a slow or failing disk); the gap is "
      + "recorded in the file's storage_events.")
  public static let storageQueueLength = gauge(
    "netquality_storage_queue_length", "Ticks waiting to be written.")
  public static let storageErrorsTotal = counter(
    "netquality_storage_errors_total", labels: ["kind"],
    "Failed writes or opens of the history, by kind.")
  public static let storageFilesMovedAsideTotal = counter(
    "netquality_storage_files_moved_aside_total",
    "Corrupt history files renamed to <path>.corrupt-<time> and replaced by a new one.")
  public static let storageFilesReplacedTotal = counter(
    "netquality_storage_files_replaced_total",
    "History files replaced or overwritten under the running writer; each new file is written only as a new run."
  )
  public static let storageWriteSecondsTotal = counter(
    "netquality_storage_write_seconds_total",
    "Time spent writing ticks (divide by ticks written for the mean per tick).")
  public static let storageWriteSecondsMax = gauge(
    "netquality_storage_write_seconds_max", "The slowest tick write since the start.")
  public static let storageMaintenanceSecondsTotal = counter(
    "netquality_storage_maintenance_seconds_total",
    "Time spent downsampling and deleting by retention.")
  public static let storageReadsTotal = counter(
    "netquality_storage_reads_total", labels: ["outcome"],
    "Reads of the history for the HTTP API and the status page, by outcome: answered, busy "
      + "(refused 503 at once, the readers and their queue full), cancelled (the client went "
      + "away), timed_out.")
  public static let storageDatabaseBytes = gauge(
    "netquality_storage_database_bytes",
    "Bytes of the history file in use (pages minus the free list).")
}

extension StorageCollector {
  /// Every family with a sample, for the catalogue's checks (`MetricsCollector.example`).
  public static var example: Self? {
    StorageCollector(
      ticksWritten: 3, rowsWritten: ["ticks": 3], ticksDropped: 0, errors: [:],
      errorKinds: ["disk_full"], filesMovedAside: 0, writeSecondsSum: 0.01,
      writeSecondsMax: 0.005, maintenanceSecondsSum: 0, databaseBytes: 4096, queueLength: 0,
      healthy: true, reads: .init(answered: 4, busy: 45, cancelled: 1, timedOut: 0))
  }
}
