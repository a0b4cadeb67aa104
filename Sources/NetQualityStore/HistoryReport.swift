import GRDB
import NetQualityCore

/// Per peer over a stretch of time: the seconds spent at each level each way, MOS and loss,
/// the worst minutes, disconnects and alerts. Rolled-up hours serve the whole hours of the
/// range, minutes its ends and what the hours do not cover yet, and per-tick rows the rest
/// (the minute in progress), so the figures are exact and a day of 1,000 peers is read from
/// 24,000 hour rows and at most two hours of minutes, not 1.4 million minutes or 43 million
/// ticks (see `HistorySpans`).
///
/// The report counts whole minutes, those that start in [from, to), and the events and alerts
/// of those minutes: a minute the rollup has covered cannot be split, so the raw ticks are
/// taken by the same rule and the figures do not depend on where the watermarks are.
public struct HistoryReport: Sendable {
  public struct Window: Sendable, Equatable {
    /// Start of the minute, Unix seconds.
    public var minute: Double
    public var txLevel: QualityLevel
    public var rxLevel: QualityLevel
    public var mosMin: Double?
    public var rxLossMax: Double?
    public var txLossMax: Double?
  }

  public struct Peer: Sendable, Equatable {
    public var peer: String
    /// Seconds covered by ticks.
    public var seconds: Double
    /// Seconds at level 0...6, by index.
    public var txLevelSeconds: [Double]
    public var rxLevelSeconds: [Double]
    public var txMOSMin: Double?
    public var txMOSAverage: Double?
    public var rxMOSMin: Double?
    public var rxMOSAverage: Double?
    public var rxLossAverage: Double?
    public var txLossAverage: Double?
    public var rttAverageMilliseconds: Double?
    public var rttMaxMilliseconds: Double?
    public var rxPackets: Int64
    public var rxLost: Int64
    public var txPackets: Int64
    public var disconnects: Int
    public var alertsFired: Int
    /// The worst minutes, worst first: highest level either way, then lowest MOS.
    public var worstWindows: [Window]
  }

  /// The minutes counted: the range asked for, both ends rounded up to the minute.
  public var from: Double
  public var to: Double
  public var peers: [Peer]

  /// The worst minutes listed per peer.
  public static let worstWindowCount = 3

  /// The figures the report sums up per peer, in the order `make` reads them.
  static let totalColumns =
    ["seconds"] + HistoryCodes.levelSecondsColumns + [
      "tx_mos_min", "tx_mos_avg", "rx_mos_min", "rx_mos_avg", "rx_loss_avg", "tx_loss_avg",
      "rtt_avg_ms", "rtt_max_ms", "rx_packets", "rx_lost", "tx_packets",
    ]

