import GRDB
import NetQualityCore

/// Per peer over a stretch of time: the seconds spent at each level each way, MOS and loss,
/// the worst minutes, disconnects and alerts. Aggregated minutes serve what the rollup has
/// covered and per-tick rows the rest (the minute in progress), so the figures are exact and a
/// day of 1,000 peers is read from 1.4 million minute rows, not 43 million ticks.
///
/// The report counts whole minutes, those that start in [from, to), and the events and alerts
/// of those minutes: a minute the rollup has covered cannot be split, so the raw ticks are
/// taken by the same rule and the figures do not depend on where the watermark is.
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

  public static func make(_ db: Database, from: Double, to: Double, peer: String? = nil) throws
    -> HistoryReport
  {
    let from = (from / 60).rounded(.up) * 60
    let to = (to / 60).rounded(.up) * 60
    let peerFilter = peer == nil ? "" : " AND peer_id = (SELECT id FROM peers WHERE name = ?)"
    let levelColumns = HistoryCodes.levelSecondsColumns
    let rawLevelSums = levelColumns.map { column -> String in
      let direction = column.prefix(2)
      let level = column.dropFirst(8).prefix(1)
      return "sum(CASE WHEN p.\(direction)_level = \(level) THEN t.interval_s ELSE 0 END)"
    }
    let averagedColumns = HistoryCodes.averagedTicksColumns.joined(separator: ", ")
    let averagedCounts = HistoryCodes.averagedTicks.map { "count(p.\($0.1))" }.joined(
      separator: ", ")
    // Per (minute, peer): the stored aggregates before the watermark, the same aggregates of
    // the raw ticks after it.
    let minutes = """
      WITH wm(w) AS (SELECT coalesce(
          (SELECT watermark FROM rollup WHERE name = 'peer_minutes'), -1e300)),
      m AS (
        SELECT minute, peer_id, seconds, ticks, tx_level_max, rx_level_max,
          \(levelColumns.joined(separator: ", ")), tx_mos_min, tx_mos_avg, rx_mos_min,
          rx_mos_avg, tx_loss_avg, tx_loss_max, rx_loss_avg, rx_loss_max, rtt_avg_ms,
          rtt_max_ms, rx_packets, rx_lost, tx_packets, \(averagedColumns)
        FROM peer_minutes, wm WHERE minute >= ? AND minute < min(?, w)\(peerFilter)
        UNION ALL
        SELECT CAST(p.time / 60 AS INTEGER) * 60, p.peer_id, sum(t.interval_s), count(*),
          max(p.tx_level), max(p.rx_level), \(rawLevelSums.joined(separator: ", ")),
          min(p.tx_mos), avg(p.tx_mos), min(p.rx_mos), avg(p.rx_mos), avg(p.tx_loss_ratio),
          max(p.tx_loss_ratio), avg(p.rx_loss_ratio), max(p.rx_loss_ratio), avg(p.rtt_ms),
          max(p.rtt_ms), sum(p.rx_packets), sum(p.rx_lost), sum(p.tx_packets), \(averagedCounts)
        FROM peer_ticks p JOIN ticks t ON t.time = p.time, wm
        WHERE p.time >= max(?, w) AND p.time < ?\(peerFilter.replacingOccurrences(
          of: "peer_id", with: "p.peer_id"))
        GROUP BY 1, 2
      )
      """
    var arguments: StatementArguments = [from, to]
    if let peer { arguments += [peer] }
    arguments += [from, to]
    if let peer { arguments += [peer] }

    /// The average of minute averages, each weighed by the ticks that had the figure (by all
    /// its ticks for a minute aggregated before those were counted).
    func weighted(_ column: String, _ counted: String) -> String {
      let weight = "coalesce(\(counted), ticks)"
      return "sum(\(column) * \(weight)) / sum(CASE WHEN \(column) IS NOT NULL THEN \(weight) END)"
    }
    let totals = try Row.fetchAll(
      db,
      sql: minutes + """
        SELECT peer_id, (SELECT name FROM peers WHERE id = peer_id), sum(seconds),
          \(levelColumns.map { "sum(\($0))" }.joined(separator: ", ")),
          min(tx_mos_min), \(weighted("tx_mos_avg", "tx_mos_ticks")), min(rx_mos_min),
          \(weighted("rx_mos_avg", "rx_mos_ticks")), \(weighted("rx_loss_avg", "rx_loss_ticks")),
          \(weighted("tx_loss_avg", "tx_loss_ticks")), \(weighted("rtt_avg_ms", "rtt_ticks")),
          max(rtt_max_ms), sum(rx_packets), sum(rx_lost), sum(tx_packets)
        FROM m GROUP BY peer_id ORDER BY 2
        """, arguments: arguments)
    let worst = try Row.fetchAll(
      db,
      sql: minutes + """
        SELECT peer_id, minute, tx_level_max, rx_level_max,
          min(coalesce(tx_mos_min, 5), coalesce(rx_mos_min, 5)), rx_loss_max, tx_loss_max,
          tx_mos_min IS NULL AND rx_mos_min IS NULL
        FROM (SELECT *, row_number() OVER (PARTITION BY peer_id
            ORDER BY max(tx_level_max, rx_level_max) DESC,
              min(coalesce(tx_mos_min, 5), coalesce(rx_mos_min, 5)), minute) AS rank
          FROM m)
        WHERE rank <= \(worstWindowCount) ORDER BY peer_id, rank
        """, arguments: arguments)
    var windows: [Int64: [Window]] = [:]
    for row in worst {
      let noMOS: Bool = row[7]
      windows[row[0], default: []].append(
        Window(
          minute: row[1], txLevel: QualityLevel(rawValue: row[2]) ?? .unknown,
          rxLevel: QualityLevel(rawValue: row[3]) ?? .unknown, mosMin: noMOS ? nil : row[4],
          rxLossMax: row[5], txLossMax: row[6]))
    }
    let disconnects = try counts(
      db,
      sql: """
        SELECT peer_id, count(*) FROM events
        WHERE kind = 'disconnected' AND time >= ? AND time < ? GROUP BY peer_id
        """, from: from, to: to)
    let alerts = try counts(
      db,
      sql: """
        SELECT peer_id, count(*) FROM alerts
        WHERE fired_at >= ? AND fired_at < ? AND peer_id IS NOT NULL GROUP BY peer_id
        """, from: from, to: to)
    let levelCount = HistoryCodes.levels.count
    let peers = totals.map { row -> Peer in
      let id: Int64 = row[0]
      let levels = (0..<(2 * levelCount)).map { (row[3 + $0] as Double?) ?? 0 }
      let base = 3 + 2 * levelCount
      return Peer(
        peer: row[1], seconds: row[2], txLevelSeconds: Array(levels[0..<levelCount]),
        rxLevelSeconds: Array(levels[levelCount...]), txMOSMin: row[base],
        txMOSAverage: row[base + 1], rxMOSMin: row[base + 2], rxMOSAverage: row[base + 3],
        rxLossAverage: row[base + 4], txLossAverage: row[base + 5],
        rttAverageMilliseconds: row[base + 6], rttMaxMilliseconds: row[base + 7],
        rxPackets: row[base + 8] ?? 0, rxLost: row[base + 9] ?? 0, txPackets: row[base + 10] ?? 0,
        disconnects: disconnects[id] ?? 0, alertsFired: alerts[id] ?? 0,
        worstWindows: windows[id] ?? [])
    }
    return HistoryReport(from: from, to: to, peers: peers)
  }

  private static func counts(_ db: Database, sql: String, from: Double, to: Double) throws
    -> [Int64: Int]
  {
    var result: [Int64: Int] = [:]
    for row in try Row.fetchAll(db, sql: sql, arguments: [from, to]) {
      result[row[0]] = row[1]
    }
    return result
  }
}
