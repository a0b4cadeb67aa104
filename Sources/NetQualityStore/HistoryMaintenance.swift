import GRDB

/// Downsampling and retention, in small steps so that no transaction holds the file long:
/// complete minutes of per-tick rows become one `peer_minutes` row per peer (min/avg/max and
/// the seconds spent at each level), raw rows older than their retention go once aggregated,
/// minutes, events and alerts older than theirs go too, and the file is kept under its size.
///
/// Ages count back from the newest tick in the file, not from the clock: a capture analysed
/// into a file (`analyze --db`) keeps its rows however old it is, and the live agent's newest
/// tick is now.
public struct HistoryMaintenance: Sendable {
  public var rawRetentionSeconds: Double
  public var aggregateRetentionSeconds: Double
  /// 0: no limit.
  public var maxBytes: Int64

  /// Minutes aggregated per transaction, and seconds of raw rows deleted per transaction (at
  /// 1,000 peers and a tick per 2 s, 30,000 rows: tens of milliseconds).
  static let minutesPerStep = 10
  static let hoursPerStep = 1
  static let purgeChunkSeconds = 60.0

  public init(rawRetentionSeconds: Double, aggregateRetentionSeconds: Double, maxBytes: Int64) {
    self.rawRetentionSeconds = rawRetentionSeconds
    self.aggregateRetentionSeconds = aggregateRetentionSeconds
    self.maxBytes = maxBytes
  }

  /// What one pass did.
  public struct Pass: Sendable, Equatable {
    public var minutesAggregated = 0
    public var hoursAggregated = 0
    public var rawRowsDeleted = 0
    public var aggregateRowsDeleted = 0
    /// More is due (a backlog after downtime): run another pass soon.
    public var behind = false
  }

  /// One bounded pass: at most `minutesPerStep` minutes aggregated and one chunk deleted of
  /// each kind. With `final`, the minute in progress is aggregated too (without moving the
  /// watermark past it, so that later ticks of that minute are aggregated again).
  public func run(_ database: DatabaseQueue, final: Bool = false) throws -> Pass {
    var pass = Pass()
    guard let newest = try database.read({ db in try Double.fetchOne(db, sql: Self.newestSQL) })
    else { return pass }
    pass.minutesAggregated = try rollUp(database, newest: newest, final: final)
    pass.hoursAggregated = try rollUpHours(database)
    pass.behind =
      pass.minutesAggregated == Self.minutesPerStep || pass.hoursAggregated == Self.hoursPerStep
    let deleted = try purge(database, newest: newest)
    pass.rawRowsDeleted = deleted.raw
    pass.aggregateRowsDeleted = deleted.aggregate
    pass.behind = pass.behind || deleted.more
    return pass
  }

  /// Runs passes until nothing is left to do (`analyze --db`, tests, the agent's stop).
  public func runToCompletion(_ database: DatabaseQueue, final: Bool = true) throws {
    while try run(database, final: final).behind {}
  }

  static let newestSQL = "SELECT max(time) FROM ticks"

  /// Aggregates the complete minutes after the watermark (up to `minutesPerStep`); returns
  /// how many minutes it covered.
  func rollUp(_ database: DatabaseQueue, newest: Double, final: Bool) throws -> Int {
    var minutes = 0
    try database.inTransaction(.immediate) { db in
      let stored = try Self.watermark(db)
      // From the minute of the first tick not yet aggregated: a silence (a capture spanning
      // years with ticks skipped) is stepped over, not walked through.
      guard
        let next = try Double.fetchOne(
          db, sql: "SELECT min(time) FROM ticks WHERE time >= ?", arguments: [stored ?? -1e300])
      else { return .commit }
      let start = max(stored ?? -1e300, (next / 60).rounded(.down) * 60)
      let newestMinute = (newest / 60).rounded(.down) * 60
      // Minutes before the newest tick's are complete: ticks come in time order.
      let completeEnd = min(newestMinute, start + Double(Self.minutesPerStep * 60))
      let end = final && completeEnd == newestMinute ? newestMinute + 60 : completeEnd
      guard end > start else { return .commit }
      try Self.aggregate(db, from: start, to: end)
      try db.execute(
        sql: "INSERT OR REPLACE INTO rollup (name, watermark) VALUES ('peer_minutes', ?)",
        arguments: [max(completeEnd, stored ?? completeEnd)])
      minutes = Int(((completeEnd - start) / 60).rounded())
      return .commit
    }
    return minutes
  }

