import GRDB
import NetQualityCore

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

  /// Each peer's points (a peer without rows has none), made by `point` from a bucket's start
  /// (Unix seconds), its worst rx and tx levels, mean rx and tx loss, and mean round trip (ms):
  /// the caller's type (the status page's `ChartPoint`), so that the history knows nothing of
  /// the page.
  public func points<Point>(
    _ db: Database,
    point: (
      _ time: Double, _ rxLevel: QualityLevel, _ txLevel: QualityLevel, _ rxLossRatio: Double?,
      _ txLossRatio: Double?, _ roundTripMilliseconds: Double?
    ) -> Point
  ) throws -> [String: [Point]] {
    guard !peers.isEmpty, bucketSeconds > 0 else { return [:] }
    // The ticks of the range first (CROSS JOIN keeps that order), each finding the named
    // peers' rows by the primary key (time, peer_id): no index by peer is needed. Levels are
    // 0 (unknown) to 6 (down), so max() is the worst, unknown only when every tick was.
    let marks = Array(repeating: "?", count: peers.count).joined(separator: ",")
    let sql = """
      SELECT n.name AS name, CAST(p.time / ? AS INTEGER) AS bucket, max(p.rx_level) AS rx_level,
        max(p.tx_level) AS tx_level, avg(p.rx_loss_ratio) AS rx_loss_ratio,
        avg(p.tx_loss_ratio) AS tx_loss_ratio, avg(p.rtt_ms) AS rtt_ms
      FROM ticks t CROSS JOIN peer_ticks p ON p.time = t.time JOIN peers n ON n.id = p.peer_id
      WHERE t.time >= ? AND t.time < ?
        AND p.peer_id IN (SELECT id FROM peers WHERE name IN (\(marks)))
      GROUP BY p.peer_id, bucket
      ORDER BY p.peer_id, bucket
      """
    var arguments: StatementArguments = [bucketSeconds, from, to]
    for peer in peers { arguments += [peer] }
    var result: [String: [Point]] = [:]
    for row in try Row.fetchAll(db, sql: sql, arguments: arguments) {
      let bucket: Int64 = row["bucket"]
      let rx: Int = row["rx_level"]
      let tx: Int = row["tx_level"]
      result[row["name"], default: []].append(
        point(
          Double(bucket) * bucketSeconds, QualityLevel(rawValue: rx) ?? .unknown,
          QualityLevel(rawValue: tx) ?? .unknown, row["rx_loss_ratio"], row["tx_loss_ratio"],
          row["rtt_ms"]))
    }
    return result
  }
}
