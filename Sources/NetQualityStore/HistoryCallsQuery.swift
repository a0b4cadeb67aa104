import GRDB
import NetQualityCore

/// The calls of the history (`netquality calls`): those that ended in a stretch of time,
/// filtered as an engineer asks after a complaint (a user, a Call-ID, a peer, the failed ones,
/// the bad ones), newest or worst first. Read-only; safe while an agent writes (WAL).
public struct HistoryCallsQuery: Sendable {
  /// Unix seconds, [from, to): calls whose end falls in it.
  public var from: Double
  public var to: Double
  /// A remote peer of the call (its address or peer group name).
  public var peer: String?
  /// The From or the To user, as stored (masked as `calls.user_masking` said when written).
  public var user: String?
  public var callID: String?
  public var kind: CallRecord.Kind?
  /// A final status code (486) or class (`5xx`, `none`: no final response).
  public var status: String?
  /// SIP calls never answered only.
  public var failedOnly = false
  /// Calls whose worse direction was at least this bad at some tick.
  public var atLeast: QualityLevel?
  /// Calls through this host that lost packets in this segment of the path (`HopLoss`).
  public var lostIn: HopLoss.Segment?
  /// Worst first (the worse direction's worst level, then the lowest MOS) instead of by end.
  public var worstFirst = false
  /// At most this many calls: the newest, or with `worstFirst` the worst.
  public var limit: Int?

  public init(from: Double, to: Double) {
    self.from = from
    self.to = to
  }

  /// One call as the history holds it: the columns, and the record as JSON (`CallsJSON`).
  public struct CallRow: Sendable, Equatable {
    public var id: String
    public var kind: String
    public var callID: String?
    public var fromUser: String?
    public var toUser: String?
    public var peers: [String]
    public var start: Double
    public var answer: Double?
    public var end: Double
    public var postDialDelaySeconds: Double?
    public var finalStatus: Int?
    public var endReason: String
    public var failed: Bool
    public var worstLevel: QualityLevel
    public var minMOS: Double?
    public var rxPackets: Int64
    public var rxLost: Int64?
    public var txPackets: Int64
    public var txLost: Int64?
    public var firstTick: Double?
    public var lastTick: Double?
    /// The hops' loss per segment (`HopLoss`); nil for a call not through this host.
    public var upstreamLost: Int64?
    public var relayLost: Int64?
    public var downstreamLost: Int64?
    public var record: String
  }

  /// The calls, in the order asked (by end, oldest first; or worst first).
  public func rows(_ db: Database) throws -> [CallRow] {
    var sql = "SELECT * FROM calls WHERE end >= ? AND end < ?"
    var arguments: StatementArguments = [from, to]
    if let peer {
      // Whole names only: "10.0.0.1" is not found in "10.0.0.12".
      sql += " AND instr(' ' || peers || ' ', ' ' || ? || ' ') > 0"
      arguments += [peer]
    }
    if let user {
      sql += " AND (from_user = ? OR to_user = ?)"
      arguments += [user, user]
    }
    if let callID {
      sql += " AND call_id = ?"
      arguments += [callID]
    }
    if let kind {
      sql += " AND kind = ?"
      arguments += [kind.rawValue]
    }
    if let status {
      if let code = Int(status) {
        sql += " AND final_status = ?"
        arguments += [code]
      } else if status == "none" {
        sql += " AND (final_status IS NULL OR final_status NOT BETWEEN 100 AND 699)"
      } else if let digit = status.first?.wholeNumberValue {
        sql += " AND final_status BETWEEN ? AND ?"
        arguments += [digit * 100, digit * 100 + 99]
      }
    }
    if failedOnly { sql += " AND failed = 1" }
    if let atLeast {
      sql += " AND worst_level >= ?"
      arguments += [atLeast.rawValue]
    }
    // The column's name is the segment's, from the enum: never the caller's text.
    if let lostIn { sql += " AND \(lostIn.rawValue)_lost > 0" }
    // The limit keeps the newest (or the worst); the answer reads oldest (or worst) first.
    sql +=
      worstFirst
      ? " ORDER BY worst_level DESC, coalesce(min_mos, 5) ASC, end DESC"
      : " ORDER BY end DESC, id DESC"
    if let limit { sql += " LIMIT \(max(0, limit))" }
    let rows = try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.callRow)
    return worstFirst ? rows : rows.reversed()
  }

  /// Checks a `status` filter: a code from 100 to 699, or a class (`CallRecord.statusClasses`).
  public static func validStatus(_ status: String) -> Bool {
    if let code = Int(status) { return (100...699).contains(code) }
    return CallRecord.statusClasses.contains(status)
  }

  private static func callRow(_ row: Row) -> CallRow {
    let peers: String = row["peers"]
    let level: Int = row["worst_level"]
    return CallRow(
      id: row["id"], kind: row["kind"], callID: row["call_id"], fromUser: row["from_user"],
      toUser: row["to_user"], peers: peers.split(separator: " ").map(String.init),
      start: row["start"], answer: row["answer"], end: row["end"],
      postDialDelaySeconds: row["post_dial_delay_s"], finalStatus: row["final_status"],
      endReason: row["end_reason"], failed: row["failed"],
      worstLevel: QualityLevel(rawValue: level) ?? .unknown, minMOS: row["min_mos"],
      rxPackets: row["rx_packets"], rxLost: row["rx_lost"], txPackets: row["tx_packets"],
      txLost: row["tx_lost"], firstTick: row["first_tick"], lastTick: row["last_tick"],
      upstreamLost: row["upstream_lost"], relayLost: row["relay_lost"],
      downstreamLost: row["downstream_lost"], record: row["record"])
  }
}
