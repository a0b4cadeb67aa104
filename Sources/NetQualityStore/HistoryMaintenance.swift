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
  static let purgeChunkSeconds = 60.0

  public init(rawRetentionSeconds: Double, aggregateRetentionSeconds: Double, maxBytes: Int64) {
    self.rawRetentionSeconds = rawRetentionSeconds
    self.aggregateRetentionSeconds = aggregateRetentionSeconds
    self.maxBytes = maxBytes
  }

  /// What one pass did.
  public struct Pass: Sendable, Equatable {
    public var minutesAggregated = 0
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
    pass.behind = pass.minutesAggregated == Self.minutesPerStep
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
      guard let start = try stored ?? Self.minuteOfOldestTick(db) else { return .commit }
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

  static func watermark(_ db: Database) throws -> Double? {
    try Double.fetchOne(db, sql: "SELECT watermark FROM rollup WHERE name = 'peer_minutes'")
  }

  static func minuteOfOldestTick(_ db: Database) throws -> Double? {
    try Double.fetchOne(db, sql: "SELECT min(time) FROM ticks").map {
      ($0 / 60).rounded(.down) * 60
    }
  }

  /// The `peer_minutes` rows of [from, to): one per peer and minute.
  static func aggregate(_ db: Database, from: Double, to: Double) throws {
    func levelSeconds(_ direction: String, _ level: Int) -> String {
      "sum(CASE WHEN p.\(direction)_level = \(level) THEN t.interval_s ELSE 0 END)"
    }
    let levelColumns = HistoryCodes.levelSecondsColumns.joined(separator: ", ")
    let levelSums =
      (HistoryCodes.levels.map { levelSeconds("tx", $0) }
      + HistoryCodes.levels.map { levelSeconds("rx", $0) }).joined(separator: ", ")
    let averagedColumns = HistoryCodes.averagedTicksColumns.joined(separator: ", ")
    let averagedCounts = HistoryCodes.averagedTicks.map { "count(p.\($0.1))" }.joined(
      separator: ", ")
    try db.execute(
      sql: """
        INSERT OR REPLACE INTO peer_minutes (minute, peer_id, seconds, ticks, tx_level_max,
          rx_level_max, \(levelColumns), tx_mos_min, tx_mos_avg, tx_mos_max, rx_mos_min,
          rx_mos_avg, rx_mos_max, tx_loss_avg, tx_loss_max, rx_loss_avg, rx_loss_max,
          tx_jitter_avg_ms, tx_jitter_max_ms, rx_jitter_avg_ms, rx_jitter_max_ms, rtt_min_ms,
          rtt_avg_ms, rtt_max_ms, rx_packets, rx_lost, tx_packets, \(averagedColumns))
        SELECT CAST(p.time / 60 AS INTEGER) * 60, p.peer_id, sum(t.interval_s), count(*),
          max(p.tx_level), max(p.rx_level), \(levelSums),
          min(p.tx_mos), avg(p.tx_mos), max(p.tx_mos), min(p.rx_mos), avg(p.rx_mos),
          max(p.rx_mos), avg(p.tx_loss_ratio), max(p.tx_loss_ratio), avg(p.rx_loss_ratio),
          max(p.rx_loss_ratio), avg(p.tx_jitter_ms), max(p.tx_jitter_ms), avg(p.rx_jitter_ms),
          max(p.rx_jitter_ms), min(p.rtt_ms), avg(p.rtt_ms), max(p.rtt_ms), sum(p.rx_packets),
          sum(p.rx_lost), sum(p.tx_packets), \(averagedCounts)
        FROM peer_ticks p JOIN ticks t ON t.time = p.time
        WHERE p.time >= ? AND p.time < ?
        GROUP BY CAST(p.time / 60 AS INTEGER), p.peer_id
        """,
      arguments: [from, to])
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