  /// Everything before it is aggregated into `table` (minutes, or hours).
  static func watermark(_ db: Database, of table: String = "peer_minutes") throws -> Double? {
    try Double.fetchOne(db, sql: "SELECT watermark FROM rollup WHERE name = ?", arguments: [table])
  }

  /// The `peer_minutes` rows of [from, to): one per peer and minute.
  static func aggregate(_ db: Database, from: Double, to: Double) throws {
    let names = HistoryAggregate.names.joined(separator: ", ")
    try db.execute(
      sql: """
        INSERT OR REPLACE INTO peer_minutes (minute, peer_id, \(names))
        \(HistoryAggregate.minutesOfTicks(onePeer: false))
        """,
      arguments: [from, to])
  }

  /// Rolls the complete hours after the hour watermark (one per pass: an hour of 1,000 peers
  /// is 60,000 minute rows) into `peer_hours`, and keeps the hour's worst minutes of each
  /// peer in `peer_worst_minutes`; returns how many hours it covered. An hour is complete when
  /// the minute watermark has passed its end, and whole when the file has all its minutes.
  func rollUpHours(_ database: DatabaseQueue) throws -> Int {
    var hours = 0
    try database.inTransaction(.immediate) { db in
      guard let minutes = try Self.watermark(db) else { return .commit }
      // Only whole hours: not the first if the file starts after its first minute, nor one
      // whose first minutes went with their retention (the report serves those from minutes).
      guard let oldest = try Double.fetchOne(db, sql: "SELECT min(minute) FROM peer_minutes")
      else { return .commit }
      let stored = try Self.watermark(db, of: "peer_hours") ?? -.infinity
      // From the hour of the first minute not yet rolled up: a silence (captures months apart
      // analysed into one file) is stepped over, not walked an hour at a time (8 months took
      // 17 s, a pass per empty hour).
      let next = try Double.fetchOne(
        db, sql: "SELECT min(minute) FROM peer_minutes WHERE minute >= ?",
        arguments: [max(stored, HistorySpans.hourUp(oldest))])
      let start = max(
        stored, HistorySpans.hourUp(oldest),
        HistorySpans.hourDown(next ?? HistorySpans.hourDown(minutes)))
      let end = min(HistorySpans.hourDown(minutes), start + Double(Self.hoursPerStep) * 3600)
      guard end > start else { return .commit }
      let names = HistoryAggregate.names
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO peer_hours (hour, peer_id, \(names.joined(separator: ", ")))
          SELECT CAST(minute / 3600 AS INTEGER) * 3600, peer_id,
            \(names.map(HistoryAggregate.combined).joined(separator: ", "))
          FROM peer_minutes WHERE minute >= ? AND minute < ?
          GROUP BY 1, 2
          """,
        arguments: [start, end])
      let windows = HistoryAggregate.windowColumns.joined(separator: ", ")
      try db.execute(
        sql: """
          INSERT OR REPLACE INTO peer_worst_minutes (\(windows))
          SELECT \(windows) FROM (
            SELECT \(windows), row_number() OVER (
                PARTITION BY CAST(minute / 3600 AS INTEGER), peer_id
                ORDER BY \(HistoryAggregate.worstFirst)) AS rank
            FROM peer_minutes WHERE minute >= ? AND minute < ?)
          WHERE rank <= \(HistoryReport.worstWindowCount)
          """,
        arguments: [start, end])
      try db.execute(
        sql: "INSERT OR REPLACE INTO rollup (name, watermark) VALUES ('peer_hours', ?)",
        arguments: [end])
      hours = Int(((end - start) / 3600).rounded())
      return .commit
    }
    return hours
  }

  /// Deletes one chunk of what is past its retention or over the size limit.
  func purge(_ database: DatabaseQueue, newest: Double) throws -> (
    raw: Int, aggregate: Int, more: Bool
  ) {
    var raw = 0
    var aggregate = 0
    var more = false
    try database.inTransaction(.immediate) { db in
      let watermark = try Self.watermark(db) ?? -Double.infinity
      let overSize = try maxBytes > 0 && Self.usedBytes(db) > maxBytes
      if let oldestRaw = try Double.fetchOne(db, sql: "SELECT min(time) FROM ticks") {
        // Raw rows go when past their age, or oldest first while the file is over its size;
        // never before they are aggregated.
        let due = min(overSize ? newest : newest - rawRetentionSeconds, watermark)
        if oldestRaw < due {
          let cutoff = min(due, oldestRaw + Self.purgeChunkSeconds)
          for table in ["peer_ticks", "stream_ticks", "ticks"] {
            try db.execute(sql: "DELETE FROM \(table) WHERE time < ?", arguments: [cutoff])
            raw += db.changesCount
          }
          more = cutoff < due
        }
      }
      // Aggregates go when past their age, or, over the size with no aggregated raw row left
      // to give (there are always raw rows: those of the minute in progress), oldest first up
      // to the watermark; a minute after it is only the provisional aggregate of the minute in
      // progress, whose raw rows stay anyway.
      let aggregateDue =
        overSize && raw == 0
        ? max(watermark, newest - aggregateRetentionSeconds)
        : newest - aggregateRetentionSeconds
      if let oldestMinute = try Double.fetchOne(db, sql: "SELECT min(minute) FROM peer_minutes"),
        oldestMinute < aggregateDue
      {
        let cutoff = min(aggregateDue, oldestMinute + Self.purgeChunkSeconds * 60)
        try db.execute(sql: "DELETE FROM peer_minutes WHERE minute < ?", arguments: [cutoff])
        aggregate += db.changesCount
        more = more || cutoff < aggregateDue
      }
      // Hours and worst minutes go with the minutes they were made of, an hour with its first
      // minute: the report serves a partly deleted hour from its minutes.
      let oldestMinute =
        try Double.fetchOne(db, sql: "SELECT min(minute) FROM peer_minutes") ?? .infinity
      try db.execute(sql: "DELETE FROM peer_hours WHERE hour < ?", arguments: [oldestMinute])
      aggregate += db.changesCount
      try db.execute(
        sql: "DELETE FROM peer_worst_minutes WHERE minute < ?", arguments: [oldestMinute])
      // Over the size, whatever went, the next pass measures again and may go on with the
      // minutes once the raw rows are exhausted.
      more = more || (overSize && raw + aggregate > 0)
      let kept = newest - aggregateRetentionSeconds
      try db.execute(sql: "DELETE FROM events WHERE time < ?", arguments: [kept])
      aggregate += db.changesCount
      try db.execute(sql: "DELETE FROM storage_events WHERE time < ?", arguments: [kept])
      aggregate += db.changesCount
      try db.execute(sql: "DELETE FROM alerts WHERE resolved_at < ?", arguments: [kept])
      aggregate += db.changesCount
      try db.execute(sql: "DELETE FROM calls WHERE end < ?", arguments: [kept])
      aggregate += db.changesCount
      return .commit
    }
    return (raw, aggregate, more)
  }

  /// Bytes of the file in use (pages minus the free list): what the size limit counts. The
  /// free pages are reused before the file grows, so the file stops growing at the limit.
  public static func usedBytes(_ db: Database) throws -> Int64 {
    let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
    let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
    let free = try Int64.fetchOne(db, sql: "PRAGMA freelist_count") ?? 0
    return (pages - free) * pageSize
  }
}
