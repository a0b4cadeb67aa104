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
    out.family(.storageHealthy)
    out.sample(.storageHealthy, [], storage.healthy ? 1 : 0)
    out.family(.storageTicksWrittenTotal)
    out.sample(.storageTicksWrittenTotal, [], Double(storage.ticksWritten))
    out.family(.storageRowsWrittenTotal)
    for table in ["ticks", "peer_ticks", "stream_ticks", "events"] {
      out.sample(
        .storageRowsWrittenTotal, [("table", table)],
        Double(storage.rowsWritten[table] ?? 0))
    }
    out.family(.storageQueueDroppedTicksTotal)
    out.sample(.storageQueueDroppedTicksTotal, [], Double(storage.ticksDropped))
    out.family(.storageQueueLength)
    out.sample(.storageQueueLength, [], Double(storage.queueLength))
    out.family(.storageErrorsTotal)
    for kind in errorKinds {
      out.sample(
        .storageErrorsTotal, [("kind", kind)], Double(storage.errors[kind] ?? 0))
    }
    out.family(.storageFilesMovedAsideTotal)
    out.sample(.storageFilesMovedAsideTotal, [], Double(storage.filesMovedAside))
    out.family(.storageWriteSecondsTotal)
    out.sample(.storageWriteSecondsTotal, [], storage.writeSecondsSum)
    out.family(.storageWriteSecondsMax)
    out.sample(.storageWriteSecondsMax, [], storage.writeSecondsMax)
    out.family(.storageMaintenanceSecondsTotal)
    out.sample(.storageMaintenanceSecondsTotal, [], storage.maintenanceSecondsSum)
    out.family(.storageDatabaseBytes)
    out.sample(.storageDatabaseBytes, [], Double(storage.databaseBytes))
  }
}