  public static func make(_ db: Database, from: Double, to: Double, peer: String? = nil) throws
    -> HistoryReport
  {
    let from = (from / 60).rounded(.up) * 60
    let to = max(from, (to / 60).rounded(.up) * 60)
    var peerID: Int64?
    if let peer {
      peerID = try Int64.fetchOne(db, sql: "SELECT id FROM peers WHERE name = ?", arguments: [peer])
      if peerID == nil { return HistoryReport(from: from, to: to, peers: []) }
    }
    let spans = try HistorySpans(db, from: from, to: to)

    // The rows of each part, `columns` of each, as one UNION ALL.
    var arguments: [(any DatabaseValueConvertible)?] = []
    func rows(stored: (table: String, key: String), _ columns: [String]) -> String {
      let onePeer = peerID == nil ? "" : " AND peer_id = ?"
      var parts: [String] = []
      for (table, key, range) in [(stored.table, stored.key, spans.hours)]
        + spans.minutes.map({ ("peer_minutes", "minute", $0) })
      {
        parts.append(
          "SELECT peer_id, \(columns.joined(separator: ", ")) FROM \(table) "
            + "WHERE \(key) >= ? AND \(key) < ?\(onePeer)")
        arguments += [range.lowerBound, range.upperBound] + (peerID.map { [$0] } ?? [])
      }
      parts.append(
        "SELECT peer_id, \(columns.joined(separator: ", ")) FROM ("
          + HistoryAggregate.minutesOfTicks(
            columns.filter { $0 != "minute" }, onePeer: peerID != nil) + ")")
      arguments += [spans.raw.lowerBound, spans.raw.upperBound] + (peerID.map { [$0] } ?? [])
      return parts.joined(separator: "\nUNION ALL ")
    }

    let totalsSQL = """
      WITH rows AS (
        \(rows(stored: ("peer_hours", "hour"), HistoryAggregate.inputs(of: totalColumns))))
      SELECT peer_id, (SELECT name FROM peers WHERE id = peer_id) AS peer,
        \(totalColumns.map { "\(HistoryAggregate.combined($0)) AS \($0)" }.joined(separator: ", "))
      FROM rows GROUP BY peer_id ORDER BY peer
      """
    let totals = try Row.fetchAll(
      db, sql: totalsSQL, arguments: StatementArguments(arguments))
    arguments = []
    // An hour's worst minutes stand in for its minutes: a minute among the worst of the range
    // is among the worst of its hour.
    let windowColumns = HistoryAggregate.windowColumns.filter { $0 != "peer_id" }
    let worstSQL = """
      WITH windows AS (
        \(rows(stored: ("peer_worst_minutes", "minute"), windowColumns)))
      SELECT peer_id, minute, tx_level_max, rx_level_max,
        min(coalesce(tx_mos_min, 5), coalesce(rx_mos_min, 5)) AS mos_min, rx_loss_max,
        tx_loss_max, tx_mos_min IS NULL AND rx_mos_min IS NULL AS no_mos
      FROM (SELECT *, row_number() OVER (
          PARTITION BY peer_id ORDER BY \(HistoryAggregate.worstFirst)) AS rank
        FROM windows)
      WHERE rank <= \(worstWindowCount) ORDER BY peer_id, rank
      """
    let worst = try Row.fetchAll(db, sql: worstSQL, arguments: StatementArguments(arguments))
    var windows: [Int64: [Window]] = [:]
    for row in worst {
      let noMOS: Bool = row["no_mos"]
      windows[row["peer_id"], default: []].append(
        Window(
          minute: row["minute"], txLevel: QualityLevel(rawValue: row["tx_level_max"]) ?? .unknown,
          rxLevel: QualityLevel(rawValue: row["rx_level_max"]) ?? .unknown,
          mosMin: noMOS ? nil : row["mos_min"], rxLossMax: row["rx_loss_max"],
          txLossMax: row["tx_loss_max"]))
    }
    let disconnects = try counts(
      db,
      sql: """
        SELECT peer_id, count(*) AS count FROM events
        WHERE kind = 'disconnected' AND time >= ? AND time < ? GROUP BY peer_id
        """, from: from, to: to)
    let alerts = try counts(
      db,
      sql: """
        SELECT peer_id, count(*) AS count FROM alerts
        WHERE fired_at >= ? AND fired_at < ? AND peer_id IS NOT NULL GROUP BY peer_id
        """, from: from, to: to)
    let levelCount = HistoryCodes.levels.count
    let peers = totals.map { row -> Peer in
      let id: Int64 = row["peer_id"]
      // tx levels first, then rx (`HistoryCodes.levelSecondsColumns`).
      let levels = HistoryCodes.levelSecondsColumns.map { (row[$0] as Double?) ?? 0 }
      return Peer(
        peer: row["peer"], seconds: row["seconds"],
        txLevelSeconds: Array(levels[0..<levelCount]),
        rxLevelSeconds: Array(levels[levelCount...]), txMOSMin: row["tx_mos_min"],
        txMOSAverage: row["tx_mos_avg"], rxMOSMin: row["rx_mos_min"],
        rxMOSAverage: row["rx_mos_avg"], rxLossAverage: row["rx_loss_avg"],
        txLossAverage: row["tx_loss_avg"], rttAverageMilliseconds: row["rtt_avg_ms"],
        rttMaxMilliseconds: row["rtt_max_ms"], rxPackets: row["rx_packets"] ?? 0,
        rxLost: row["rx_lost"] ?? 0, txPackets: row["tx_packets"] ?? 0,
        disconnects: disconnects[id] ?? 0, alertsFired: alerts[id] ?? 0,
        worstWindows: windows[id] ?? [])
    }
    return HistoryReport(from: from, to: to, peers: peers)
  }

  /// `sql` selects `peer_id` and `count`.
  private static func counts(_ db: Database, sql: String, from: Double, to: Double) throws
    -> [Int64: Int]
  {
    var result: [Int64: Int] = [:]
    for row in try Row.fetchAll(db, sql: sql, arguments: [from, to]) {
      result[row["peer_id"]] = row["count"]
    }
    return result
  }
}
