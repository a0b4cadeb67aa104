import GRDB
import NetQualityCore

/// The questions asked of the history after an incident: a peer's ticks over a stretch of
/// time, the alerts, and a report per peer. Read-only; safe while an agent writes (WAL).
public struct HistoryQuery: Sendable {
  /// Unix seconds, [from, to).
  public var from: Double
  public var to: Double
  /// A peer's exact name (its address or group name); nil for every peer.
  public var peer: String?
  /// At most this many rows (the newest are kept when a limit cuts).
  public var limit: Int?

  public init(from: Double, to: Double, peer: String? = nil, limit: Int? = nil) {
    self.from = from
    self.to = to
    self.peer = peer
    self.limit = limit
  }

  /// One peer at one tick.
  public struct TickRow: Sendable, Equatable {
    public var time: Double
    public var intervalSeconds: Double
    public var peer: String
    public var state: ConnectionState
    public var txLevel: QualityLevel
    public var rxLevel: QualityLevel
    public var txSource: MeasurementSource?
    public var rxSource: MeasurementSource?
    public var txMOS: Double?
    public var rxMOS: Double?
    public var txLossRatio: Double?
    public var rxLossRatio: Double?
    public var txJitterMilliseconds: Double?
    public var rxJitterMilliseconds: Double?
    public var roundTripMilliseconds: Double?
    public var roundTripSource: RoundTripSource?
    public var rxPackets: Int64
    public var rxLost: Int64
    public var txPackets: Int64
    public var rxBitsPerSecond: Double
    public var streams: Int
  }

  public func rows(_ db: Database) throws -> [TickRow] {
    var sql = """
      SELECT p.time, t.interval_s, n.name, p.state, p.tx_level, p.rx_level, p.tx_source,
        p.rx_source, p.tx_mos, p.rx_mos, p.tx_loss_ratio, p.rx_loss_ratio, p.tx_jitter_ms,
        p.rx_jitter_ms, p.rtt_ms, p.rtt_source, p.rx_packets, p.rx_lost, p.tx_packets,
        p.rx_bitrate_bps, p.streams
      FROM ticks t CROSS JOIN peer_ticks p ON p.time = t.time JOIN peers n ON n.id = p.peer_id
      WHERE t.time >= ? AND t.time < ?
      """
    // The ticks in the range first (CROSS JOIN keeps that order): each finds its rows, or the
    // one peer's row, by the primary key (time, peer_id), with no index by peer.
    var arguments: StatementArguments = [from, to]
    if let peer {
      sql += " AND p.peer_id = (SELECT id FROM peers WHERE name = ?)"
      arguments += [peer]
    }
    sql += " ORDER BY p.time DESC, n.name DESC"
    if let limit { sql += " LIMIT \(max(0, limit))" }
    var rows: [TickRow] = []
    for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
      rows.append(Self.tickRow(row))
    }
    return rows.reversed()
  }

  /// A row of `rows`' query, read by its columns' names.
  private static func tickRow(_ row: Row) -> TickRow {
    let state: Int = row["state"]
    let txLevel: Int = row["tx_level"]
    let rxLevel: Int = row["rx_level"]
    let txSource: Int? = row["tx_source"]
    let rxSource: Int? = row["rx_source"]
    let roundTripSource: Int? = row["rtt_source"]
    return TickRow(
      time: row["time"], intervalSeconds: row["interval_s"], peer: row["name"],
      state: HistoryCodes.state(state) ?? .connecting,
      txLevel: QualityLevel(rawValue: txLevel) ?? .unknown,
      rxLevel: QualityLevel(rawValue: rxLevel) ?? .unknown,
      txSource: HistoryCodes.source(txSource), rxSource: HistoryCodes.source(rxSource),
      txMOS: row["tx_mos"], rxMOS: row["rx_mos"], txLossRatio: row["tx_loss_ratio"],
      rxLossRatio: row["rx_loss_ratio"], txJitterMilliseconds: row["tx_jitter_ms"],
      rxJitterMilliseconds: row["rx_jitter_ms"], roundTripMilliseconds: row["rtt_ms"],
      roundTripSource: HistoryCodes.roundTripSource(roundTripSource),
      rxPackets: row["rx_packets"], rxLost: row["rx_lost"], txPackets: row["tx_packets"],
      rxBitsPerSecond: row["rx_bitrate_bps"], streams: row["streams"])
  }

  /// One alert, firing or ended.
  public struct AlertRow: Sendable, Equatable {
    public var id: String
    public var rule: String
    public var severity: String
    public var peer: String?
    /// JSON object text.
    public var labels: String
    public var summary: String
    public var firedAt: Double
    public var resolvedAt: Double?
    /// "resolved", or "agent_stopped" when the agent stopped while it fired.
    public var endReason: String?
  }

  /// Alerts active at some time in [from, to) (fired before `to`, not resolved before
  /// `from`); with `activeOnly`, only those still firing.
  public func alerts(_ db: Database, activeOnly: Bool = false) throws -> [AlertRow] {
    var sql = """
      SELECT a.id, a.rule, a.severity, n.name, a.labels, a.summary, a.fired_at, a.resolved_at,
        a.end_reason
      FROM alerts a LEFT JOIN peers n ON n.id = a.peer_id
      WHERE a.fired_at < ? AND (a.resolved_at IS NULL OR a.resolved_at >= ?)
      """
    var arguments: StatementArguments = [to, from]
    if activeOnly { sql += " AND a.resolved_at IS NULL" }
    if let peer {
      sql += " AND n.name = ?"
      arguments += [peer]
    }
    sql += " ORDER BY a.fired_at, a.id"
    if let limit { sql += " LIMIT \(max(0, limit))" }
    return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
      AlertRow(
        id: row["id"], rule: row["rule"], severity: row["severity"], peer: row["name"],
        labels: row["labels"], summary: row["summary"], firedAt: row["fired_at"],
        resolvedAt: row["resolved_at"], endReason: row["end_reason"])
    }
  }

  /// The newest tick in the file, for the hint when a range holds nothing.
  public static func newestTick(_ db: Database) throws -> Double? {
    try Double.fetchOne(db, sql: HistoryMaintenance.newestSQL)
  }

  public static func oldestTick(_ db: Database) throws -> Double? {
    let raw = try Double.fetchOne(db, sql: "SELECT min(time) FROM ticks")
    let minute = try Double.fetchOne(db, sql: "SELECT min(minute) FROM peer_minutes")
    return [raw, minute].compactMap { $0 }.min()
  }
}
