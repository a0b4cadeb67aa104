/// Cumulative counts of delays under fixed bounds, for Prometheus histograms: counts only grow,
/// and the storage is made once per probe session (nothing allocated per probe).
public struct DelayHistogram: Sendable, Equatable {
  /// Upper bounds in seconds, ascending; the implicit last bucket is +Inf.
  public let boundsSeconds: [Double]
  /// `counts[i]`: delays at most `boundsSeconds[i]` (not cumulative across buckets); the last
  /// element counts those above every bound.
  public private(set) var counts: [Int64]
  public private(set) var sumSeconds = 0.0

  public init(boundsSeconds: [Double]) {
    self.boundsSeconds = boundsSeconds
    counts = Array(repeating: 0, count: boundsSeconds.count + 1)
  }

  public var count: Int64 { counts.reduce(0, +) }

  /// Cumulative counts per bound, as Prometheus's `le` buckets want them (the last is +Inf).
  public var cumulativeCounts: [Int64] {
    var running: Int64 = 0
    return counts.map {
      running += $0
      return running
    }
  }

  public mutating func add(_ seconds: Double) {
    var index = 0
    while index < boundsSeconds.count && seconds > boundsSeconds[index] { index += 1 }
    counts[index] += 1
    sumSeconds += seconds
  }

  /// Pools another histogram with the same bounds (a peer probed through several reflectors).
  public mutating func merge(_ other: DelayHistogram) {
    guard other.boundsSeconds == boundsSeconds else { return }
    for index in counts.indices { counts[index] += other.counts[index] }
    sumSeconds += other.sumSeconds
  }

  /// Round trips: 50 µs doubling to 1.6384 s (16 bounds), smokeping_prober's default layout
  /// (its `--buckets`, `prometheus.ExponentialBuckets(0.00005, 2, 20)`) without its last four
  /// (3.3 s to 26 s: past any probe's deadline but the longest). Doubling bounds keep the same
  /// relative resolution at every scale: a quantile read inside a bucket is off by less than
  /// the bucket's lower bound, so a same-host path (tens of µs) and an intercontinental one
  /// (hundreds of ms) are both resolved, and the two tools' series line up bucket for bucket.
  /// The former bounds began at 500 µs, so every quantile of a same-host path was an artefact
  /// of the first bucket (issue 26). Configurable: `probe_rtt_buckets`.
  public static let roundTripBoundsSeconds = exponentialBounds(
    start: 0.000_05, factor: 2, count: 16)

  /// `count` bounds from `start`, each `factor` times the one before (as client_golang's
  /// `ExponentialBuckets`), rounded to the nanosecond so that they print as written.
  public static func exponentialBounds(start: Double, factor: Double, count: Int) -> [Double] {
    var bounds: [Double] = []
    var bound = start
    for _ in 0..<max(0, count) {
      bounds.append((bound * 1e9).rounded() / 1e9)
      bound *= factor
    }
    return bounds
  }

  /// One-way delays (with synchronised clocks): G.114's 150 ms and 400 ms among them.
  public static let oneWayDelayBoundsSeconds = [
    0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 1,
  ]
  /// Delay variation between consecutive probes (RFC 3393 IPDV, absolute): a jitter buffer
  /// absorbs a few tens of milliseconds; 20 ms is a voice packet's interval (RFC 3551 4.5).
  public static let delayVariationBoundsSeconds = [
    0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2,
  ]
}
