import NetQualityCore

/// The tick itself: when its window ended, and the host's level per direction (the worst over
/// active peers, like an RTC SDK's local quality).
public struct HostCollector: MetricsCollector {
  public static let families: [MetricFamily] = [.lastTickTimestampSeconds, .hostQualityLevel]

  public var time: CaptureTime
  public var rx: QualityLevel
  public var tx: QualityLevel

  public init(_ snapshot: Snapshot) {
    time = snapshot.time
    rx = snapshot.hostRx
    tx = snapshot.hostTx
  }

  public func collect(into out: inout MetricsWriter) {
    out.family(.lastTickTimestampSeconds)
    out.sample(.lastTickTimestampSeconds, [], time.secondsSinceEpoch)
    out.family(.hostQualityLevel)
    out.sample(.hostQualityLevel, [("direction", "rx")], Double(rx.rawValue))
    out.sample(.hostQualityLevel, [("direction", "tx")], Double(tx.rawValue))
  }
}

// MARK: The families

extension MetricFamily {
  public static let lastTickTimestampSeconds = gauge(
    "netquality_last_tick_timestamp_seconds", "End of the last 2 s window, Unix time.")
  public static let hostQualityLevel = gauge(
    "netquality_host_quality_level", labels: ["direction"],
    "Worst quality over active peers: 0 unknown, 1 excellent ... 5 very bad, 6 down.")
}
