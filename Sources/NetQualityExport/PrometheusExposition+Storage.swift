import NetQualityCore

extension PrometheusExposition {
  /// What the history writer did since the agent started.
  public struct StorageFigures: Sendable, Equatable {
    public var ticksWritten: Int64
    /// Rows written, by table (ticks, peer_ticks, stream_ticks, events).
    public var rowsWritten: [String: Int64]
    public var ticksDropped: Int64
    /// Failed writes or opens, by kind (disk_full, read_only, locked, corrupt, io, other).
    public var errors: [String: Int64]
    public var filesMovedAside: Int64
    public var writeSecondsSum: Double
    public var writeSecondsMax: Double
    public var maintenanceSecondsSum: Double
    public var databaseBytes: Int64
    public var queueLength: Int
    /// Writing works now.
    public var healthy: Bool

    public init(
      ticksWritten: Int64, rowsWritten: [String: Int64], ticksDropped: Int64,
      errors: [String: Int64], filesMovedAside: Int64, writeSecondsSum: Double,
      writeSecondsMax: Double, maintenanceSecondsSum: Double, databaseBytes: Int64,
      queueLength: Int, healthy: Bool
    ) {
      self.ticksWritten = ticksWritten
      self.rowsWritten = rowsWritten
      self.ticksDropped = ticksDropped
      self.errors = errors
      self.filesMovedAside = filesMovedAside
      self.writeSecondsSum = writeSecondsSum
      self.writeSecondsMax = writeSecondsMax
      self.maintenanceSecondsSum = maintenanceSecondsSum
      self.databaseBytes = databaseBytes
      self.queueLength = queueLength
      self.healthy = healthy
    }
  }

  func storageMetrics(into out: inout Writer, errorKinds: [String]) {
    guard let storage else { return }
    out.family(
      "netquality_storage_healthy", .gauge,
      "Whether the SQLite history is being written (0: failing, see the log and the "
        + "storage_failing alert).")
    out.sample("netquality_storage_healthy", [], storage.healthy ? 1 : 0)
    out.family(
      "netquality_storage_ticks_written_total", .counter,
      "Ticks committed to the history, one transaction each.")
    out.sample("netquality_storage_ticks_written_total", [], Double(storage.ticksWritten))
    out.family("netquality_storage_rows_written_total", .counter, "Rows written, by table.")
    for table in ["ticks", "peer_ticks", "stream_ticks", "events"] {
      out.sample(
        "netquality_storage_rows_written_total", [("table", table)],
        Double(storage.rowsWritten[table] ?? 0))
    }
    out.family(
      "netquality_storage_queue_dropped_ticks_total", .counter,
      "Ticks dropped because the writer's queue was full (a slow or failing disk); the gap is "
        + "recorded in the file's storage_events.")
    out.sample("netquality_storage_queue_dropped_ticks_total", [], Double(storage.ticksDropped))
    out.family("netquality_storage_queue_length", .gauge, "Ticks waiting to be written.")
    out.sample("netquality_storage_queue_length", [], Double(storage.queueLength))
    out.family(
      "netquality_storage_errors_total", .counter,
      "Failed writes or opens of the history, by kind.")
    for kind in errorKinds {
      out.sample(
        "netquality_storage_errors_total", [("kind", kind)], Double(storage.errors[kind] ?? 0))
    }
    out.family(
      "netquality_storage_files_moved_aside_total", .counter,
      "Corrupt history files renamed to <path>.corrupt-<time> and replaced by a new one.")
    out.sample("netquality_storage_files_moved_aside_total", [], Double(storage.filesMovedAside))
    out.family(
      "netquality_storage_write_seconds_total", .counter,
      "Time spent writing ticks (divide by ticks written for the mean per tick).")
    out.sample("netquality_storage_write_seconds_total", [], storage.writeSecondsSum)
    out.family(
      "netquality_storage_write_seconds_max", .gauge, "The slowest tick write since the start.")
    out.sample("netquality_storage_write_seconds_max", [], storage.writeSecondsMax)
    out.family(
      "netquality_storage_maintenance_seconds_total", .counter,
      "Time spent downsampling and deleting by retention.")
    out.sample("netquality_storage_maintenance_seconds_total", [], storage.maintenanceSecondsSum)
    out.family(
      "netquality_storage_database_bytes", .gauge,
      "Bytes of the history file in use (pages minus the free list).")
    out.sample("netquality_storage_database_bytes", [], Double(storage.databaseBytes))
  }
}
