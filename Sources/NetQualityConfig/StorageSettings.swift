/// The `storage:` section: the SQLite history the agent writes to `storage_path`.
public struct StorageSettings: Sendable, Equatable {
  public var enabled = true
  /// Per-tick rows are kept 48 h: yesterday's incident at full resolution.
  public var rawRetentionHours = 48.0
  /// One-minute aggregates (min/avg/max, seconds at each level), events and alerts: 30 days.
  public var aggregateRetentionDays = 30.0
  /// The file is kept under this size by deleting the oldest rows first (0: no limit). At
  /// 1,000 peers a day of per-tick rows is about 43 million rows (see docs/benchmarks.md, storage
  /// benchmark), so 48 h of them need more than the default: raise it, or lower the retention.
  public var maxSizeMegabytes = 4096
  /// Per-stream rows each tick too (opt-in: a row per stream per tick).
  public var streamRows = false

  public init() {}

  public static let rawRetentionRangeHours: ClosedRange<Double> = 0.1...8760
  public static let aggregateRetentionRangeDays: ClosedRange<Double> = 0...3650
  public static let maxSizeRangeMegabytes = 0...1_048_576
}
