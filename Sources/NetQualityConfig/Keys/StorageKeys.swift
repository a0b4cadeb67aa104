/// The SQLite history: read once at start (the file is opened then).
enum StorageKeys {
  static let all: [ConfigurationKey] = [
    .string("storage_path", \.storagePath, .restart),
    .bool("storage.enabled", \.storage.enabled, .restart),
    .number(
      "storage.raw_retention_hours", \.storage.rawRetentionHours,
      in: StorageSettings.rawRetentionRangeHours, .restart),
    .number(
      "storage.aggregate_retention_days", \.storage.aggregateRetentionDays,
      in: StorageSettings.aggregateRetentionRangeDays, .restart),
    .integer(
      "storage.max_size_mb", \.storage.maxSizeMegabytes, in: StorageSettings.maxSizeRangeMegabytes,
      .restart),
    .bool("storage.stream_rows", \.storage.streamRows, .restart),
  ]
}
