import GRDB
import NetQualityCore
import NetQualityExport

/// The status page's charts from the history: for each named peer, its per-tick rows in
/// [from, to) summed into buckets of `bucketSeconds` (`ChartBucket`'s rules: the worst level
/// each way, mean loss and round trip), in time order. Read-only, safe while the agent writes.
public struct HistoryChartQuery: Sendable {
  public var peers: [String]
  public var from: Double
  public var to: Double
  public var bucketSeconds: Double

  public init(peers: [String], from: Double, to: Double, bucketSeconds: Double) {
    self.peers = peers
    self.from = from
    self.to = to
    self.bucketSeconds = bucketSeconds
  }

  /// Each peer's points (a peer without rows has none).
  public func points(_ db: Database) throws -> [String: [ChartPoint]] {
    guard !peers.isEmpty, bucketSeconds > 0 else { return [:] }
    // The ticks of the range first (CROSS JOIN keeps that order), each finding the named
    // peers' rows by the primary key (time, peer_id): no index by peer is needed. Levels are
    // 0 (unknown) to 6 (down), so max() is the worst, unknown only when every tick was.
    let marks = Array(repeating: "?", count: peers.count).joined(separator: ",")
    let sql = """
      SELECT n.name, CAST(p.time / ? AS INTEGER) AS bucket, max(p.rx_level), max(p.tx_level),
        avg(p.rx_loss_ratio), avg(p.tx_loss_ratio), avg(p.rtt_ms)
      FROM ticks t CROSS JOIN peer_ticks p ON p.time = t.time JOIN peers n ON n.id = p.peer_id
      WHERE t.time >= ? AND t.time < ?
        AND p.peer_id IN (SELECT id FROM peers WHERE name IN (\(marks)))
      GROUP BY p.peer_id, bucket
      ORDER BY p.peer_id, bucket
      """
    var arguments: StatementArguments = [bucketSeconds, from, to]
    for peer in peers { arguments += [peer] }
    var result: [String: [ChartPoint]] = [:]
    for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
      let bucket: Int64 = row[1]
      let rx: Int = row[2]
      let tx: Int = row[3]
      result[row[0], default: []].append(
        ChartPoint(
          time: Double(bucket) * bucketSeconds,
          rxLevel: QualityLevel(rawValue: rx) ?? .unknown,
          txLevel: QualityLevel(rawValue: tx) ?? .unknown, rxLossRatio: row[4],
          txLossRatio: row[5], roundTripMilliseconds: row[6]))
    }
    return result
  }
}
