import NetQualityConfig
import NetQualityCore
import NetQualityExport
import Synchronization

/// The status page's charts kept in memory: for the peers the page shows (and those it showed
/// last), the buckets of the chart's span, filled at each tick. Only those peers have a
/// buffer — at most `bufferLimit` of them (4 × the page's rows), each of at most
/// `StatusPageSettings.chartPoints` + 1 buckets of 32 bytes: about 4 KB a peer, 310 KB with
/// the default 20 rows (620 KB with 20 peer groups too), whatever the fleet's size. The least recently shown
/// peer's buffer goes first. With the history on, the page reads the history instead (which
/// has every peer's past) and these are its fallback.
final class StatusCharts: Sendable {
  private struct Buffer {
    var buckets: [ChartBucket] = []
    /// The tick (count) at which the peer was last shown.
    var lastShown: Int64 = 0
  }

  private struct Buffers {
    var byPeer: [String: Buffer] = [:]
    var bucketSeconds = 0.0
    var ticks: Int64 = 0
  }

  private let buffers = Mutex(Buffers())
  /// The history's answer for the last page, kept until the tick or the peers change.
  private let historyCache = Mutex<(key: String, points: [String: [ChartPoint]])?>(nil)

  /// Bucket length for a span: the tick, or longer so the span has at most
  /// `StatusPageSettings.chartPoints` buckets.
  static func bucketSeconds(chartSeconds: Double, tickSeconds: Double) -> Double {
    max(tickSeconds, chartSeconds / Double(StatusPageSettings.chartPoints))
  }

  /// Buffers kept for a page of `rows` rows.
  static func bufferLimit(rows: Int) -> Int { 4 * max(1, rows) }

  /// Adds a tick's figures of the shown peers; `rows` is the page's row limit.
  func record(
    _ peers: [PeerSnapshot], at time: Double, bucketSeconds: Double, chartSeconds: Double,
    rows: Int
  ) {
    let number = Int64((time / bucketSeconds).rounded(.down))
    let keep = Int((chartSeconds / bucketSeconds).rounded(.up)) + 1
    buffers.withLock { buffers in
      if buffers.bucketSeconds != bucketSeconds {
        buffers = Buffers(bucketSeconds: bucketSeconds)
      }
      buffers.ticks += 1
      for peer in peers {
        var buffer = buffers.byPeer.removeValue(forKey: peer.peer) ?? Buffer()
        if buffer.buckets.last?.number != number {
          buffer.buckets.append(ChartBucket(number: number))
        }
        buffer.buckets[buffer.buckets.count - 1].add(
          rxLevel: peer.rx.level, txLevel: peer.tx.level, rxLossRatio: peer.rx.inputs?.lossRatio,
          txLossRatio: peer.tx.inputs?.lossRatio,
          roundTripMilliseconds: peer.roundTripMilliseconds)
        if buffer.buckets.count > keep { buffer.buckets.removeFirst(buffer.buckets.count - keep) }
        buffer.lastShown = buffers.ticks
        buffers.byPeer[peer.peer] = buffer
      }
      let limit = Self.bufferLimit(rows: rows)
      if buffers.byPeer.count > limit {
        let oldest = buffers.byPeer.sorted { $0.value.lastShown < $1.value.lastShown }
        for (name, _) in oldest.prefix(buffers.byPeer.count - limit) {
          buffers.byPeer[name] = nil
        }
      }
    }
  }

  /// A peer's points in [from, to) from memory.
  func points(_ peer: String, from: Double, to: Double) -> [ChartPoint] {
    buffers.withLock { buffers in
      guard let buffer = buffers.byPeer[peer] else { return [] }
      return buffer.buckets.map { $0.point(bucketSeconds: buffers.bucketSeconds) }
        .filter { $0.time + buffers.bucketSeconds > from && $0.time < to }
    }
  }

  var bufferCount: Int { buffers.withLock { $0.byPeer.count } }

  /// The cached history answer for `key`, or what `read` gives (then cached).
  func historyPoints(
    key: String, read: () async -> [String: [ChartPoint]]?
  ) async -> [String: [ChartPoint]]? {
    if let cached = historyCache.withLock({ $0 }), cached.key == key { return cached.points }
    guard let points = await read() else { return nil }
    historyCache.withLock { $0 = (key, points) }
    return points
  }
}
